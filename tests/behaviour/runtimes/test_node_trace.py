"""Executed V8 bytecodes of JavaScript runs: hand-checked counts matched exactly in the real
sandboxed Node, the same on every run and without the JIT; the flow solver and the
coverage reader on their own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codequorum.behaviour.runtimes import node_sandbox, node_trace
from codequorum.behaviour.runtimes.node import JAVASCRIPT, static_counts_js
from codequorum.behaviour.runtimes.node_trace import (
    APPROXIMATE,
    Block,
    Bytecode,
    Graph,
    TamperedPrintout,
    broken_by,
    parse_functions,
    read_coverage,
    solve,
    solve_counts,
)
from codequorum.behaviour.sandbox.limits import Limits
from codequorum.core.model import ModuleContext, TestCase

FIXTURE = json.loads((Path(__file__).parent / "data" / "js_executed_counts.json").read_text(
    encoding="utf-8"))
CASES = {c["name"]: c for c in FIXTURE["cases"]}
LIMITS = Limits(wall_seconds=60, cpu_seconds=60)


def _traced(case: dict[str, Any], node: node_sandbox.NodeBinary | None = None
            ) -> dict[str, int]:
    test = TestCase("call", args=tuple(case["args"]), name=case["name"])
    result = node_sandbox.run_node_candidate(case["code"], [test], case["entry"], LIMITS,
                                             trace=True, node=node)
    assert result.status == "ok", result.detail
    outcome = result.tests[0]
    assert outcome.exc_type is None and json.loads(outcome.output or "null") == case["output"]
    assert outcome.opcodes is not None
    assert outcome.opcode_total == sum(outcome.opcodes.values())
    return outcome.opcodes


@pytest.mark.parametrize("name", sorted(CASES))
def test_executed_bytecodes_match_the_hand_checked_counts(node_sandboxed: object,
                                                          name: str) -> None:
    case = CASES[name]
    counts = _traced(case)
    assert {k: counts.get(k, 0) for k in case["expect"]} == case["expect"], case["why"]
    assert "IncBlockCounter" not in counts  # the instrumentation is not the version's


@pytest.mark.parametrize("which", ["system", "wheel"])
def test_a_for_of_left_early_looks_its_iterators_return_up_on_every_node(
        node_sandboxed: object, which: str) -> None:
    """The close of a ``for``-``of`` left by ``break``, ``return`` or a throw (the lookup of
    its iterator's ``return``) is counted, and only then: on the system's Node and the
    wheel's (their bytecode differs around the close)."""
    node = node_sandbox.wheel_node() if which == "wheel" else None
    if which == "wheel" and node is None:
        pytest.skip("no pinned Node wheel here")
    for case in (c for name, c in CASES.items() if name.startswith("for-of")):
        counts = _traced(case, node)
        assert {k: counts.get(k, 0) for k in case["expect"]} == case["expect"], case["name"]


@pytest.mark.parametrize("which", ["system", "wheel"])
def test_generators_resumed_by_return_and_throw_count_exactly_on_every_node(
        node_sandboxed: object, which: str) -> None:
    """A generator's ``return`` and ``throw`` resumes (a ``for``-``of`` left early, explicit
    calls) take its ``finally``, its implicit return or its catch, and a loop's close calls
    that ``return``: counted exactly on the system's Node and the wheel's, as is an implicit
    return at a closing brace."""
    node = node_sandbox.wheel_node() if which == "wheel" else None
    if which == "wheel" and node is None:
        pytest.skip("no pinned Node wheel here")
    names = [n for n in CASES if n.startswith(("generator ", "implicit return"))]
    assert len(names) == 5
    for name in names:
        counts = _traced(CASES[name], node)
        assert {k: counts.get(k, 0) for k in CASES[name]["expect"]} == CASES[name]["expect"], name


def test_the_fixture_says_what_is_not_modelled() -> None:
    assert {"loop", "nested loops", "recursion", "closure", "try/catch with throw",
            "generator", "async", "for-of left by break", "for-of to its end"} <= set(CASES)
    assert any("builtins" in n for n in FIXTURE["not_modelled"])
    assert any("not a `throw`" in n for n in FIXTURE["not_modelled"])


def test_counts_are_the_same_on_every_run_and_without_the_jit(
        node_sandboxed: object, monkeypatch: pytest.MonkeyPatch) -> None:
    cases = [CASES["loop with break"], CASES["generator"], CASES["try/catch with throw"],
             CASES["generator left by return, by a throw and run to its end"]]
    first = [_traced(c) for c in cases]
    assert [_traced(c) for c in cases] == first
    flags = node_sandbox.node_flags
    monkeypatch.setattr(node_sandbox, "node_flags", lambda limits: [*flags(limits), "--jitless"])
    assert [_traced(c) for c in cases] == first


def test_a_function_run_once_executes_its_static_bytecodes(node_sandboxed: object) -> None:
    code = "function add(a, b) { return a + b; }"
    traced = _traced({"code": code, "entry": "add", "args": [2, 3], "output": 5, "name": "add"})
    static = static_counts_js([code])[0]
    assert static is not None
    assert traced == {"Ldar": 1, "Add": 1, "Return": 1}
    assert set(traced) <= set(static)  # the static counts hold the script's top level too


def test_an_untraced_run_carries_no_counts_and_eval_is_not_counted(
        node_sandboxed: object) -> None:
    code = ("function f(n) { let s = 0; for (let i = 0; i < n; i++) s += i;"
            " return s + eval('(function g() { let t = 0; for (let k = 0; k < 9; k++) t++;"
            " return t; })()'); }")
    test = TestCase("call", args=(4,), name="f")
    plain = node_sandbox.run_node_candidate(code, [test], "f", LIMITS)
    assert plain.tests[0].output == "15" and plain.tests[0].opcodes is None
    traced = node_sandbox.run_node_candidate(code, [test], "f", LIMITS, trace=True)
    counts = traced.tests[0].opcodes
    assert traced.tests[0].output == "15" and counts is not None
    assert counts["JumpLoop"] == 4  # g's 9 iterations ran in code compiled by eval


def test_a_runaway_loop_still_times_out_when_traced(node_sandboxed: object) -> None:
    test = TestCase("call", args=(1,), name="spin")
    result = node_sandbox.run_node_candidate("function spin(n) { for (;;) n++; }", [test],
                                             "spin", Limits(wall_seconds=20, cpu_seconds=20,
                                                            test_seconds=1.0), trace=True)
    assert result.tests[0].exc_type == "Timeout" and result.tests[0].opcodes is None


FORGED = "   5 S> 0x1 @    0 : 0c                Return"


def test_a_name_that_writes_into_the_printout_gets_no_counts(node_sandboxed: object) -> None:
    forged = ("function f(n) { const o = { " + json.dumps("x\n" + FORGED) + "() { return 1; } };"
              " let s = 0; for (let i = 0; i < n; i++) s += o[" + json.dumps("x\n" + FORGED)
              + "](); return s; }")
    test = TestCase("call", args=(3,), name="f")
    result = node_sandbox.run_node_candidate(forged, [test], "f", LIMITS, trace=True)
    assert result.status == "ok" and result.tests[0].output == "3"
    assert result.tests[0].opcodes is None  # refused whole, never counted as forged
    # a whole header with a forged one folded into the name is caught on its other line
    name = "x (0x1 <SharedFunctionInfo x>)]\n" + FORGED + "\n[generated bytecode for function: x"
    text = f"[generated bytecode for function: {name} (0x2 <SharedFunctionInfo {name}>)]"
    with pytest.raises(TamperedPrintout):
        parse_functions(text)


def test_getters_methods_and_constructors_are_counted(node_sandboxed: object) -> None:
    code = ("class A { constructor() { this.v = 2; } get x() { return this.v; }"
            " twice() { return this.x * 2; } }\n"
            "function f(k) { const a = new A(); let s = 0; for (let i = 0; i < k; i++)"
            " s += a.twice(); return s; }")
    counts = _traced({"code": code, "entry": "f", "args": [3], "output": 12, "name": "class"})
    # returns: f once, twice and the getter three times each (the constructor's too)
    assert counts["Return"] == 1 + 3 + 3 + 1
    assert counts["MulSmi"] == 3 and counts["JumpLoop"] == 3


def test_a_version_in_its_module_counts_its_helpers_of_the_same_file(
        node_sandboxed: object) -> None:
    module = ModuleContext(
        name="app.js", path="app.js", qualified_name="f", kind="function", roots=(),
        files=(("app.js", "const { unit } = require('./lib/unit');\n"
                "function helper(x) { return x + unit - 1; }\nfunction f(x) { return x; }\n"),
               ("lib/unit.js", "module.exports = { unit: 1 };\n")))
    code = "function f(x) { let s = 0; for (let i = 0; i < x; i++) s += helper(1); return s; }"
    test = TestCase("call", args=(4,), expected=4, has_expected=True)
    result = JAVASCRIPT.run(code, [test], "f", LIMITS, True, 0, module=module)
    assert result.module is not None and result.module.loaded
    counts = result.tests[0].opcodes
    assert result.tests[0].passed and counts is not None
    assert counts["Return"] == 1 + 4 and counts["JumpLoop"] == 4  # f, then helper 4 times


def test_a_long_chain_of_branches_is_counted_exactly(node_sandboxed: object) -> None:
    body = " ".join(f"if (x % {i + 2} === 0) s += {i}; else s -= 1;" for i in range(200))
    code = f"function f(n) {{ let s = 0; for (let x = 0; x < n; x++) {{ {body} }} return s; }}"
    counts = _traced({"code": code, "entry": "f", "args": [30], "name": "chain",
                      "output": sum(i if x % (i + 2) == 0 else -1
                                    for x in range(30) for i in range(200))})
    assert counts["TestEqualStrict"] == 200 * 30 and counts["JumpLoop"] == 30


BRANCHES = " ".join(f"if (x % {i + 2} === 0) s += {i}; else s -= 1;" for i in range(1000))
BIG = f"function big(x) {{ let s = 0; {BRANCHES} return s; }}"
BIG_INPUTS = (0, 7, 61)


def _big_run(node: node_sandbox.NodeBinary | None = None) -> Any:
    tests = [TestCase("call", args=(x,), name=str(x)) for x in BIG_INPUTS]
    return node_sandbox.run_node_candidate(BIG, tests, "big", LIMITS, trace=True, node=node)


def _big_output(x: int) -> int:
    return sum(i if x % (i + 2) == 0 else -1 for i in range(1000))


@pytest.mark.parametrize("which", ["system", "wheel"])
def test_a_function_of_a_thousand_branches_is_counted_exactly(node_sandboxed: object,
                                                              which: str) -> None:
    node = node_sandbox.wheel_node() if which == "wheel" else None
    if which == "wheel" and node is None:
        pytest.skip("no pinned Node wheel here")
    result = _big_run(node)
    assert result.status == "ok" and result.detail == ""
    for x, outcome in zip(BIG_INPUTS, result.tests, strict=True):
        assert outcome.output == str(_big_output(x))
        counts = outcome.opcodes
        assert counts is not None
        taken = sum(x % (i + 2) == 0 for i in range(1000))
        assert counts["TestEqualStrict"] == 1000 and counts["Return"] == 1
        assert counts["JumpIfFalse"] == 1000 and counts["Jump"] == taken


def test_a_function_past_the_bound_keeps_its_outcomes_and_says_why_it_has_no_counts(
        node_sandboxed: object, monkeypatch: pytest.MonkeyPatch) -> None:
    static = static_counts_js([BIG])[0]
    assert static is not None and sum(static.values()) > 10000
    monkeypatch.setattr(node_trace, "MAX_TRACED_BYTECODES", 10000)
    result = _big_run()
    assert result.status == "ok"
    assert [o.output for o in result.tests] == [str(_big_output(x)) for x in BIG_INPUTS]
    assert all(o.opcodes is None and o.opcode_total == 0 for o in result.tests)
    assert result.detail.startswith("executed bytecodes not counted: `big` has ")
    assert result.detail.endswith("bytecodes, past the 10,000 a traced run counts")
    assert static_counts_js([BIG])[0] == static  # the static counts stay


def test_a_printout_past_what_a_traced_run_reads_keeps_the_outcomes(
        node_sandboxed: object, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(node_sandbox, "COUNT_OUTPUT_BYTES", 1 << 20)  # the printout: ~1.2 MiB
    result = _big_run()
    assert result.status == "ok"
    assert [o.output for o in result.tests] == [str(_big_output(x)) for x in BIG_INPUTS]
    assert all(o.opcodes is None for o in result.tests)
    assert result.detail == node_trace.PRINTOUT_TOO_LARGE.format(limit=1)


@pytest.mark.parametrize("which", ["system", "wheel"])
@pytest.mark.parametrize("case", FIXTURE["approximate"], ids=lambda c: c["name"])
def test_counts_no_counter_pins_down_are_flagged_approximate(
        node_sandboxed: object, case: dict[str, Any], which: str) -> None:
    """An exception an operation raised, an array destructuring's steps: given, and said
    to be approximate, on every Node."""
    node = node_sandbox.wheel_node() if which == "wheel" else None
    if which == "wheel" and node is None:
        pytest.skip("no pinned Node wheel here")
    test = TestCase("call", args=tuple(case["args"]), name=case["name"])
    result = node_sandbox.run_node_candidate(case["code"], [test], case["entry"], LIMITS,
                                             trace=True, node=node)
    outcome = result.tests[0]
    assert json.loads(outcome.output or "null") == case["output"], case["why"]
    assert outcome.opcodes is not None  # given, and said to be approximate
    assert result.detail == APPROXIMATE.format(n=1, of=1)


def test_counts_flow_balance_pins_down_are_solved_without_the_flow_solve(
        monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = [_block("IncBlockCounter", succ=(1,), counter=True),
              _block("TestLessThan", "JumpIfFalse", succ=(2, 3)),
              _block("IncBlockCounter", "Add", "JumpLoop", succ=(1,), counter=True),
              _block("IncBlockCounter", "Return", exits=True, counter=True)]
    graph = Graph(blocks, 0, [(10, 2), (20, 3)])
    ranges = [(0, 30, 1), (5, 15, 10), (15, 30, 1)]
    monkeypatch.setattr(node_trace, "_least", lambda *a: pytest.fail("flow solve used"))
    solved = solve(graph, ranges)
    assert solved.counts == [1, 11, 10, 1] and solved.exact
    monkeypatch.undo()
    # counters no flow balance meets: the flow solve, flagged
    solved = solve(graph, [(0, 30, 1), (5, 15, 10), (15, 30, 5)])
    assert solved.counts[1] >= 11 and not solved.exact


def _block(*names: str, succ: tuple[int, ...] = (), exits: bool = False,
           counter: bool = False) -> Block:
    code = [Bytecode(i, n, None, "") for i, n in enumerate(names)]
    return Block(code, list(succ), exits=exits, counter=counter)


def test_flow_balance_gives_the_loop_header_its_count() -> None:
    # entry -> header <-> body (counted 10 times), header -> exit (counted once)
    blocks = [_block("IncBlockCounter", succ=(1,), counter=True),
              _block("TestLessThan", "JumpIfFalse", succ=(2, 3)),
              _block("IncBlockCounter", "Add", "JumpLoop", succ=(1,), counter=True),
              _block("IncBlockCounter", "Return", exits=True, counter=True)]
    assert solve_counts(blocks, {0: 1, 2: 10, 3: 1}, 1) == [1, 11, 10, 1]
    # counters that no flow can meet (an operation threw mid-block): still an answer
    assert solve_counts(blocks, {0: 1, 2: 10, 3: 5}, 1)[1] >= 11
    assert solve_counts(blocks, {}, 0) == [0, 0, 0, 0]


def test_malformed_coverage_gives_no_counts() -> None:
    assert read_coverage([["f", [[0, 10, 1], [2, 5, 3]]]]) == [("f", [(0, 10, 1), (2, 5, 3)])]
    bad: Any
    for bad in (None, {}, [["f", []]], [["f", [[0, 10]]]], [["f", [[0, 10, -1]]]],
                [[1, [[0, 1, 1]]]], [["f", [[0, 10, True]]]], [["f", [[0, 1, 2 ** 60]]]],
                [["f", [[0, 1, 1]]]] * 5000):
        assert read_coverage(bad) is None


def test_a_header_ending_with_a_literals_first_line_is_a_broken_one() -> None:
    head = "[generated bytecode for function: "
    forged = head + "x (0x1 <SharedFunctionInfo x>)]\n" + FORGED + "\n"
    assert broken_by(forged, {"x (0x1 <SharedFunctionInfo x>)]", ""})
    assert not broken_by(forged, {"Hello", ""})  # an honest "Hello\nWorld" costs nothing
    assert not broken_by(FORGED + "\nx (0x1 <SharedFunctionInfo x>)]", {"x>)]"})


def test_past_the_returns_one_input_notes_its_counts_are_flagged_approximate(
        node_sandboxed: object) -> None:
    """Each call of a generator's ``return`` is noted (about 0.3 ms); an input making more
    than the harness notes (1,000) keeps its outcome, its counts flagged approximate."""
    code = ("function* upTo(n) { for (let i = 0; i < n; i++) yield i; }\n"
            "function f(k) { let s = 0; for (let j = 0; j < k; j++) {"
            " for (const x of upTo(5)) { if (x > 1) break; s += x; } } return s; }")
    tests = [TestCase("call", args=(k,), name=str(k)) for k in (1000, 1001)]
    result = node_sandbox.run_node_candidate(code, tests, "f", LIMITS, trace=True)
    assert [json.loads(o.output or "null") for o in result.tests] == [1000, 1001]
    assert result.tests[0].opcodes is not None and result.tests[0].opcodes["CallProperty0"] == 4000
    assert result.detail == APPROXIMATE.format(n=1, of=2)
