"""Sets of JavaScript and TypeScript versions as strong models write them
(``tests/fixtures/js_real/``), through ``codequorum score --dynamic``: which version is
recommended, how many inputs each passes, where the versions part."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codequorum.cli.main import main
from tests.support.js_corpus import corpus_rows, write_jsonl


def scored(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    path = write_jsonl(corpus_rows(name), tmp_path / "set.jsonl")
    assert main(["score", str(path), "--dynamic", "--format", "json"]) == 0
    result: dict[str, Any] = json.loads(capsys.readouterr().out)["sets"][0]
    return result


def passes(s: dict[str, Any]) -> list[tuple[str, int, int]]:
    return [(c["status"], c["passed"], c["graded"]) for c in s["dynamic"]["candidates"]]


def codes(s: dict[str, Any]) -> list[str]:
    return [v["code"] for v in s["verdicts"]]


def test_a_humaneval_task_in_typescript_without_an_entry_point_runs_its_hidden_tests(
        node_sandboxed: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    s = scored("longest.ts", tmp_path, capsys)
    # null and undefined both answer Python's None; the last of equal lengths is wrong
    assert passes(s) == [("ok", 3, 3), ("ok", 3, 3), ("ok", 3, 3), ("ok", 1, 3), ("ok", 3, 3)]
    assert s["dynamic"]["inputs_source"][0] == "humaneval"
    assert s["recommended_by"] == "behaviour" and s["recommended"] != 3
    assert "divergent-outputs" in codes(s)


def test_a_multipl_e_harness_grades_completions_joined_to_their_prompt(
        node_sandboxed: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    s = scored("multiple_tests.js", tmp_path, capsys)
    assert [p[1:] for p in passes(s)] == [(7, 7), (7, 7), (5, 7), (7, 7), (7, 7)]
    assert s["dynamic"]["inputs_source"][0] == "tests"
    assert s["recommended"] != 2 and s["recommended_by"] == "behaviour"


def test_enums_and_the_values_they_type_run_and_part_the_wrong_version(
        node_sandboxed: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    s = scored("direction.ts", tmp_path, capsys)
    assert [p[0] for p in passes(s)] == ["ok"] * 5
    labels = [i["label"] for i in s["dynamic"]["inputs"]]
    # the first version's example names the enum's member: it runs whole, ungraded (a
    # version's own comment), before the values the enum types
    assert labels[:2] == ["turn(Direction.Up)", 'turn("UP")']
    assert s["dynamic"]["inputs"][0]["checked"] is False
    assert s["dynamic"]["output_clusters"] == [[0, 1, 2, 4], [3]]
    assert s["recommended"] != 3 and "divergent-outputs" in codes(s)


def test_overloads_run_and_node_repl_examples_grade(
        node_sandboxed: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    s = scored("pad_overloads.ts", tmp_path, capsys)
    assert passes(s) == [("ok", 2, 2), ("ok", 2, 2), ("ok", 2, 2), ("ok", 0, 2), ("ok", 2, 2)]


def test_versions_that_all_fail_to_load_are_not_said_to_disagree(
        node_sandboxed: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_jsonl([{"task_id": "t", "language": "javascript",
                         "prompt": "/** @example f(1) // => 2 */",
                         "versions": ["function f(x) { return x + 1; }\nthrow new Error('a');",
                                      "function f(x) { return x * 2; }\nmissing();"]}],
                       tmp_path / "set.jsonl")
    assert main(["score", str(path), "--dynamic", "--format", "json"]) == 0
    s = json.loads(capsys.readouterr().out)["sets"][0]
    assert [c["status"] for c in s["dynamic"]["candidates"]] == ["error", "error"]
    assert "not-run" in codes(s) and "divergent-outputs" not in codes(s)


def test_a_class_method_without_parameters_runs_on_a_constructed_instance(
        node_sandboxed: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    s = scored("stack_class.ts", tmp_path, capsys)
    # private fields exist: each instance is made by its constructor; a bare one, and one
    # its ``push`` filled (the constructor's parameter has a default)
    assert passes(s) == [("ok", 2, 2)] * 5
    assert [i["label"] for i in s["dynamic"]["inputs"]] == [
        "peek()", "stack.peek() after new Stack(), stack.push(1), stack.push(-3), stack.push(7)"]


def test_versions_naming_the_function_their_own_way_run_under_their_names(
        node_sandboxed: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    versions = ["function strlen(string: string): number {\n  return string.length;\n}",
                "export function strLen(s: string): number { return [...s].length; }",
                "const str_len = (s: string): number => { let n = 0; for (const _ of s) n++; "
                "return n; };",
                "function strlen(s: string): number { return performance.now() && s.length; }"]
    path = write_jsonl([{"task_id": "HumanEval/23", "language": "typescript",
                         "versions": versions}], tmp_path / "set.jsonl")
    assert main(["score", str(path), "--dynamic", "--format", "json"]) == 0
    s = json.loads(capsys.readouterr().out)["sets"][0]
    assert [c["passed"] for c in s["dynamic"]["candidates"]] == [3, 3, 3, 0]
    shown = [o for o in s["dynamic"]["outcomes"][3] if o]
    assert "bare JavaScript context" in json.dumps(shown)


def test_a_callback_parameter_gets_a_function_and_the_wrong_version_parts(
        node_sandboxed: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    s = scored("retry_callback.ts", tmp_path, capsys)
    assert s["dynamic"]["inputs"][0]["label"] == "applyTwice((x) => Number(x) * 2 + 1, 1)"
    assert s["dynamic"]["output_clusters"] == [[0, 1, 3, 4], [2]]
    assert s["recommended"] != 2 and "divergent-outputs" in codes(s)


def test_inputs_every_version_raises_on_say_so_instead_of_a_risk(
        node_sandboxed: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    versions = ["export function total(o: Widget): number { return o.parts.length; }",
                "export function total(o: Widget): number {\n"
                "  return o.parts.reduce((a) => a + 1, 0);\n}"]
    path = write_jsonl([{"task_id": "t", "language": "typescript", "versions": versions}],
                       tmp_path / "set.jsonl")
    assert main(["score", str(path), "--dynamic", "--format", "json"]) == 0
    s = json.loads(capsys.readouterr().out)["sets"][0]
    assert s["dynamic"]["inputs"] == [] and s["risk"] is None
    not_run = next(v for v in s["verdicts"] if v["code"] == "not-run")
    assert "every version raised on every input" in not_run["message"]


def test_the_risk_of_a_typescript_set_says_it_was_fitted_on_python(
        node_sandboxed: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The risk model was fitted on Python versions only (``bench/bench_js_risk.py``
    measured what it says of JavaScript and TypeScript): the words say so."""
    s = scored("median.ts", tmp_path, capsys)
    assert s["risk"] is not None and s["recommended"] != 2
    assert s["trust"].startswith(f"{s['risk_level']}: ")
    assert s["trust"].endswith("; fitted on Python versions, not calibrated on TypeScript")


def test_date_examples_and_date_parameters_run_and_part_the_wrong_version(
        node_sandboxed: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """date-fns writes its examples with ``new Date(2012, 8, 1)`` and types its parameters
    ``Date``: both are inputs, the example graded; 1900 parts the every-fourth-year version."""
    s = scored("leap_year_dates.ts", tmp_path, capsys)
    labels = [i["label"] for i in s["dynamic"]["inputs"]]
    assert labels[0] == 'isLeapYear(new Date("2012-09-01T00:00:00.000Z"))'
    assert passes(s)[0] == ("ok", 1, 1)
    assert s["dynamic"]["output_clusters"] == [[0, 1, 3], [2]]
    assert s["recommended"] != 2 and "divergent-outputs" in codes(s)


def test_versions_given_as_fenced_chat_answers_run_on_their_code(
        node_sandboxed: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Chat models often answer with the fenced block alone: each version runs as its
    code (not as JavaScript's tagged empty templates calling ``""``) and is graded."""
    prompt = "/**\n * @example\n * double(21)\n * //=> 42\n */\n"
    answers = ["```ts\nexport function double(n: number): number {\n  return n * 2;\n}\n```",
               "```typescript\nexport const double = (n: number): number => n + n;\n```\n",
               "Sure:\n\n```ts\nfunction double(n: number) {\n  return n << 1;\n}\n```"]
    path = write_jsonl([{"task_id": "t", "language": "typescript", "prompt": prompt,
                         "versions": answers}], tmp_path / "set.jsonl")
    assert main(["score", str(path), "--dynamic", "--format", "json"]) == 0
    s = json.loads(capsys.readouterr().out)["sets"][0]
    assert passes(s) == [("ok", 1, 1)] * 3


@pytest.mark.parametrize(("name", "parted_on"), [
    # a destructured parameter and one with a default: equal bounds
    ("format_range.ts", 'formatRange({"end": 7, "start": 7})'),
    ("safe_length.ts", "safeLength(null)"),  # null and undefined in a union
    ("title_case.js", 'titleCase("  mIxEd  CASE, 42! ")'),  # JSDoc's type: every string
    ("invert_map.ts", "invert(new Map("),  # two keys with one value
    ("stack_peek_or.ts", "stack.peekOr(0) after new Stack(), stack.push(1)"),  # filled
    ("normalize.ts", "normalize(7, 7, 7)"),  # the parameters of one type equal
    # against the clock: the sandbox's "now" and the days either side of it are drawn
    ("relative_day.ts", 'relativeDay(new Date("2025-01-02T12:00:00.000Z"))'),
    # texts of the separators a version splits on: a key given twice
    ("parse_query.ts", 'parseQuery("a=1&a=2")'),
])
def test_editor_sets_part_their_wrong_version_on_the_input_that_shows_it(
        node_sandboxed: object, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        name: str, parted_on: str) -> None:
    """The last version of each set is the wrong one (its comment says how): it is apart
    from the others, which are kept, and the first input it parts on is the telling one."""
    s = scored(name, tmp_path, capsys)
    dyn = s["dynamic"]
    assert dyn["output_clusters"] == [[0, 1, 2], [3]]
    assert "divergent-outputs" in codes(s) and s["recommended"] != 3
    assert dyn["inputs"][0]["origin"] == "hint"  # drawn of declared types, not guessed
    outcomes = dyn["outcomes"]
    parted = [i["label"] for k, i in enumerate(dyn["inputs"])
              if outcomes[3][k] != outcomes[0][k]]
    assert any(label.startswith(parted_on) for label in parted), parted
