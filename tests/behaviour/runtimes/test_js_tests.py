"""A JavaScript set's own tests: JSON call cases, MultiPL-E harnesses, HumanEval's tests."""

from __future__ import annotations

from codequorum.behaviour.runtimes.js_literals import NULLISH
from codequorum.behaviour.runtimes.js_tests import (
    from_json,
    harness_tests,
    humaneval_task,
    resolve_entry,
    set_tests,
)
from codequorum.behaviour.runtimes.js_values import strict_equal
from codequorum.core.model import TestCase as Case
from codequorum.core.model import VersionSet

HARNESS = """const assert = require('node:assert');
function test() {
  let candidate = longest;
  assert.deepEqual(candidate([]),undefined);
  assert.deepEqual(candidate(["x", "yyy"]),"yyy");
  assert.strictEqual(candidate(["a"]), null);
  assert.deepEqual(candidate(someVariable), 1);
}
test();
"""


def test_a_harness_gives_its_candidate_and_one_graded_call_per_literal_assert() -> None:
    name, cases = harness_tests(HARNESS)
    assert name == "longest"
    assert [(c.args, c.expected) for c in cases] == [
        (([],), NULLISH), ((["x", "yyy"],), "yyy"), ((["a"],), None)]
    assert all(c.has_expected for c in cases)


def test_a_loose_null_expects_null_or_undefined_and_a_strict_one_only_null() -> None:
    assert strict_equal({"$": "undefined"}, NULLISH) and strict_equal(None, NULLISH)
    assert not strict_equal(0, NULLISH) and not strict_equal({"$": "undefined"}, None)


def test_humaneval_ids_of_both_spellings_name_the_task() -> None:
    assert humaneval_task("HumanEval/12") == "HumanEval/12"
    assert humaneval_task("HumanEval_0_has_close_elements") == "HumanEval/0"
    assert humaneval_task("editor/slugify") is None and humaneval_task("HumanEval/999") is None
    assert humaneval_task("HumanEval_0") == "HumanEval/0"


def test_an_id_naming_another_function_after_the_number_names_no_task() -> None:
    # HumanEval/30 is get_positive: its tests must not grade all_prefixes
    assert humaneval_task("HumanEval_30_all_prefixes") is None
    assert humaneval_task("HumanEval_30_get_positive") == "HumanEval/30"


def test_a_humaneval_set_in_javascript_takes_the_benchmarks_tests_as_javascript() -> None:
    ss = VersionSet.from_codes("HumanEval/12", ["function longest(strings) { return null; }"],
                              language="javascript")
    got = set_tests(ss)
    assert got.entry == "longest" and got.hidden
    assert [(t.args, t.expected) for t in got.tests][:2] == [
        (([],), NULLISH), ((["x", "y", "z"],), "x")]


def test_a_camel_case_version_of_a_benchmark_function_is_the_one_called() -> None:
    codes = ["function hasCloseElements(numbers, threshold) { return false; }"]
    assert resolve_entry("has_close_elements", codes, "javascript", None) == "hasCloseElements"
    assert resolve_entry("f", ["const x = 1;"], "javascript", None) == "f"


def test_json_objects_of_call_cases_are_javascript_objects() -> None:
    assert from_json([{"b": 1, "a": [{"c": None}]}]) == [
        {"$": "object", "v": [["a", [{"$": "object", "v": [["c", None]]}]], ["b", 1]]}]
    assert from_json({"$": "bigint", "v": "1"}) == {"$": "bigint", "v": "1"}
    ss = VersionSet.from_codes("t", ["const f = (o) => o.a;"], language="javascript",
                              tests=[Case("call", args=({"a": 1},), expected=1,
                                              has_expected=True)])
    got = set_tests(ss)
    assert got.entry == "f" and got.tests[0].args == ({"$": "object", "v": [["a", 1]]},)


def test_a_version_calls_the_set_function_by_the_name_it_gives_it() -> None:
    from codequorum.behaviour.runtimes.js_tests import version_entry

    assert version_entry("export function strLen(s) { return 1; }", "strlen",
                         "javascript") == "strLen"
    assert version_entry("function strlen(s) { return 1; }", "strlen", "javascript") == "strlen"
    assert version_entry("function other() {}", "strlen", "javascript") == "strlen"


def test_a_missing_node_global_is_told_as_the_sandboxs() -> None:
    from codequorum.behaviour.runtimes.js_values import host_global_told

    told = host_global_told("ReferenceError", "fetch is not defined")
    assert told is not None and "bare JavaScript context" in told and "`fetch`" in told
    assert host_global_told("ReferenceError", "ORDER is not defined") == "ORDER is not defined"
    assert host_global_told("TypeError", "fetch is not defined") == "fetch is not defined"
    # the context builds Buffer, so a ReferenceError for it is the version's own doing
    assert host_global_told("ReferenceError", "Buffer is not defined") == "Buffer is not defined"


#: A harness as HumanEval-X writes it: the function called by its name, no candidate.
CONSOLE_HARNESS = """const testTriangle = () => {
  console.assert(area(3, 4, 5) === 6)
  console.assert(
    1.5 === area(1, 2, 2.5)
  )
  console.assert(JSON.stringify(area(1, 1, [2])) === JSON.stringify([1, {b: 2}]))
  console.assert(area(1, 2, 10) == null)
  console.assert(area(2, 2, 2) == 1.73)
  console.assert(!area(0, 0, 0))
  console.assert(Math.abs(area(1, 1, 1) - 0.43) < 1e-2)
  console.assert(area(1, 1, x) === 2)
  console.assert(other(1) === 2)
  console.assert(area(1, 1, 1) === helper(2))
  console.assert(true)
}
testTriangle()
"""


def test_a_console_assert_harness_gives_graded_calls_and_truthy_examples() -> None:
    name, cases = harness_tests(CONSOLE_HARNESS, ["area"])
    assert name is None  # no candidate: the function is the one named
    calls = [c for c in cases if c.kind == "call"]
    assert [(c.args, c.expected) for c in calls] == [
        ((3, 4, 5), 6), ((1, 2, 2.5), 1.5),
        ((1, 1, [2]), [1, {"$": "object", "v": [["b", 2]]}]),
        ((1, 2, 10), NULLISH)]
    assert [c.name for c in calls] == ["check 2", "check 3", "check 6", "check 7"]
    # a loose comparison with a value ("6.00" == 6 holds), a negation and a tolerance run
    # whole, as the harness runs them, and must give a truthy value
    examples = [c for c in cases if c.kind == "example"]
    assert [c.name for c in examples] == ["check 8", "check 9", "check 10"]
    assert all(c.expected is True and c.has_expected for c in examples)
    assert "Boolean(area(2, 2, 2) == 1.73)" in (examples[0].source or "")
    assert "Boolean(!area(0, 0, 0))" in (examples[1].source or "")
    # a variable, another function, a name the harness defines: not read
    assert len(cases) == 7


def test_a_console_assert_harness_calls_the_function_the_versions_define() -> None:
    ss = VersionSet.from_codes("JavaScript/71", [
        "const area = (a, b, c) => 6;", "const area = (a, b, c) => 7;"],
        language="javascript")
    ss.tests.append(Case("check", source=CONSOLE_HARNESS))
    got = set_tests(ss)
    assert got.entry == "area" and not got.hidden
    assert len(got.tests) == 7 and not got.notes
