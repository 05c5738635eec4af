"""A method's drawn calls again on an instance its class's own fillers filled (``push``),
read without running, then run in the real Node sandbox in its module."""

from __future__ import annotations

from pathlib import Path

from codequorum.behaviour.dynamic_analysis import DynamicOptions, run_dynamic
from codequorum.behaviour.runtimes.js_fill import fillers, stateful
from codequorum.behaviour.runtimes.js_inputs import collect_js_inputs
from codequorum.behaviour.runtimes.ts_parameters import class_type_parameters
from codequorum.core.model import Receiver, VersionSet
from codequorum.ingest.js_module_view import js_module_view

STACK = """export class Stack<T> {
  private items: T[] = [];
  push(x: T): void { this.items.push(x); }
  clear(): void { this.items = []; }
  get size(): number { return this.items.length; }
  peekOr(fallback: T): T {
    return this.items.length ? this.items[this.items.length - 1] : fallback;
  }
}
"""
BOTTOM = "peekOr(fallback: T): T { return this.items[0] ?? fallback; }"
TOP = "peekOr(fallback: T): T { return this.items.at(-1) ?? fallback; }"


def _filled(text: str, entry: str, start: int = 1) -> Receiver | None:
    found = fillers([text], entry, {})
    return found.receiver(start) if found is not None else None


def test_fillers_take_values_and_give_nothing_back() -> None:
    got = _filled(STACK, "Stack.peekOr")
    assert got is not None and got.name == "Stack" and got.args == ()
    # clear() takes nothing and the getter gives a value: neither fills
    assert got.steps == (("push", (1,)), ("push", (-3,)), ("push", (7,)))
    again = _filled(STACK, "Stack.peekOr", start=2)
    assert again is not None and again.steps[0] == ("push", (-3,))
    js = ("class Bag {\n  constructor(limit = 3) { this.items = new Map(); }\n"
          "  add(word) { this.items.set(word, (this.items.get(word) ?? 0) + 1); }\n"
          "  has(word) { return this.items.has(word); }\n"
          "  count(word) { return this.items.get(word) ?? 0; }\n}")
    bag = _filled(js, "Bag.count")
    assert bag is not None and [s[0] for s in bag.steps] == ["add"] * 3
    # a constructor that needs a value, a function, a class without fillers: none
    assert _filled(js.replace("limit = 3", "limit"), "Bag.count") is None
    assert _filled("function f(x) { return x; }", "f") is None
    assert _filled("class P { get(k) { return k; } }", "P.get") is None
    # a method of another class whose name ends alike is not this one's
    assert _filled("class MyStack { push(x: number): void {} }\n"
                   "class Stack { peek() { return 1; } }", "Stack.peek") is None
    assert class_type_parameters(STACK, "Stack") == {"T": ""}
    assert class_type_parameters("class N extends M<string> {}", "N") == {}
    assert class_type_parameters("class M<K extends string, V = number> {}", "M") == {
        "K": "string", "V": "number"}


def test_a_methods_drawn_calls_run_again_on_filled_instances() -> None:
    plan = collect_js_inputs(VersionSet.from_codes("t", [STACK], language="typescript",
                                                  entry_point="Stack.peekOr"), scaling=False)
    labels = [c.label for c in plan.cases]
    assert labels[:3] == ["peekOr(0)", "stack.peekOr(0) after new Stack(), stack.push(1),"
                          " stack.push(-3), stack.push(7)", "peekOr(1)"]
    assert [c.origin for c in plan.cases[:2]] == ["hint", "hint"]  # T drawn as a number
    filled = [c for c in plan.cases if c.test.receiver is not None]
    assert len(filled) == 6
    assert len({c.test.receiver.steps for c in filled if c.test.receiver}) == 6


def test_versions_that_read_the_wrong_end_part_on_a_filled_stack(
        node_sandboxed: object, tmp_path: Path) -> None:
    path = tmp_path / "stack.ts"
    path.write_text(STACK)
    ss = VersionSet.from_codes("t", [TOP, BOTTOM], language="typescript",
                               entry_point="Stack.peekOr")
    ss.module = js_module_view(STACK, path, tmp_path).context("Stack.peekOr", "method")
    report = run_dynamic(ss, DynamicOptions())
    assert report.rules.module_problem is None
    labels = [i["label"] for i in report.inputs]
    parted = labels.index("stack.peekOr(0) after new Stack(), stack.push(1), stack.push(-3),"
                          " stack.push(7)")
    def value(row: object, k: int) -> str | None:
        got = row[k] if isinstance(row, list) else None
        return got[0] if got else None

    assert [value(row, parted) for row in report.outcomes] == ["7", "1"]
    assert [value(row, 0) for row in report.outcomes] == ["0", "0"]  # bare: the fallback
    assert report.output_clusters == [[0], [1]]


def test_a_method_named_alone_in_its_module_is_filled_through_its_class(tmp_path: Path) -> None:
    """The editor, ``check``, the agents' tool and ``export`` name a method alone
    (``peekOr``) with its module's owner: the class, its type parameter and its fillers
    are its own file's."""
    path = tmp_path / "stack.ts"
    path.write_text(STACK)
    ss = VersionSet.from_codes("t", [TOP, BOTTOM], language="typescript", entry_point="peekOr")
    ss.module = js_module_view(STACK, path, tmp_path).context("Stack.peekOr", "method")
    plan = collect_js_inputs(ss, scaling=False)
    assert plan.cases[0].origin == "hint"  # T drawn as a number, not guessed from use
    assert plan.cases[1].label == ("stack.peekOr(0) after new Stack(), stack.push(1),"
                                   " stack.push(-3), stack.push(7)")


RANGE = """export class Range {
  constructor(private lo: number, private hi: number) {}
  contains(x: number): boolean { return this.lo <= x && x <= this.hi; }
}
"""


def test_a_class_whose_constructor_needs_values_is_made_with_drawn_ones() -> None:
    made = _filled(RANGE, "Range.contains")
    assert made is not None and made.args == (1, -3) and made.steps == ()
    assert (_filled(RANGE, "Range.contains", start=3) or made).args == (7, 42)
    plan = collect_js_inputs(VersionSet.from_codes("t", [RANGE], language="typescript",
                                                  entry_point="Range.contains"),
                             scaling=False)
    assert plan.cases[1].label == "range.contains(0) after new Range(1, -3)"
    # untyped, the constructor's values are not known: not made
    assert _filled("class R { constructor(lo) { this.lo = lo; } has(x) { return 1; } }",
                   "R.has") is None


COUNTER = """export class Counter {
  #count = 0;
  /** Adds `by` (1 by default) and gives the new count. */
  increment(by: number = 1): number {
    this.#count += by;
    return this.#count;
  }
  peek(): number {
    return this.#count;
  }
}
"""
#: Stores one more, not `by` more: the same as the right one on a fresh counter.
OFF_BY_BY = """increment(by: number = 1): number {
    return this.#count++ + by;
  }"""


def test_a_method_that_changes_its_instance_is_drawn_again_after_the_same_call() -> None:
    """``this.#count += by`` changes the instance: each of the first draws runs again on a
    counter the same call was made on; a method that only reads it does not, nor one whose
    class needs values to be made, nor a write inside a nested function."""
    plan = collect_js_inputs(VersionSet.from_codes("t", [COUNTER], language="typescript",
                                                  entry_point="Counter.increment"),
                             scaling=False)
    labels = [c.label for c in plan.cases]
    assert labels[:4] == ["increment()", "counter.increment() after new Counter(), "
                          "counter.increment()", "increment(7)", "counter.increment(7) after "
                          "new Counter(), counter.increment(7)"]
    assert plan.cases[3].test.receiver == Receiver("Counter", steps=(("increment", (7,)),))
    assert stateful([COUNTER], "Counter.increment") == "Counter"
    assert stateful([COUNTER], "Counter.peek") is None
    assert stateful([COUNTER], "increment") is None
    assert stateful([COUNTER.replace("#count = 0;", "#count = 0;\n  constructor(n: number) "
                                     "{ this.#count = n; }")], "Counter.increment") is None
    nested = COUNTER.replace("this.#count += by;", "[1].forEach(() => { this.#count += by; });")
    assert stateful([nested], "Counter.increment") == "Counter"  # an arrow is this' own
    inner = COUNTER.replace("this.#count += by;", "function f(this: any) { this.n = by; }")
    assert stateful([inner], "Counter.increment") is None


def test_a_version_that_stores_the_wrong_count_parts_after_one_call(
        node_sandboxed: object, tmp_path: Path) -> None:
    right = COUNTER[COUNTER.index("increment("):COUNTER.index("  peek")].rstrip()
    path = tmp_path / "counter.ts"
    path.write_text(COUNTER)
    ss = VersionSet.from_codes("t", [right, OFF_BY_BY], language="typescript",
                               entry_point="Counter.increment")
    ss.module = js_module_view(COUNTER, path, tmp_path).context("Counter.increment", "method")
    report = run_dynamic(ss, DynamicOptions())
    labels = [i["label"] for i in report.inputs]
    again = labels.index("counter.increment(7) after new Counter(), counter.increment(7)")
    assert [report.outcomes[k][again] for k in (0, 1)] == [("14", None, None),
                                                          ("8", None, None)]
    assert report.output_clusters == [[0], [1]]
