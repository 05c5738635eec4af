"""A JavaScript set through the dynamic pipeline: pass rates, OER, divergent outputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codequorum.behaviour.dynamic_analysis import DynamicOptions, DynamicReport, run_dynamic
from codequorum.behaviour.runtimes.js_values import show
from codequorum.cli.main import main
from codequorum.core.model import TestCase, VersionSet
from codequorum.judge.dynamic_rules import dynamic_verdicts

PROMPT = "/**\n * @example addAll([1, 2, 3]) // => 6\n * @example addAll([]) // => 0\n */"
VERSIONS = [
    "function addAll(xs) { let s = 0; for (const x of xs) s += x; return s; }",
    "const addAll = (xs) => xs.reduce((a, b) => a + b, 0);",
    "function addAll(xs) { return xs.join('+'); }",
]


def test_a_javascript_set_runs_and_its_versions_part(node_sandboxed: object) -> None:
    ss = VersionSet.from_codes("js", VERSIONS, language="javascript", entry_point="addAll",
                              prompt=PROMPT)
    report = run_dynamic(ss, DynamicOptions())
    assert report.python.startswith("node ")
    assert [c.pass_rate for c in report.candidates] == [1.0, 1.0, 0.0]
    assert report.output_clusters == [[0, 1], [2]]
    assert report.summary["sctd_jsd"] is not None and report.summary["sctd_jsd"] > 0
    assert report.rules.divergence is not None
    # executed bytecodes: DCTD and BEF over the inputs that passed, growth per call
    assert report.summary["dctd_jsd"] is not None and report.summary["dctd_jsd"] > 0
    assert report.summary["bef_jsd"] is not None
    # two examples, nine values of the type they show (number[]), one with its items
    # equal, two again with their items repeated, three scaling sizes
    assert report.summary["dctd_inputs"] == 17
    assert [c.growth_measure for c in report.candidates] == ["bytecodes"] * 3
    # a loop and reduce's callback grow with n; join's work is inside a builtin
    assert [c.growth for c in report.candidates] == [1.0, 1.0, 0.0]
    for c in report.candidates[:2]:  # exactly a + b·n: the same bytecodes per element
        (n1, c1), (n2, c2), (n3, c3) = c.growth_points
        assert (c2 - c1) * (n3 - n2) == (c3 - c2) * (n2 - n1) and c2 > c1
    assert len({cost for _n, cost in report.candidates[2].growth_points}) == 1
    assert not any("not measured" in n for n in report.notes)


def test_versions_written_as_modules_in_every_way_an_answer_writes_them_run(
        node_sandboxed: object) -> None:
    """A default export of a function of no name is the function (as a CommonJS module
    that is one); named exports, ``module.exports`` and an imported ``assert`` checking it
    at the top level all run the same function."""
    body = "xs.reduce((a, b) => a + b, 0)"
    codes = [f"export default function (xs) {{ return {body}; }}",
             f"export default (xs) => {body};",
             f"export function addAll(xs) {{ return {body}; }}",
             f"module.exports = (xs) => {body};",
             f"import assert from 'node:assert';\nconst addAll = (xs) => {body};\n"
             "assert.strictEqual(addAll([2]), 2);\nexport { addAll };",
             f"const assert = require('assert');\nconst addAll = (xs) => {body};\n"
             "assert.strictEqual(addAll([2]), 3);"]
    ss = VersionSet.from_codes("js", codes, language="typescript", entry_point="addAll",
                              prompt=PROMPT)
    report = run_dynamic(ss, DynamicOptions(hypothesis_examples=0, scaling=False))
    assert [c.pass_rate for c in report.candidates] == [1.0] * 5 + [0.0]
    assert report.candidates[5].status == "error"
    assert "AssertionError: Expected values to be strictly equal: 2 !== 3" in (
        report.candidates[5].detail)


def test_score_runs_javascript_and_typescript_sets_of_a_jsonl_file(
        node_sandboxed: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "sets.jsonl"
    typed = ["function biggest(xs: number[]): number { return Math.max(...xs); }",
             "function biggest(xs: number[]): number { return xs.sort()[xs.length - 1]; }"]
    path.write_text("\n".join(json.dumps(s) for s in [
        {"task_id": "js", "language": "javascript", "entry_point": "addAll", "prompt": PROMPT,
         "versions": VERSIONS},
        {"task_id": "ts", "language": "typescript", "entry_point": "biggest",
         "versions": typed},
    ]) + "\n", encoding="utf-8")
    assert main(["score", str(path), "--dynamic", "--format", "json"]) == 0
    js, ts = json.loads(capsys.readouterr().out)["sets"]
    assert js["dynamic"]["python"].startswith("node ")
    assert js["summary"]["pass_rate_mean"] == 2 / 3 and js["recommended_by"] == "behaviour"
    assert "divergent-outputs" in [v["code"] for v in js["verdicts"]]
    assert ts["dynamic"]["inputs_source"] == ["hypothesis", "scaling"]  # drawn from number[]
    assert ts["summary"]["sctd_jsd"] is not None and ts["summary"]["oer"] < 1.0


def test_versions_falling_off_their_end_alike_do_not_outvote_one_that_answers(
        node_sandboxed: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # versions 1 and 2 give undefined past n = 2 (their loop ends without a return): before,
    # they agreed on it with each other and outvoted version 3 (judge.recommend.fell_through)
    path = tmp_path / "sets.jsonl"
    versions = [
        "function tenTimes(n) {\n  for (let i = 0; i < 3; i++) {\n    if (i === n) return i * 10;\n"
        "  }\n}\n",
        "function tenTimes(n) {\n  let i = 0;\n  while (i < 3) {\n"
        "    if (i === n) { return i * 10; }\n    i++;\n  }\n}\n",
        "function tenTimes(n) {\n  return n * 10;\n}\n"]
    path.write_text(json.dumps({
        "task_id": "undefined", "language": "javascript", "versions": versions,
        "prompt": "/**\n * Ten times n.\n * @example tenTimes(1) // 10\n */"}) + "\n",
        encoding="utf-8")
    assert main(["score", str(path), "--dynamic", "--format", "json"]) == 0
    (got,) = json.loads(capsys.readouterr().out)["sets"]
    assert got["recommended_by"] == "behaviour" and got["recommended"] == 2
    assert got["recommendation"].startswith("keep version 3: passes the docstring example")


def test_static_sctd_of_a_javascript_set_needs_no_run(node_sandboxed: object,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from codequorum.behaviour.runtimes import node_sandbox
    from codequorum.pipeline.analyze import analyze
    from codequorum.pipeline.config import AnalysisConfig

    ss = VersionSet.from_codes("js", VERSIONS, language="javascript", entry_point="addAll")
    report = analyze(ss, AnalysisConfig())
    assert report.summary["sctd_jsd"] is not None and report.summary["sctd_jsd"] > 0
    # where the Node sandbox is missing the structural figures stay, SCTD is left out
    monkeypatch.setattr(node_sandbox, "find_node", lambda: None)
    other = VersionSet.from_codes("js", [v + "\n// other" for v in VERSIONS],
                                 language="javascript", entry_point="addAll")
    missing = analyze(other, AnalysisConfig())
    assert missing.summary["sctd_jsd"] is None and missing.summary["jsd_struct"] is not None


def test_versions_of_a_decorated_class_run_undecorated_and_say_so(
        node_sandboxed: object) -> None:
    head = ("@Injectable()\nexport class Prices {\n  @Cached('x')\n"
            "  discount(price: number, rate: number): number {\n")
    codes = [head + "    return price * (1 - rate);\n  }\n}\n",
             head + "    return price * rate;\n  }\n}\n"]
    prompt = "/**\n * @example discount(100, 0.25) // => 75\n */"
    ss = VersionSet.from_codes("ts", codes, language="typescript",
                               entry_point="Prices.discount", prompt=prompt)
    report = run_dynamic(ss, DynamicOptions())
    assert [c.status for c in report.candidates] == ["ok", "ok"]
    assert [c.pass_rate for c in report.candidates] == [1.0, 0.0]
    assert all(c.detail.startswith("decorators left out (the version ran undecorated): "
                                   "@Injectable(), @Cached('x')") for c in report.candidates)


def test_examples_beside_tests_are_checked_and_weigh_in_the_risk_as_pythons(
        node_sandboxed: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A row of MultiPL-E's completions carries its tests beside the prompt's examples.
    The examples still say which versions pass them (checked, not graded: the tests give
    the pass rates), even the one a test repeats, so the risk reads the same evidence as
    for the Python set: before, it read "outputs" (0.69) for the JavaScript one."""
    js_prompt = ('//Return length of given string\n// >>> strlen("")\n// 0\n'
                 '// >>> strlen("abc")\n// 3\nfunction strlen(string){\n')
    tests = ("const assert = require('node:assert');\nfunction test() {\n"
             "  let candidate = strlen;\n  assert.deepEqual(candidate(\"\"),0);\n"
             "  assert.deepEqual(candidate(\"x\"),1);\n}\ntest();\n")
    bodies = ["  return string.length;\n}", "  let n = 0; for (const c of string) n++;"
              " return n;\n}", "  return string.length - 1;\n}"]
    py_prompt = ('def strlen(string: str) -> int:\n    """ Return length of given string\n'
                 "    >>> strlen('')\n    0\n    >>> strlen('abc')\n    3\n    \"\"\"\n")
    py_bodies = ["    return len(string)\n", "    n = 0\n    for c in string:\n        n += 1\n"
                 "    return n\n", "    return len(string) - 1\n"]
    path = tmp_path / "sets.jsonl"
    path.write_text("\n".join(json.dumps(row) for row in [
        {"problem": "strlen_js", "language": "js", "prompt": js_prompt, "tests": tests,
         "completions": bodies},
        {"task_id": "strlen_py", "prompt": py_prompt, "versions": py_bodies,
         "sample_format": "completion"},
    ]) + "\n", encoding="utf-8")
    assert main(["score", str(path), "--dynamic", "--format", "json"]) == 0
    js, py = json.loads(capsys.readouterr().out)["sets"]
    examples = [i for i in js["dynamic"]["inputs"] if i["source"] == "doctest"]
    assert [(i["label"], i["graded"], i["checked"]) for i in examples] == [
        ('strlen("")', False, True), ('strlen("abc")', False, True)]
    assert [c["pass_rate"] for c in js["dynamic"]["candidates"]] == [1.0, 1.0, 0.0]
    assert js["risk_evidence"] == py["risk_evidence"] == "examples"
    assert js["risk"] == pytest.approx(py["risk"], abs=1e-12)
    assert js["recommendation"].startswith("keep version 1: passes both docstring examples")


def _run(versions: list[str], language: str, entry: str) -> DynamicReport:
    return run_dynamic(VersionSet.from_codes(entry, versions, language=language,
                                             entry_point=entry), DynamicOptions())


def test_validators_with_other_patterns_part_on_the_strings_of_their_patterns(
        node_sandboxed: object) -> None:
    versions = [
        "const EMAIL = /^[\\w.+-]+@[\\w-]+\\.[a-z]{2,}$/i;\n"
        "function isEmail(s) { return EMAIL.test(s); }",
        "function isEmail(s) { return s.match(/^[^@ ]+@[^@ ]+$/) !== null; }",
        "const isEmail = (s) => { const [user, domain = ''] = s.split('@');"
        " return !!user && domain.includes('.'); };",
    ]
    report = _run(versions, "javascript", "isEmail")
    # drawn text is never an address: without the patterns' strings the three agree
    assert report.output_clusters == [[0], [1], [2]]
    assert report.rules.input_label.startswith('isEmail("') and "@" in report.rules.input_label


def test_versions_part_on_the_literals_they_compare_with(node_sandboxed: object) -> None:
    versions = [
        "function allowed(method: string): boolean { return ['GET', 'HEAD'].includes(method); }",
        "function allowed(method: string): boolean { return method === 'GET'; }",
        "function allowed(method: string): boolean {\n  switch (method) { case 'GET': case 'HEAD':"
        " return true; default: return false; }\n}",
    ]
    report = _run(versions, "typescript", "allowed")
    # drawn text is never a method's name: without the literals the three agree
    assert report.output_clusters == [[0, 2], [1]]
    assert report.rules.input_label == 'allowed("HEAD")'


CHUNKS_PROMPT = """/**
 * Splits an array into chunks of a size.
 * @example
 * [...chunks([1, 2, 3], 2)] // => [[1, 2], [3]]
 * @example
 * const sizes = [2, 3];
 * sizes.map((n) => Array.from(chunks([1, 2, 3, 4], n)).length) // => [2, 2]
 * @example
 * (await first(chunks([5], 1))) // => [5]
 */"""
CHUNKS = [
    "function* chunks(xs, n) {\n  for (let i = 0; i < xs.length; i += n) {\n"
    "    yield xs.slice(i, i + n);\n  }\n}",
    "function* chunks(xs, n) {\n  for (let i = 0; i + n <= xs.length; i += n) {\n"
    "    yield xs.slice(i, i + n);\n  }\n}",
]


def test_examples_that_call_the_function_inside_code_run_whole_and_grade(
        node_sandboxed: object) -> None:
    """A generator's example spreads it; another reads a constant its example declared and
    calls it in a callback: each runs as written, its value graded. The third reads a
    name the versions do not declare (``first``): not run, where it would raise on all."""
    for version in CHUNKS:
        assert "first" not in version
    ss = VersionSet.from_codes("js", CHUNKS, language="javascript", entry_point="chunks",
                               prompt=CHUNKS_PROMPT)
    report = run_dynamic(ss, DynamicOptions(scaling=False))
    assert [i["label"] for i in report.inputs] == [
        "[...chunks([1, 2, 3], 2)]",
        "sizes.map((n) => Array.from(chunks([1, 2, 3, 4], n)).length)"]
    assert [i["checked"] for i in report.inputs] == [True, True]
    assert [[o[0] if o else None for o in row] for row in report.outcomes] == [
        ["[[1,2],[3]]", "[2,2]"], ["[[1,2]]", "[2,1]"]]
    assert [c.pass_rate for c in report.candidates] == [1.0, 0.0]
    assert all(c.mean_traced_opcodes for c in report.candidates)  # the version's own counts


ONCE = [
    "function once(fn) {\n  let done = false, value;\n  return function (...args) {\n"
    "    if (!done) { done = true; value = fn(...args); }\n    return value;\n  };\n}",
    "const once = (fn) => {\n  let called = false;\n  let result;\n"
    "  return (...a) => (called ? result : ((called = true), (result = fn(...a))));\n};",
    "function once(fn) {\n  return function wrapper(...args) { return fn(...args); };\n}",
]


def test_a_returned_function_is_compared_by_what_it_does(node_sandboxed: object) -> None:
    """Three ``once``: the two that remember agree (their returned functions have other
    names), the one that calls ``fn`` every time is apart, on the second call."""
    report = _run([*ONCE], "javascript", "once")
    assert report.output_clusters == [[0, 1], [2]]
    k = next(k for k, (a, b) in enumerate(zip(report.outcomes[0], report.outcomes[2],
                                              strict=True)) if a != b)
    right, wrong = (json.loads(str((report.outcomes[c][k] or ("",))[0])) for c in (0, 2))
    assert [call[0] for call in right["calls"]] == [[1], [2], [1]]
    first = right["calls"][0][1]
    assert [call[1] for call in right["calls"]] == [first] * 3
    assert wrong["calls"][0][1] == first and wrong["calls"][1][1] != first
    message = dynamic_verdicts(report)[0].message
    assert message.startswith("versions 1 and 3 disagree on once(")
    shown = show(first)
    assert f"a function: (1) => {shown}, (2) => {shown}, (1) => {shown}" in message


DEBOUNCE = [
    "export function debounce<T extends (...args: any[]) => void>(fn: T, wait: number) {\n"
    "  let timer: ReturnType<typeof setTimeout> | undefined;\n"
    "  return (...args: Parameters<T>) => {\n"
    "    if (timer !== undefined) clearTimeout(timer);\n"
    "    timer = setTimeout(() => fn(...args), wait);\n  };\n}",
    "export function debounce(fn: (...a: number[]) => void, wait: number) {\n"
    "  let handle: any = null;\n  return function (...args: number[]) {\n"
    "    clearTimeout(handle);\n    handle = setTimeout(() => { fn(...args); }, wait);\n"
    "  };\n}",
    "export function debounce(fn: (...a: number[]) => void, wait: number) {\n"
    "  return (...args: number[]) => { setTimeout(() => fn(...args), wait); };\n}",
]


#: A leading ``debounce``: it calls ``fn`` on the first call of a burst, at once.
LEADING = ("export function debounce(fn: (...a: number[]) => void, wait: number) {\n"
           "  let t: any;\n  return (...args: number[]) => {\n    if (!t) fn(...args);\n"
           "    clearTimeout(t);\n    t = setTimeout(() => { t = undefined; }, wait);\n  };\n}")


def test_a_debounce_is_told_by_what_its_callback_hears_once_the_timers_run(
        node_sandboxed: object) -> None:
    """Every ``debounce`` returns ``undefined`` on each probe call; once the probes' timers
    have run, the two that clear the last timer call ``fn`` once, with the last call's
    arguments, and the one that never clears calls it after every call; a leading one
    calls it at once with the first call's arguments (the same ``(1)``), not later."""
    report = _run([*DEBOUNCE, LEADING], "typescript", "debounce")
    assert report.output_clusters == [[0, 1], [2], [3]]
    first = [json.loads(str((row[0] or ("",))[0])) for row in report.outcomes]
    later = {"$": "later"}
    assert first[0] == first[1] == {"$": "function", "heard": [later, [1]], "calls": [
        [[1], {"$": "undefined"}], [[2], {"$": "undefined"}], [[1], {"$": "undefined"}]]}
    assert first[2]["heard"] == [later, [1], [2], [1]]
    assert first[3]["heard"] == [[1]]  # called at once on the first call, never later
    message = dynamic_verdicts(report)[0].message
    assert message.startswith("versions 1 and 3 disagree on debounce(")
    assert message.endswith("; calls back later (1) vs a function: (1) => undefined, "
                            "(2) => undefined, (1) => undefined; calls back later (1), (2), (1)")


def test_a_callback_called_without_end_is_heard_up_to_a_bound(node_sandboxed: object) -> None:
    """A returned function that calls the function passed in 300 times per call: the
    first 100 calls are kept, then one truncation mark."""
    spam = "function spam(fn) {\n  return (x) => { for (let i = 0; i < 300; i++) fn(i); };\n}"
    report = _run([spam], "javascript", "spam")
    heard = [json.loads(str((o or ("",))[0])).get("heard") for o in report.outcomes[0]]
    assert heard and all(h == [[i] for i in range(100)] + [{"$": "truncated"}] for h in heard)


def test_a_cache_keyed_on_the_first_argument_parts_on_the_third_probe(
        node_sandboxed: object) -> None:
    """A returned function of two parameters is called on ``(1, 2)``, ``(2, 3)``, ``(1, 5)``
    and ``(1, 2)``: the cache keyed on ``a`` alone answers ``(1, 5)`` with 12."""
    keyed = ("/** @example memo((a, b) => a * 10 + b) */\n"
             "function memo(fn) {\n  const cache = new Map();\n  return (a, b) => {\n"
             "    const k = KEY;\n    if (!cache.has(k)) cache.set(k, fn(a, b));\n"
             "    return cache.get(k);\n  };\n}\n")
    report = _run([keyed.replace("KEY", "JSON.stringify([a, b])"),
                   keyed.replace("KEY", "`${a},${b}`"), keyed.replace("KEY", "a")],
                  "javascript", "memo")
    assert report.output_clusters == [[0, 1], [2]]
    calls = [json.loads(str((row[0] or ("",))[0]))["calls"] for row in report.outcomes]
    assert [c[0] for c in calls[0]] == [[1, 2], [2, 3], [1, 5], [1, 2]]
    assert [c[1] for c in calls[0]] == [12, 23, 15, 12]
    assert [c[1] for c in calls[2]] == [12, 23, 12, 12]


def test_a_name_imported_from_a_package_is_told_as_one_a_version_alone_lacks(
        node_sandboxed: object) -> None:
    """A version run alone (no workspace) that reads ``sum`` from ``lodash``: the package
    is not there, and its ``ReferenceError`` says so; a name the version never imported
    stays the version's own mistake."""
    versions = ["import { sum } from 'lodash';\n"
                "export function total(xs: number[]): number { return sum(xs); }",
                "export function total(xs: number[]): number { return tally(xs); }"]
    ss = VersionSet.from_codes("total", versions, language="typescript", entry_point="total",
                               tests=[TestCase("call", args=([1, 2],), expected=3)])
    report = run_dynamic(ss, DynamicOptions(hypothesis_examples=0, scaling=False))
    assert [row[0][2] if row[0] else None for row in report.outcomes] == [
        "sum is not defined (imported from `lodash`: a version run alone has no packages)",
        "tally is not defined"]


def test_a_console_assert_harness_grades_as_it_compares(node_sandboxed: object) -> None:
    # HumanEval-X: console.assert prints and goes on, so a harness never fails; here each
    # assert grades. "6.00" == 6 holds (loose), [1, 2] is compared through JSON
    harness = ("const t = () => {\n"
               "  console.assert(area(3, 4, 5) == 6.0)\n"
               "  console.assert(JSON.stringify(sides(3)) === JSON.stringify([3, 3]))\n"
               "  console.assert(!area(0, 0, 0))\n"
               "}\nt()\n")
    versions = [
        "const area = (a, b, c) => { const s = (a + b + c) / 2;\n"
        "  return Math.sqrt(s * (s - a) * (s - b) * (s - c)).toFixed(2); };\n"
        "const sides = (n) => [n, n];",
        "const area = (a, b, c) => a * b / 2;\nconst sides = (n) => [n, n];",
        "const area = (a, b, c) => a + b + c;\nconst sides = (n) => [n];",
    ]
    ss = VersionSet.from_codes("JavaScript/71", versions, language="javascript",
                              entry_point="area")
    ss.tests.append(TestCase("check", source=harness))
    report = run_dynamic(ss, DynamicOptions(hypothesis_examples=0, scaling=False))
    # sides' assert is another function's: not read. The first passes "6.00" == 6 and
    # fails !"0.00" (a non-empty string is truthy), as the harness would; the second
    # gives 6 and 0; the third 12 and 0
    assert [c.pass_rate for c in report.candidates] == [0.5, 1.0, 0.5]
