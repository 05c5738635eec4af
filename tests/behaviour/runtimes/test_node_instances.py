"""A method's versions run, in the real Node sandbox, on the instance its examples build:
``const s = new Stack()``, ``s.push(1);`` replayed before ``s.peek() // => 2``, in its
module or alone; the version under test is the method the setup calls too."""

from __future__ import annotations

from pathlib import Path

from codequorum.behaviour.dynamic_analysis import DynamicOptions, DynamicReport, run_dynamic
from codequorum.core.model import VersionSet
from codequorum.ingest.js_module_view import js_module_view

STACK = """/**
 * A last-in first-out stack.
 * @example
 * const s = new Stack<number>();
 * s.push(1);
 * s.push(2);
 * s.peek(); // => 2
 */
export class Stack<T> {
  private items: T[] = [];
  push(x: T): void { this.items.push(x); }
  peek(): T | undefined { return this.items[this.items.length - 1]; }
}
"""
PEEK = "peek(): T | undefined { return this.items[this.items.length - 1]; }"
PEEK_BOTTOM = "peek(): T | undefined { return this.items[0]; }"
LABEL = "s.peek() after new Stack(), s.push(1), s.push(2)"


def _in_module(tmp_path: Path, name: str, text: str, qualified: str, versions: list[str],
               language: str, prompt: str | None = None) -> DynamicReport:
    path = tmp_path / name
    path.write_text(text)
    ss = VersionSet.from_codes("t", versions, language=language, entry_point=qualified,
                               prompt=prompt)
    ss.module = js_module_view(text, path, tmp_path).context(qualified, "method")
    return run_dynamic(ss, DynamicOptions())


def test_a_method_without_examples_runs_on_the_instance_its_class_example_builds(
        node_sandboxed: object, tmp_path: Path) -> None:
    report = _in_module(tmp_path, "stack.ts", STACK, "Stack.peek", [PEEK, PEEK_BOTTOM],
                        "typescript")
    assert report.rules.module_problem is None
    assert report.inputs[0]["label"] == LABEL
    assert report.inputs_source[0] == "doctest"
    assert [c.pass_rate for c in report.candidates] == [1.0, 0.0]
    assert report.output_clusters == [[0], [1]]
    assert [row[0][0] if row[0] else None for row in report.outcomes] == ["2", "1"]


def test_the_setup_calls_run_the_version_under_test(node_sandboxed: object,
                                                    tmp_path: Path) -> None:
    """Versions of ``push``: the example shows them through ``s.peek()``."""
    push_front = "push(x: T): void { this.items.unshift(x); }"
    report = _in_module(tmp_path, "stack.ts", STACK, "Stack.push",
                        ["push(x: T): void { this.items.push(x); }", push_front], "typescript")
    labels = [i["label"] for i in report.inputs]
    assert labels[:3] == ["s.push(1) after new Stack()", "s.push(2) after new Stack(), s.push(1)",
                          LABEL]
    assert [c.pass_rate for c in report.candidates] == [1.0, 0.0]


COUNTER = """class Counter {
  constructor(start) { this.n = start; }
  add(k) { this.n += k; return this; }

  /**
   * The count so far.
   * @example
   * const c = new Counter(10);
   * c.add(2);
   * c.add(3);
   * c.total(); // => 15
   */
  total() { return this.n; }
}
module.exports = Counter;
"""
TOTAL = COUNTER[COUNTER.index("  /**"):COUNTER.index("\n}\nmodule")]


def test_a_plain_javascript_method_runs_on_the_instance_its_own_example_builds(
        node_sandboxed: object, tmp_path: Path) -> None:
    report = _in_module(tmp_path, "counter.js", COUNTER, "Counter.total",
                        ["total() { return this.n; }", "total() { return this.n - 10; }"],
                        "javascript", prompt=TOTAL)
    assert report.inputs[0]["label"] == "c.total() after new Counter(10), c.add(2), c.add(3)"
    assert [c.pass_rate for c in report.candidates] == [1.0, 0.0]


def test_an_example_with_a_setup_of_no_literal_form_is_not_used(node_sandboxed: object,
                                                                tmp_path: Path) -> None:
    text = STACK.replace("s.push(2);", "s.push(two);")
    report = _in_module(tmp_path, "stack.ts", text, "Stack.peek", [PEEK, PEEK_BOTTOM],
                        "typescript")
    # the bare instance, where both versions give undefined, and one that ``push`` filled
    # (js_fill.py), where they part
    assert [i["label"] for i in report.inputs] == [
        "peek()", "stack.peek() after new Stack(), stack.push(1), stack.push(-3), stack.push(7)"]
    assert [[o[0] if o else None for o in row] for row in report.outcomes] == [
        ['{"$":"undefined"}', "7"], ['{"$":"undefined"}', "1"]]
    assert report.inputs_source == ["hypothesis"]
    assert [c.pass_basis for c in report.candidates] == ["inputs run without an exception"] * 2


def test_whole_class_versions_run_alone_on_the_instance_their_example_builds(
        node_sandboxed: object) -> None:
    right = STACK
    wrong = STACK.replace("this.items[this.items.length - 1]", "this.items[0]")
    ss = VersionSet.from_codes("t", [right, wrong], language="typescript",
                               entry_point="Stack.peek", prompt=STACK[:STACK.index("export")])
    report = run_dynamic(ss, DynamicOptions())
    assert report.inputs[0]["label"] == LABEL
    assert [c.pass_rate for c in report.candidates] == [1.0, 0.0]
    assert report.output_clusters == [[0], [1]]


BAG = """/**
 * @example
 * const b = new Bag();
 * b.add(1);
 * b.add(2);
 * b.has(2); // => true
 */
export class Bag {
  private items: number[] = [];
  add(x: number): void { this.items.push(x); }
  has(x: number): boolean { return this.items.includes(x); }
}
"""


def test_drawn_inputs_of_a_method_run_on_the_instance_an_example_builds(
        tmp_path: Path, node_sandboxed: object) -> None:
    """``has(x)`` drawn for every number asks a bag that holds 1 and 2: a version that
    misses the first item (``indexOf(x) > 0``) parts from the right one on ``has(1)``, which
    a bare bag (holding nothing) never shows."""
    right = "has(x: number): boolean { return this.items.includes(x); }"
    wrong = "has(x: number): boolean { return this.items.indexOf(x) > 0; }"
    report = _in_module(tmp_path, "bag.ts", BAG, "Bag.has", [right, wrong], "typescript")
    labels = [i["label"] for i in report.inputs]
    assert "b.has(1) after new Bag(), b.add(1), b.add(2)" in labels
    assert report.output_clusters == [[0], [1]]
    assert report.rules.divergence is not None


BOX = """export class Box {
  constructor(private side: number) {}
  /**
   * The box's volume.
   * @example new Box(2).volume() // => 8
   */
  volume(): number { return this.side ** 3; }
}
"""


def test_an_example_calling_the_method_on_an_instance_it_makes_runs_on_that_instance(
        node_sandboxed: object, tmp_path: Path) -> None:
    """``new Box(2).volume() // => 8``: made with its argument, not bare (NaN)."""
    report = _in_module(tmp_path, "box.ts", BOX, "Box.volume",
                        ["volume(): number { return this.side ** 3; }",
                         "volume(): number { return this.side * this.side; }"], "typescript",
                        prompt=BOX)
    assert report.inputs[0]["label"] == "new Box(2).volume()"
    assert report.inputs[0]["checked"] is True
    assert [row[0][0] if row[0] else None for row in report.outcomes] == ["8", "4"]
    assert [c.pass_rate for c in report.candidates] == [1.0, 0.0]


CHAINED_BAG = """export class Bag<T> {
  private items: T[] = [];
  add(item: T): this {
    this.items.push(item);
    return this;
  }
  *[Symbol.iterator](): Iterator<T> {
    yield* this.items;
  }
  /**
   * The distinct items, in the order first added.
   * @example new Bag<number>().add(3).add(1).add(3).distinct() // => [3, 1]
   */
  distinct(): T[] {
    return [...new Set(this)];
  }
}
"""


def test_an_example_chaining_calls_runs_each_on_what_the_one_before_returned(
        node_sandboxed: object, tmp_path: Path) -> None:
    """A fluent ``add`` returns its instance: the example's chain builds the bag the last
    call reads (through the class's ``[Symbol.iterator]``). A version of ``add`` that
    returns nothing breaks the chain as it would break the example's own line."""
    distinct = CHAINED_BAG[CHAINED_BAG.index("  distinct()"):CHAINED_BAG.rindex("}")]
    sorted_ = distinct.replace("[...new Set(this)]", "[...new Set(this)].sort()")
    report = _in_module(tmp_path, "bag.ts", CHAINED_BAG, "Bag.distinct", [distinct, sorted_],
                        "typescript", prompt=CHAINED_BAG)
    assert report.inputs[0]["label"] == "new Bag().add(3).add(1).add(3).distinct()"
    assert [row[0][0] if row[0] else None for row in report.outcomes] == ["[3,1]", "[1,3]"]
    assert [c.pass_rate for c in report.candidates] == [1.0, 0.0]
    add = "  add(item: T): this {\n    this.items.push(item);\n    return this;\n  }\n"
    report = _in_module(tmp_path, "bag.ts", CHAINED_BAG, "Bag.add",
                        [add, add.replace("    return this;\n", "")], "typescript",
                        prompt=CHAINED_BAG)
    assert report.inputs[0]["label"] == "new Bag().add(3).add(1).add(3).distinct()"
    assert report.outcomes[0][0] == ("[3,1]", None, None)
    assert report.outcomes[1][0] == (
        None, "TypeError", "Cannot read properties of undefined (reading 'add')")


SCALER = """export class Scaler {
  constructor(private factor: number) {}
  /**
   * Scales by the instance's factor.
   * @example new Scaler(3).scale(2) // => 6
   */
  scale = (n: number): number => n * this.factor;
}
"""
SCALE = "scale = (n: number): number => n * this.factor;"
SCALE_SQUARED = "scale = (n: number): number => n * this.factor * this.factor;"


def test_a_class_fields_arrow_function_runs_on_the_instance_in_its_module(
        node_sandboxed: object, tmp_path: Path) -> None:
    """A field holding an arrow is on no prototype: it is read from the instance each call
    makes (``new Scaler(3)``), the version's own arrow in the field's place."""
    report = _in_module(tmp_path, "scaler.ts", SCALER, "Scaler.scale", [SCALE, SCALE_SQUARED],
                        "typescript", prompt=SCALER)
    assert report.rules.module_problem is None
    assert report.inputs[0]["label"] == "new Scaler(3).scale(2)"
    assert [row[0][0] if row[0] else None for row in report.outcomes] == ["6", "18"]
    assert [c.pass_rate for c in report.candidates] == [1.0, 0.0]


def test_a_class_fields_arrow_function_runs_alone(
        node_sandboxed: object) -> None:
    """Without its module the field's versions run alone too (as the function they
    assign), and agree."""
    ss = VersionSet.from_codes("t", ["scale = (n: number): number => n * 2;",
                                     "scale = (n: number): number => n + n;"],
                               language="typescript", entry_point="Scaler.scale")
    report = run_dynamic(ss, DynamicOptions(hypothesis_examples=3, scaling=False))
    assert report.inputs and all(row and row[0] for row in report.outcomes)
    assert report.output_clusters == [[0, 1]]


LIMITER = """export class Limiter {
  constructor(private max: number = 10) {}
  #clamp(n: number): number { return Math.min(n, this.max); }
  static #sign(n: number): number { return n < 0 ? -1 : 1; }
  take(n: number): number { return this.#clamp(n) * Limiter.#sign(n); }
}
"""


def _outputs(report: DynamicReport) -> dict[str, list[str | None]]:
    """Per input every version answered, the values they returned."""
    return {i["label"]: [o[0] for o in column if o is not None]
            for i, column in zip(report.inputs, zip(*report.outcomes, strict=True), strict=True)
            if all(column)}


def test_a_private_method_runs_on_the_instance_in_its_module_and_alone(
        node_sandboxed: object, tmp_path: Path) -> None:
    """``#clamp`` is reached from outside its class only through a caller a static block
    after it sets; its versions run there, on an instance (a static one on its class)."""
    clamp = "#clamp(n: number): number { return Math.min(n, this.max); }"
    floor = "#clamp(n: number): number { return Math.max(Math.min(n, this.max), 0); }"
    report = _in_module(tmp_path, "limiter.ts", LIMITER, "Limiter.#clamp", [clamp, floor],
                        "typescript")
    assert report.rules.module_problem is None
    outputs = _outputs(report)
    assert outputs["#clamp(-3)"] == ["-3", "0"] and outputs["#clamp(42)"] == ["10", "10"]
    sign = ["static #sign(n: number): number { return n < 0 ? -1 : 1; }",
            "static #sign(n: number): number { return Math.sign(n); }"]
    report = _in_module(tmp_path, "limiter.ts", LIMITER, "Limiter.#sign", sign, "typescript")
    outputs = _outputs(report)
    assert outputs["#sign(0)"] == ["1", "0"]
    alone = run_dynamic(VersionSet.from_codes(
        "t", [clamp.replace("this.max", "10"), floor.replace("this.max", "10")],
        language="typescript", entry_point="Limiter.#clamp"),
        DynamicOptions(hypothesis_examples=3, scaling=False))
    assert alone.output_clusters == [[0], [1]]
