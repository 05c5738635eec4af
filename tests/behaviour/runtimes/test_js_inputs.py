"""Inputs of JavaScript functions: examples in comments, TypeScript types, literals."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from codequorum.behaviour.runtimes.js_inputs import (
    MAX_JOINED_LINES,
    code_examples,
    collect_js_inputs,
    example_call,
    examples,
    from_python,
    instance_examples,
    scaled_value,
    scaling_args,
)
from codequorum.behaviour.runtimes.js_instances import MAX_STEPS
from codequorum.behaviour.runtimes.js_usage import guessed_types
from codequorum.behaviour.runtimes.ts_draws import repeated, repeats, type_values
from codequorum.behaviour.runtimes.ts_parameters import optional_types, parameter_types
from codequorum.core.limits import MAX_EXAMPLE_LINE_CHARS
from codequorum.core.model import Receiver, VersionSet
from codequorum.generate.input_language import PYTHON_INPUTS, InputLanguage


def test_example_lines_give_literal_arguments_and_expected_values() -> None:
    assert example_call("add(1, -2) // => -1", "add") == ((1, -2), -1, True)
    assert example_call("add([1, , 3], {b: 2, a: NaN}) === 0", "add") == (
        ([1, 3], {"$": "object", "v": [["a", {"$": "number", "v": "NaN"}], ["b", 2]]}), 0, True)
    assert example_call("add({}) // => {}", "add") == (({"$": "object", "v": []},),
                                                       {"$": "object", "v": []}, True)
    assert example_call("add(x, 1)", "add") is None
    assert example_call("other(1)", "add") is None


def test_jsdoc_and_doctest_style_comments_are_read() -> None:
    text = ("/**\n * @example f(2) // => 4\n */\n// >>> f(3)\n// 9\n"
            "function f(x) { return x * x; }")
    assert examples(text, "f") == [((2,), 4, True), ((3,), 9, True)]


def test_a_tagged_template_example_gives_its_strings_array_and_values() -> None:
    text = "/**\n * @example html`<b>${1}</b>` // => '<b>1</b>'\n * @example html`${x}`\n */"
    strings = {"$": "template", "v": ["<b>", "</b>"], "raw": ["<b>", "</b>"]}
    assert examples(text, "html") == [((strings, 1), "<b>1</b>", True)]


def test_typescript_parameter_types_draw_values() -> None:
    code = "function f(xs: number[], s: string): number { return 1; }"
    assert parameter_types(code, "f") == ["number[]", "string"]
    plan = collect_js_inputs(VersionSet.from_codes("t", [code], language="typescript",
                                                  entry_point="f"))
    assert plan.sources == ["hypothesis", "scaling"] and len(plan.cases) == 15
    # each of the string's nine samples drawn once
    assert [c.test.args[1] for c in plan.cases[:9]] == [
        "a", "hello", "Hello World", "abcba", "x y", "  mIxEd  CASE, 42! ", "naïve Straße",
        "42", ""]
    # one draw of equal items, two with the array's and the string's first half repeated
    assert [c.test.args for c in plan.cases[9:12]] == [
        ([7, 7, 7, 7], "Hello World"), ([-3, 7, 42, -3], "Hello World Hello"),
        ([7, 42, 2.5, 0, 7, 42], "abcba abcba")]
    assert all(isinstance(c.test.args[0], list) for c in plan.cases)
    # the scaling series, last: the array and the string scaled together, smallest first
    series = [c for c in plan.cases if c.source == "scaling"]
    assert [c.size for c in series] == [8, 64, 512]
    assert [(len(c.test.args[0]), len(c.test.args[1])) for c in series] == [
        (8, 8), (64, 64), (512, 512)]
    assert all(not c.graded for c in series)
    again = collect_js_inputs(VersionSet.from_codes("t", [code], language="typescript",
                                                   entry_point="f"))
    assert [c.test.args for c in again.cases] == [c.test.args for c in plan.cases]


def test_a_number_scales_only_without_an_array_and_others_keep_an_examples_values() -> None:
    assert scaling_args(["number", "boolean"], (5, False), [8, 64]) == [
        (8, (8, False)), (64, (64, False))]
    assert scaling_args(["number[]", "number"], (None, 7), [8])[0][1][1] == 7
    assert scaling_args(["boolean"], None, [8]) == []
    assert scaling_args(["Promise<number>", "string"], None, [8]) == []
    assert scaled_value("string", 3) == scaled_value("string", 3) and len(
        scaled_value("string", 3)) == 3
    off = collect_js_inputs(VersionSet.from_codes("t", [
        "function f(xs: number[]): number { return 1; }"], language="typescript",
        entry_point="f"), scaling=False)
    assert "scaling" not in off.sources


def test_prompt_examples_are_graded_and_the_models_inputs_come_last() -> None:
    prompt = "// >>> f(2)\n// 4\nfunction f(x) {}"
    ss = VersionSet.from_codes("t", ["function f(x) { return x * x; }"], language="javascript",
                              entry_point="f", prompt=prompt)
    plan = collect_js_inputs(ss, scaling=False)
    assert [(c.source, c.graded, c.test.expected) for c in plan.cases][:2] == [
        ("doctest", True, 4), ("hypothesis", False, None)]  # drawn of the type 2 shows
    assert [c.test.args for c in plan.cases][1:4] == [(0,), (1,), (-3,)]
    alone = collect_js_inputs(ss, scaling=False, use_hypothesis=False)
    assert [(c.source, c.graded, c.test.expected) for c in alone.cases] == [
        ("doctest", True, 4)]
    bare = VersionSet.from_codes("t", ["function f(x) { return x; }"], language="javascript",
                                entry_point="f")

    def proposer(source: str, entry: str, arity: int, *, language: InputLanguage = PYTHON_INPUTS
                 ) -> tuple[list[tuple[Any, ...]], list[str]]:
        return [(1.5,), ({"a": [1]},)], []

    asked = collect_js_inputs(bare, proposer=proposer, scaling=False)
    assert [c.test.args for c in asked.cases] == [(1.5,), ({"$": "object", "v": [["a", [1]]]},)]
    assert from_python(float("nan")) == {"$": "number", "v": "NaN"}


def test_untyped_parameters_are_guessed_from_their_use() -> None:
    code = ("function f(xs, s, n) { let t = 0; for (const x of xs) t += x;"
            " return s.toUpperCase().length + t * n; }")
    assert guessed_types(code, "f") == ["number[]", "string", "number"]
    plan = collect_js_inputs(VersionSet.from_codes("t", [code], language="javascript",
                                                  entry_point="f"))
    assert plan.sources == ["hypothesis", "scaling"] and len(plan.cases) == 12
    assert plan.cases[-1].test.args[2] == plan.cases[0].test.args[2]  # n kept, not scaled
    assert "parameter types guessed from their use: number[], string, number" in plan.notes
    assert guessed_types("function f({a}) { return a; }", "f") is None
    assert [c.origin for c in plan.cases][:8] == ["usage"] * 8


def test_a_parameter_the_function_calls_is_guessed_a_function() -> None:
    code = "const lowerFirst = (input, lower) => input.replace(/^./, m => lower(m));"
    assert guessed_types(code, "lowerFirst") == ["string", "Function"]
    plan = collect_js_inputs(VersionSet.from_codes("t", [code], language="javascript",
                                                  entry_point="lowerFirst"))
    assert plan.cases[0].test.args[1] == {"$": "source", "v": "(...args) => args[0]"}


def test_examples_kept_in_a_declaration_or_printed_with_the_value_on_the_next_line() -> None:
    """date-fns keeps each example's value (``const result = f(2)`` then ``//=> 120``),
    lodash shows it on the next line (``// => [...]``), a README prints it."""
    date_fns = ("/**\n * @example\n * // Convert 2 hours to minutes:\n"
                " * const result = hoursToMinutes(2)\n * //=> 120\n */")
    assert examples(date_fns, "hoursToMinutes") == [((2,), 120, True)]
    lodash = ("/**\n * @example\n *\n * _.chunk(['a', 'b', 'c', 'd'], 2);\n"
              " * // => [['a', 'b'], ['c', 'd']]\n */")
    assert examples(lodash, "chunk") == [((["a", "b", "c", "d"], 2), [["a", "b"], ["c", "d"]],
                                          True)]
    assert examples("// console.log(ms(60000)) // \"1m\"", "ms") == [((60000,), "1m", True)]
    assert examples("// let r = other(2)\n// //=> 3", "ms") == []


def test_the_comment_above_a_function_grades_its_examples_with_markers_taken_off() -> None:
    """The editor and ``check`` pass the comment without its markers: ``//=> 120`` is
    then ``=> 120``, still the example's value, and graded."""
    prompt = "@example\n// Convert 2 hours to minutes:\nconst result = hoursToMinutes(2)\n=> 120"
    code = "function hoursToMinutes(h) { return Math.trunc(h * 60); }"
    vs = VersionSet.from_codes("t", [code], language="javascript", entry_point="hoursToMinutes")
    vs.prompt = prompt
    plan = collect_js_inputs(vs, scaling=False)
    assert [(c.test.args, c.test.expected, c.graded) for c in plan.cases][:1] == [
        ((2,), 120, True)]


def test_unions_optional_and_rest_parameters_still_draw_values() -> None:
    """ts-dedent's ``dedent(templ: TemplateStringsArray | string, ...values: unknown[])``
    and tiny-invariant's ``invariant(condition: any, message?: string | (() => string))``:
    a union draws from its members that can be drawn, optional and rest parameters are
    left to their defaults, ``any`` draws truthy and falsy values."""
    dedent = ("export function dedent(\n  templ: TemplateStringsArray | string,\n"
              "  ...values: unknown[]\n): string { return ''; }")
    assert parameter_types(dedent, "dedent") == ["TemplateStringsArray | string"]
    invariant = ("export default function invariant(condition: any,\n"
                 "  message?: string | (() => string)): asserts condition {}")
    assert parameter_types(invariant, "invariant") == ["any"]
    assert [type_values("'a' | 'b' | number", i) for i in range(4)] == ["a", "b", 0, "a"]
    plan = collect_js_inputs(VersionSet.from_codes("t", [invariant], language="typescript",
                                                   entry_point="invariant"), scaling=False)
    drawn = [c.test.args[0] for c in plan.cases]
    assert True in drawn and 0 in drawn and None in drawn


def test_node_repl_and_awaited_examples_are_calls() -> None:
    text = "/**\n * > median([3, 1, 2])\n * 2\n * @example await parse('1') // => 1\n */"
    assert examples(text, "median") == [(([3, 1, 2],), 2, True)]
    assert examples(text, "parse") == [(("1",), 1, True)]


def test_a_method_without_parameters_is_called_once_with_none() -> None:
    code = "class S {\n  #xs = [];\n  peek(): number | undefined { return this.#xs.at(-1); }\n}"
    assert parameter_types(code, "S.peek") == []
    plan = collect_js_inputs(VersionSet.from_codes("t", [code], language="typescript",
                                                   entry_point="S.peek"))
    assert [c.label for c in plan.cases] == ["peek()"]
    obj = "const u = {\n  cap(s) { return s.charAt(0).toUpperCase() + s.slice(1); },\n};"
    assert guessed_types(obj, "u.cap") == ["string"]


def test_a_one_line_jsdoc_example_keeps_its_expected_value() -> None:
    assert examples("/** @example b64('hi') // => 'aGk=' */", "b64") == [(("hi",), "aGk=", True)]


def test_an_arrow_an_example_passes_is_part_of_its_call() -> None:
    assert examples("@example applyTwice(x => x + 1, 3) // => 5", "applyTwice") == [
        (({"$": "source", "v": "x => x + 1"}, 3), 5, True)]
    assert examples("f(1) => 2", "f") == [((1,), 2, True)]


def test_dates_in_examples_and_date_parameters_are_inputs() -> None:
    """``isLeapYear(new Date(2012, 8, 1)) //=> true`` (date-fns' examples) is a graded
    example, and a ``Date`` parameter draws dates, shown as JavaScript writes them."""
    text = ("/**\n * @example\n * isLeapYear(new Date(2012, 8, 1))\n * //=> true\n */\n"
            "export function isLeapYear(date: Date): boolean { return true; }")
    sept = {"$": "date", "v": "2012-09-01T00:00:00.000Z"}
    assert examples(text, "isLeapYear") == [((sept,), True, True)]
    assert type_values("Date", 0) == {"$": "date", "v": "2024-02-29T00:00:00.000Z"}
    plan = collect_js_inputs(VersionSet.from_codes("t", [text], language="typescript",
                                                  entry_point="isLeapYear"))
    labels = [c.label for c in plan.cases]
    assert labels[0] == 'isLeapYear(new Date("2012-09-01T00:00:00.000Z"))'
    assert 'isLeapYear(new Date("1900-03-01T00:00:00.000Z"))' in labels
    assert all(c.test.args[0]["$"] == "date" for c in plan.cases)


def test_a_parameter_is_guessed_from_the_first_version_that_shows_its_use() -> None:
    """A version that only hands the parameter on (``Promise.all(values)``) says nothing of
    it; another iterates it: the array wins over the ``number`` nothing said. Spreading it,
    ``Array.from`` and ``Promise.all`` of it show an array too."""
    quiet = "async function sumAll(values) { const all = await Promise.all(values); return 0; }"
    loud = "async function sumAll(values) { let t = 0; for (const v of values) t += v; return t; }"
    plan = collect_js_inputs(VersionSet.from_codes("t", [quiet, loud], language="javascript",
                                                  entry_point="sumAll"))
    assert "parameter types guessed from their use: number[]" in plan.notes
    assert all(isinstance(c.test.args[0], list) for c in plan.cases)
    for body in ("return [...xs].length", "return Array.from(xs)", "return Promise.all(xs)",
                 "return Math.max(...xs)"):
        assert guessed_types(f"function f(xs) {{ {body}; }}", "f") == ["number[]"], body


def test_declared_types_draw_beside_an_example_in_the_functions_module_too() -> None:
    """In its module (``check``, the editor) as alone (``score``): one example lets the
    every-fourth-year version pass, the declared ``Date`` draws 1900 where it parts (as
    Python's annotations draw beside its doctests). Types an example's values only show
    draw too (date-fns's compiled ``isLeapYear``: only its example ran, and the versions
    agreed), unless the workspace's tests or callers call the function."""
    from codequorum.core.model import ModuleContext

    typed = ("/**\n * @example\n * isLeapYear(new Date(2012, 8, 1))\n * //=> true\n */\n"
             "export function isLeapYear(date: Date): boolean { return true; }\n")
    shown = "/**\n * @example\n * twice(2) // => 4\n */\nexport function twice(n) { return n; }\n"
    caller = (("use.ts", "import {twice} from './m';\ntwice(3);\n"),)
    for text, entry, callers, drawn in ((typed, "isLeapYear", (), True),
                                        (shown, "twice", (), True),
                                        (shown, "twice", caller, False)):
        module = ModuleContext(name="m", path="m.ts", qualified_name=entry, kind="function",
                               files=(("m.ts", text),), roots=(), callers=callers)
        version_set = VersionSet.from_codes("t", [text], language="typescript",
                                            entry_point=entry)
        plan = collect_js_inputs(replace(version_set, module=module))
        assert plan.sources[0] == "doctest"
        assert ("hypothesis" in plan.sources) is drawn, entry


def test_a_method_stored_alone_reads_its_parameter_types() -> None:
    """A method's versions are kept as the method alone (``max(): T | undefined {...}``):
    its parameters still draw inputs, and one without parameters is called once."""
    alone = "scale(by: number): number {\n  return this.items.length * by;\n}\n"
    assert parameter_types(alone, "Stack.scale") == ["number"]
    assert guessed_types("scale(by) {\n  return this.n * by;\n}\n", "Stack.scale") == ["number"]
    plan = collect_js_inputs(VersionSet.from_codes("t", [alone], language="typescript",
                                                   entry_point="scale"))
    assert plan.sources[0] == "hypothesis" and plan.cases[0].label == "scale(0)"
    bare = "max(): T | undefined {\n  return this.items.at(-1);\n}\n"
    plan = collect_js_inputs(VersionSet.from_codes("t", [bare], language="typescript",
                                                   entry_point="max"))
    assert [c.label for c in plan.cases] == ["max()"]


def test_optional_parameters_are_given_values_in_draws_of_their_own() -> None:
    """``n?: number`` is left out of the plain draws (a call may omit it) and given a value,
    a falsy one first, in two more: where ``n ? a : b`` and ``n === undefined`` part."""
    code = ('enum Color { Red = "red", Green = "green" }\n'
            "function label(c: Color, n?: number, ...rest: string[]): string { return c; }")
    assert parameter_types(code, "label") == ["Color"]
    assert parameter_types(code, "label", optional=True) == ["Color", "number"]
    assert optional_types(["", code], "label", ["Color"]) == ["number"]
    assert optional_types([code], "label", ["string"]) == []  # another function's types
    plan = collect_js_inputs(VersionSet.from_codes("t", [code], language="typescript",
                                                  entry_point="label"))
    # the draw of equal items (``n`` at a number's 7), then a falsy ``n`` first
    assert [c.label for c in plan.cases] == ['label("red")', 'label("green")',
                                            'label("green", 7)', 'label("green", 0)',
                                            'label("red", 1)']


def test_only_arrays_strings_and_maps_are_drawn_again_with_repeats() -> None:
    aliases = {"Names": "string[]", "Point": "{ x: number }"}
    assert [repeats(t, aliases) for t in ("number[]", "Array<string>", "string", "Names",
                                          "[number, number]", "Point", "number")] == [
        True, True, True, True, False, False, False]
    assert repeated([1, 2]) == [1, 2, 1] and repeated("a b c d") == "a b c d a b"
    assert repeated("") == "" and repeated([]) == []
    plan = collect_js_inputs(VersionSet.from_codes(
        "t", ["function f(p: [number, number]): number { return p[0]; }"],
        language="typescript", entry_point="f"))
    assert all(len(c.test.args[0]) == 2 for c in plan.cases)  # a tuple keeps its length


STACK_EXAMPLE = """/**
 * A last-in first-out stack.
 * @example
 * const s = new Stack<number>();
 * s.push(1);
 * s.push(2);
 * s.peek(); // => 2
 */"""


def test_an_example_that_builds_an_instance_is_a_call_on_it() -> None:
    [made] = instance_examples(STACK_EXAMPLE, "Stack.peek")
    assert made.receiver == Receiver("Stack", (), steps=(("push", (1,)), ("push", (2,))))
    assert made.label == "s.peek() after new Stack(), s.push(1), s.push(2)"
    assert made.call == ((), 2, True)
    assert examples(STACK_EXAMPLE, "Stack.peek") == []  # never again on a bare instance


def test_repl_lines_build_an_instance_with_literal_arguments_and_the_next_line_expects() -> None:
    text = ("// >>> let q = new Queue([1, 2], {cap: 3})\n// >>> q.add('a')\n// >>> q.size()\n"
            "// //=> 3\n")
    [made] = instance_examples(text, "size")
    assert made.receiver.args == ([1, 2], {"$": "object", "v": [["cap", 3]]})
    assert made.receiver.steps == (("add", ("a",)),)
    assert made.call == ((), 3, True)
    assert made.label == 'q.size() after new Queue([1, 2], {"cap": 3}), q.add("a")'


def test_a_method_under_test_shows_through_the_calls_after_it() -> None:
    pushes = instance_examples(STACK_EXAMPLE, "push")
    assert [(m.receiver.steps, m.receiver.method, m.call) for m in pushes] == [
        ((), None, ((1,), None, False)),
        ((("push", (1,)),), None, ((2,), None, False)),
        ((("push", (1,)), ("push", (2,))), "peek", ((), 2, True))]
    assert instance_examples(STACK_EXAMPLE, "Stack.peek", owner="Queue") == []


def test_a_setup_of_no_literal_form_leaves_the_example_out() -> None:
    for setup in ("s.push(x);", "s.items = [];", "s.inner.push(1);", "s.push(2); s.push(3);",
                  "s.push(2) s.push(3)"):
        text = STACK_EXAMPLE.replace("s.push(2);", setup)
        assert instance_examples(text, "peek") == [], setup
        assert examples(text, "peek") == [], setup
    for made in ("new Stack(size)", "Stack.of(1, 2)", "new ns.Stack()",
                 "new Stack(); s.push(0)"):
        text = STACK_EXAMPLE.replace("new Stack<number>()", made)
        assert instance_examples(text, "peek") == [] and examples(text, "peek") == [], made


def test_at_most_a_handful_of_setup_calls_are_replayed() -> None:
    setup = "".join(f" * s.push({i});\n" for i in range(MAX_STEPS))
    text = f"/**\n * const s = new Stack();\n{setup} * s.peek(); // => 5\n */"
    [made] = instance_examples(text, "peek")
    assert len(made.receiver.steps) == MAX_STEPS
    more = text.replace(" * s.peek()", " * s.push(9);\n * s.peek()")
    assert instance_examples(more, "peek") == []


def test_whole_class_versions_alone_take_the_instance_examples_and_methods_alone_not() -> None:
    klass = STACK_EXAMPLE + "\nexport class Stack<T> {\n  peek(): T { return this.xs[0]; }\n}"
    ss = VersionSet.from_codes("t", [klass, klass], language="typescript",
                               entry_point="Stack.peek", prompt=STACK_EXAMPLE)
    [first, *_] = collect_js_inputs(ss).cases
    assert (first.label, first.source, first.graded) == (
        "s.peek() after new Stack(), s.push(1), s.push(2)", "doctest", True)
    assert first.test.expected == 2 and first.test.receiver is not None
    alone = VersionSet.from_codes("t", ["peek() { return 1; }"], language="typescript",
                                  entry_point="Stack.peek", prompt=STACK_EXAMPLE)
    assert all(c.test.receiver is None for c in collect_js_inputs(alone).cases)


def test_a_methods_drawn_inputs_take_the_fullest_instance_an_example_builds() -> None:
    text = ("/**\n * @example\n * const s = new Stack();\n * s.push(1);\n * s.push(2);\n"
            " * s.peek(); // => 2\n */\nexport class Stack {\n  items: number[] = [];\n"
            "  push(x: number): void { this.items.push(x); }\n"
            "  peek(): number { return this.items[this.items.length - 1]; }\n}\n")
    plan = collect_js_inputs(VersionSet.from_codes("t", [text], language="typescript",
                                                  entry_point="Stack.push"))
    drawn = [c for c in plan.cases if c.source in ("hypothesis", "scaling")]
    assert drawn and all(c.test.receiver is not None for c in drawn)
    first = drawn[0].test.receiver
    assert first is not None and first.steps == (("push", (1,)), ("push", (2,)))
    assert first.method is None  # the drawn call is of push itself
    assert drawn[0].label == "s.push(0) after new Stack(), s.push(1), s.push(2)"
    bare = collect_js_inputs(VersionSet.from_codes(
        "t", ["function f(x: number): number { return x; }"], language="typescript",
        entry_point="f"))
    assert all(c.test.receiver is None for c in bare.cases)  # a function has no instance


def test_examples_written_as_a_python_docstring_writes_them_in_a_comment() -> None:
    """MultiPL-E keeps a docstring's prose as it was: arrows of every kind, a call inside a
    sentence, bullets, Python's ``True``/``None`` and tuples, a comment after the call."""
    prompt = ('//choose_num(12, 15) = 14\n'
              '//select_words("Mary had a little lamb", 4) ==> ["little"]\n'
              '//is_sorted([5]) ➞ True\n'
              '//* sort_array([5]) => [5]\n'
              '//for x_or_y(7, 34, 12) == 34\n'
              '//decimal_to_binary(15)   # returns "db1111db"\n'
              '//largest_smallest_integers([0]) == (None, None)\n'
              '//get_row([[], [1], [1, 2, 3]], 3) == [(2, 2)]\n'
              '//compare_one("1", 1) ➞ None\n'
              '//even_odd_count(123) ==> (1, 2).\n'
              '//intersection((1, 2), (2, 3)) ==> "NO"\n'
              '//get_odd_collatz(5) returns [1, 5] # the odd ones of [5, 16, 8, 4, 2, 1]\n')
    got = {name: examples(prompt + f"function {name}(a){{\n}}", name) for name in (
        "choose_num", "select_words", "is_sorted", "sort_array", "x_or_y",
        "decimal_to_binary", "largest_smallest_integers", "get_row", "compare_one",
        "even_odd_count", "intersection", "get_odd_collatz")}
    undefined = {"$": "undefined"}
    assert got == {
        "choose_num": [((12, 15), 14, True)],
        "select_words": [(("Mary had a little lamb", 4), ["little"], True)],
        "is_sorted": [(([5],), True, True)],
        "sort_array": [(([5],), [5], True)],
        "x_or_y": [((7, 34, 12), 34, True)],
        "decimal_to_binary": [((15,), "db1111db", True)],
        "largest_smallest_integers": [(([0],), [undefined, undefined], True)],
        "get_row": [(([[], [1], [1, 2, 3]], 3), [[2, 2]], True)],
        "compare_one": [(("1", 1), undefined, True)],
        "even_odd_count": [((123,), [1, 2], True)],
        "intersection": [(([1, 2], [2, 3]), "NO", True)],
        "get_odd_collatz": [((5,), [1, 5], True)],
    }


def test_the_functions_own_line_after_an_example_is_no_expected_value() -> None:
    """An example whose value is not a literal, the last before the function: its next
    line is the function itself, once read as the value (a function expression)."""
    prompt = "// f(1) ==> (a, b)\nfunction f(n){\n  return n;\n}"
    assert examples(prompt, "f") == [((1,), None, False)]
    strings = '// f("(a, b)") == "True"\nfunction f(s){\n}'
    assert examples(strings, "f") == [(("(a, b)",), "True", True)]  # inside strings: as is
    deep = "// f(" + "(" * 50 + "1, 2" + ")" * 50 + ") == 1\nfunction f(s){\n}"
    assert examples(deep, "f") == [(([1, 2],), 1, True)]  # one pass, never recursing
    # a line past the readers' bound is no example; many calls in one sentence: the first few
    long = "// f(1) == 2 " + "x" * MAX_EXAMPLE_LINE_CHARS + "\nfunction f(s){\n}"
    assert examples(long, "f") == []
    many = "// see " + " and f(a)" * 300 + " or f(1) == 2\nfunction f(s){\n}"
    assert examples(many, "f") == []


def test_an_expected_value_written_over_several_comment_lines_is_read_whole() -> None:
    """HumanEval/113's second value is a list of two long strings, one a line; a value
    left open to the function's own line is no value."""
    prompt = ('//>>> odd_count(["3", "11111111"])\n'
              '//["the number of odd elements 1n the str1ng 1 of the 1nput.",\n'
              '// "the number of odd elements 8n the str8ng 8 of the 8nput."]\n'
              '//>>> odd_count(["1"])\n//[1,\nfunction odd_count(lst){\n}')
    assert examples(prompt, "odd_count") == [
        ((["3", "11111111"],), ["the number of odd elements 1n the str1ng 1 of the 1nput.",
                                "the number of odd elements 8n the str8ng 8 of the 8nput."],
         True),
        ((["1"],), None, False)]


def test_equal_bounds_are_drawn_for_a_destructured_object_and_its_defaults() -> None:
    code = ("const fmt = ({ lo, hi }: { lo: number; hi: number }, sep = '-', n = 2,"
            " f = g()): string => '';")
    plan = collect_js_inputs(VersionSet.from_codes("t", [code], language="typescript",
                                                  entry_point="fmt"), scaling=False)
    equal = {"$": "object", "v": [["hi", 7], ["lo", 7]]}
    assert (equal,) in [c.test.args for c in plan.cases]  # lo == hi
    assert (equal, "Hello World", 7) in [c.test.args for c in plan.cases]


def test_equal_arguments_are_drawn_once_and_maps_repeat_their_values() -> None:
    code = "function clamp(x: number, lo: number, hi: number): number { return x; }"
    plan = collect_js_inputs(VersionSet.from_codes("t", [code], language="typescript",
                                                  entry_point="clamp"), scaling=False)
    args = [c.test.args for c in plan.cases]
    assert (7, 7, 7) in args and all(len(set(a)) == 3 for a in args if a != (7, 7, 7))
    inverted = collect_js_inputs(VersionSet.from_codes("t", [
        "function invert(m: Map<string, number>): Map<number, string[]> { return m; }"],
        language="typescript", entry_point="invert"), scaling=False)
    assert ({"$": "map", "v": [["a", -3], ["a2", -3], ["b", 7], ["c", 42]]},) in [
        c.test.args for c in inverted.cases]  # two keys with one value


def test_a_property_read_is_a_getter_s_example_on_the_instance_it_names() -> None:
    text = ("/**\n * @example new Rect(2, 3).area // => 6\n * @example\n"
            " * const r = new Rect(1, 5);\n * r.area // => 5\n * r.perimeter // => 12\n */")
    made = instance_examples(text, "Rect.area")
    assert [(e.receiver.name, e.receiver.args, e.call) for e in made] == [
        ("Rect", (2, 3), ((), 6, True)), ("Rect", (1, 5), ((), 5, True))]
    assert examples(text, "Rect.area") == []
    assert examples("// >>> config.size // => 3", "size") == [((), 3, True)]
    assert examples("// >>> Math.PI // => 3.14", "size") == []  # another name


def test_a_chain_on_an_instance_an_example_makes_is_its_setup() -> None:
    """``new Bag<number>().add(3).add(1).distinct() // => [3, 1]``: the chain's calls are the
    setup, each made on what the one before returned; an example of ``add`` shows through
    the last call; a call of no literal form, or a chain past ``MAX_STEPS``, is no example."""
    line = "/** @example new Bag<number>().add(3).add(1).distinct() // => [3, 1] */"
    [made] = instance_examples(line, "Bag.distinct")
    assert made.receiver == Receiver("Bag", (), steps=(("add", (3,)), ("add", (1,))),
                                     chained=True)
    assert made.label == "new Bag().add(3).add(1).distinct()"
    assert made.call == ((), [3, 1], True)
    [shown] = instance_examples(line, "add")
    assert (shown.receiver.method, shown.receiver.chained) == ("distinct", True)
    assert instance_examples(line, "size") == []
    assert instance_examples(line, "distinct", owner="Other") == []
    assert instance_examples(line.replace("add(1)", "add(x)"), "distinct") == []
    long = "/** @example new Bag()" + ".add(1)" * (MAX_STEPS + 1) + ".distinct() // => [1] */"
    assert instance_examples(long, "distinct") == []
    assert instance_examples("/** @example new Box(2).volume() // => 8 */", "volume")[0] \
        .receiver == Receiver("Box", (2,))


def test_a_helper_in_a_file_the_module_imports_tells_a_parameter_s_type() -> None:
    """``assertString(str)`` of ``./util/assertString`` (validator's way): the parameter is
    what the helper's checks say (a string), not the array its ``length`` alone guesses; a
    package's function of the same name is not read."""
    from codequorum.core.model import ModuleContext

    main = ("import assertString from './util/assertString';\n"
            "export default function isEmptyish(str) {\n  assertString(str);\n"
            "  return str.length === 0;\n}\n")
    helper = ("export default function assertString(input) {\n"
              "  if (typeof input !== 'string') throw new TypeError('Expected a string');\n}\n")
    package = "export function assertString(input) { return input * 2; }\n"

    def drawn(files: tuple[tuple[str, str], ...]) -> list[str]:
        module = ModuleContext(name="m", path="src/main.js", qualified_name="isEmptyish",
                               kind="function", files=(("src/main.js", main), *files), roots=())
        version_set = VersionSet.from_codes("t", [main], language="javascript",
                                            entry_point="isEmptyish")
        plan = collect_js_inputs(replace(version_set, module=module))
        return [n for n in plan.notes if n.startswith("parameter types guessed")]

    assert drawn((("src/util/assertString.js", helper),)) == [
        "parameter types guessed from their use: string"]
    assert drawn((("node_modules/x/index.js", package),)) == [
        "parameter types guessed from their use: number[]"]


REMEDA_ADD = """/**
 * Adds two numbers.
 *
 * @example
 *    add(10, 5) // => 15
 *    add(a, b)
 * @example
 *    add(5)(10) // => 15
 *    const fns = [add(1), add(2)];
 *    fns.map((fn) => fn(1)) // => [2, 3]
 *    fns[0](add(1)(1)) // => 3
 *    map([1, 2], add(1)) // => [2, 3]
 */"""


def test_examples_calling_the_function_inside_code_of_their_own_run_whole() -> None:
    """``add(10, 5)`` is a literal call (:func:`examples`'); ``add(5)(10)`` and the lines
    reading the example's constant (which holds the function's values) are code examples;
    ``add(a, b)`` (the signature, names nobody gives) and ``map(...)`` (a function the
    module does not have) are none."""
    got = code_examples(REMEDA_ADD, "add", "typescript", frozenset({"add"}))
    assert [(label, expected, has) for label, _, expected, has in got] == [
        ("add(5)(10)", 15, True), ("fns.map((fn) => fn(1))", [2, 3], True),
        ("fns[0](add(1)(1))", 3, True)]
    assert "const fns = [add(1), add(2)];" in got[1][1]  # declared first
    assert "const fns" not in got[0][1]  # a declaration only reaches the lines after it
    assert code_examples(REMEDA_ADD, "add", "typescript", frozenset()) == []  # add not given
    assert [g[0] for g in code_examples(REMEDA_ADD, "add", "typescript",
                                        frozenset({"add", "map"}))][-1] == \
        "map([1, 2], add(1))"


ES_TOOLKIT_AT = """/**
 * @example
 * const numbers = [10, 20, 30, 40, 50];
 * const result = at(numbers, [1, 3, 4]);
 * console.log(result); // [20, 40, 50]
 * @example
 * const nested = [[1, 2], [3, 4]];
 * const sums = at(nested, [0]);
 * // result will be [[1, 2]]
 * @example
 * const nested = [[1, 2], [3, 4]];
 * let picked = at(nested, [1]);
 * console.log(picked); // [[3, 4]]
 * picked = at(nested, [0, 1]);
 * console.log(picked); // [[1, 2], [3, 4]]
 * console.log(nested); // [[1, 2], [3, 4]]
 */"""


def test_a_value_kept_in_a_constant_is_graded_where_the_example_shows_it() -> None:
    """es-toolkit's examples keep the call's value (``const result = at(...)``) and show
    it printed on a later line, or say it in a comment on the next one; a name assigned
    again holds the later call's value (and the input printed is no example)."""
    got = code_examples(ES_TOOLKIT_AT, "at", "typescript", frozenset({"at"}))
    assert [(label, expected, has) for label, _, expected, has in got] == [
        ("at(numbers, [1, 3, 4])", [20, 40, 50], True), ("at(nested, [0])", [[1, 2]], True),
        ("at(nested, [1])", [[3, 4]], True), ("at(nested, [0, 1])", [[1, 2], [3, 4]], True)]
    assert got[0][1] == ("(function () {\nconst numbers = [10, 20, 30, 40, 50];\n"
                         "const result = at(numbers, [1, 3, 4]);\nreturn (\nresult\n);\n});\n")
    assert examples("/**\n * chunk([1, 2], 1);\n * // Returns: [[1], [2]]\n */", "chunk") == [
        (([1, 2], 1), [[1], [2]], True)]


def test_a_code_examples_expected_value_may_stand_on_the_next_line() -> None:
    text = "/**\n * @example\n * [...chunks([1, 2, 3], 2)]\n * // => [[1, 2], [3]]\n */"
    assert code_examples(text, "chunks", "javascript", frozenset({"chunks"})) == [
        ("[...chunks([1, 2, 3], 2)]",
         "(function () {\nreturn (\n[...chunks([1, 2, 3], 2)]\n);\n});\n", [[1, 2], [3]],
         True)]


def test_code_examples_become_example_cases_of_the_plan_graded_from_the_prompt() -> None:
    prompt = ("/**\n * @example\n * add(5)(10) // => 15\n */\n")
    version = "function add(a, b) { return b === undefined ? (x) => x + a : a + b; }"
    plan = collect_js_inputs(VersionSet.from_codes(
        "t", [version, version], language="javascript", entry_point="add", prompt=prompt),
        hypothesis_examples=0, scaling=False)
    case = plan.cases[0]
    assert (case.test.kind, case.label, case.test.expected, case.test.has_expected,
            case.graded, case.source) == ("example", "add(5)(10)", 15, True, True, "doctest")


LODASH_DROP_WHILE = """/**
 * @example
 *
 * var users = [
 *   { 'user': 'barney',  'active': false },
 *   { 'user': 'pebbles', 'active': true }
 * ];
 *
 * _.dropWhile(users, function(o) { return !o.active; });
 * // => objects for ['pebbles']
 *
 * _.dropWhile(users, 'active');
 * // => [{ 'user': 'barney', 'active': false }, { 'user': 'pebbles', 'active': true }]
 *
 * _.dropWhile(users, _.negate(isActive));
 * @example
 * var array = [1, [2, [3, [4]], 5]];
 * R.dropWhile(array, (x) => x < 2); //=> [[2, [3, [4]], 5]]
 */"""


def test_lodash_and_ramda_examples_call_on_their_namespace_and_declare_over_lines() -> None:
    """lodash writes ``_.dropWhile(users, ...)`` after a ``var users = [`` over several
    lines, Ramda ``R.dropWhile(...)``: the declaration is read whole, the call made on the
    function itself (the run gives it by name); a call reading the namespace for another
    function of it (``_.negate``) is no input, and a value in words grades nothing."""
    got = code_examples(LODASH_DROP_WHILE, "dropWhile", "javascript", frozenset({"dropWhile"}))
    assert [(label, expected, has) for label, _, expected, has in got] == [
        ("dropWhile(users, function(o) { return !o.active; })", None, False),
        ("dropWhile(users, 'active')", [{"$": "object", "v": [["active", False],
                                                             ["user", "barney"]]},
                                        {"$": "object", "v": [["active", True],
                                                             ["user", "pebbles"]]}], True),
        ("dropWhile(array, (x) => x < 2)", [[2, [3, [4]], 5]], True)]
    assert got[1][1] == (
        "(function () {\nvar users = [\n{ 'user': 'barney',  'active': false },\n"
        "{ 'user': 'pebbles', 'active': true }\n];\nreturn (\ndropWhile(users, 'active')\n"
        ");\n});\n")
    # an object the example makes keeps its call as written
    made = code_examples("/**\n * const r = makeRect(2, 3);\n * [r.area()] // => [6]\n */",
                         "area", "javascript", frozenset({"area", "makeRect"}))
    assert [g[0] for g in made] == ["[r.area()]"]
    # a namespace the run gives is the module's own: its call stays as written
    kept = code_examples("/** utils.slug(s) // => 'a' */", "slug", "javascript",
                         frozenset({"slug", "utils", "s"}))
    assert [g[0] for g in kept] == ["utils.slug(s)"]


RAMDA_HAS_IN = """/**
 * @example
 *
 *      function Rectangle(width, height) {
 *        this.width = width;
 *        this.height = height;
 *      }
 *      Rectangle.prototype.area = function() {
 *        return this.width * this.height;
 *      };
 *
 *      const square = new Rectangle(2, 2);
 *      R.hasIn('area', square);  //=> true
 *      R.hasIn({ width: 1 },
 *              square);
 *      //=> false
 *      function hasIn(a, b) { return false; }
 *      hasIn('x', square);  //=> true
 */"""


def test_a_name_the_function_changed_is_graded_where_the_example_shows_it() -> None:
    """lodash's ``pullAll`` changes its array and prints it after; ``has`` declares a
    constant by another function of the library that the example run does not read."""
    text = """/**
 * @example
 * var array = ['a', 'b', 'c', 'a'];
 *
 * _.pullAll(array, ['a', 'c']);
 * console.log(array);
 * // => ['b']
 */"""
    got = code_examples(text, "pullAll", "javascript", frozenset({"pullAll"}))
    assert [(label, expected, has) for label, _, expected, has in got] == [
        ("pullAll(array, ['a', 'c'])", None, False),
        ("pullAll(array, ['a', 'c']); array", ["b"], True)]
    assert got[1][1] == ("(function () {\nvar array = ['a', 'b', 'c', 'a'];\n"
                         "pullAll(array, ['a', 'c']);\nreturn (\narray\n);\n});\n")
    has = """/**
 * var object = { 'a': { 'b': 2 } };
 * var other = _.create({ 'a': _.create({ 'b': 2 }) });
 *
 * _.has(object, 'a');
 * // => true
 *
 * _.has(other, 'a');
 * // => false
 */"""
    assert [(g[0], g[2]) for g in code_examples(has, "has", "javascript", frozenset({"has"}))] \
        == [("has(object, 'a')", True)]


def test_an_examples_functions_and_properties_it_sets_are_its_setup() -> None:
    """Ramda's ``hasIn`` example declares a constructor and sets a method on its prototype
    before calling the function; a call over two lines is read whole, though its arguments
    are literals; a function of the example's own by the function's name is left out of
    the setup (the version stands there)."""
    got = code_examples(RAMDA_HAS_IN, "hasIn", "javascript", frozenset({"hasIn"}))
    assert [(label, expected, has) for label, _, expected, has in got] == [
        ("hasIn('area', square)", True, True), ("hasIn({ width: 1 }, square)", False, True),
        ("hasIn('x', square)", True, True)]
    assert "Rectangle.prototype.area = function() {" in got[0][1]
    assert "function Rectangle(width, height) {" in got[0][1]
    assert "function hasIn" not in got[2][1]


def test_examples_of_one_call_on_other_setups_are_told_apart() -> None:
    """Ramda's ``invertObj`` example declares ``raceResults`` twice, the second after a line
    of prose ending in a colon (no label of the code after it): two inputs, each its own
    label (an input is known by its label)."""
    text = """/**
 * @example
 *      const raceResults = {
 *        first: 'alice'
 *      };
 *      R.invertObj(raceResults);
 *      //=> { 'alice': 'first' }
 *
 *      // Alternatively:
 *      const raceResults = ['alice'];
 *      R.invertObj(raceResults);
 *      //=> { 'alice': '0' }
 */"""
    got = code_examples(text, "invertObj", "javascript", frozenset({"invertObj"}))
    assert [g[0] for g in got] == [
        "invertObj(raceResults)",
        "invertObj(raceResults) after const raceResults = ['alice']"]
    assert [g[2] for g in got] == [{"$": "object", "v": [["alice", "first"]]},
                                   {"$": "object", "v": [["alice", "0"]]}]


def test_a_statement_over_more_lines_than_the_limit_or_a_blank_line_is_not_joined() -> None:
    opened = "\n".join([" * var xs = ["] + [" *   1,"] * (MAX_JOINED_LINES + 1) + [" * ];"])
    text = f"/**\n{opened}\n * first(xs) // => 1\n */"
    assert code_examples(text, "first", "javascript", frozenset({"first"})) == []
    split = "/**\n * var xs = [\n *\n *   1];\n * first(xs) // => 1\n */"
    assert code_examples(split, "first", "javascript", frozenset({"first"})) == []
    fenced = "/**\n * ```ts\n * var xs = [\n *   1];\n * first(xs) // => 1\n * ```\n */"
    assert [g[2] for g in code_examples(fenced, "first", "javascript", frozenset({"first"}))] \
        == [1]  # a Markdown fence is no code, and no statement goes on past it
    whole = "/**\n * var xs = [\n *   1];\n * first(xs) // => 1\n */"
    assert [g[2] for g in code_examples(whole, "first", "javascript", frozenset({"first"}))] \
        == [1]


def test_a_value_written_over_line_comments_after_a_mark_alone_is_expected() -> None:
    """es-toolkit writes ``// result will be:`` and then the value over ``//`` lines."""
    text = """/**
 * @example
 * const array = ['a', 'b', 'a'];
 * const result = countBy(array, x => x);
 * // result will be:
 * // {
 * //   a: 2,
 * //   b: 1
 * // }
 * @example
 * chunk([1, 2, 3], 2);
 * // Returns:
 * // [[1, 2], [3]]
 */"""
    assert code_examples(text, "countBy", "javascript", frozenset({"countBy"}))[0][2:] == (
        {"$": "object", "v": [["a", 2], ["b", 1]]}, True)
    assert examples(text, "chunk") == [(([1, 2, 3], 2), [[1, 2], [3]], True)]


def test_prose_that_shows_its_working_bare_words_and_an_earlier_name() -> None:
    """HumanEval's prose as MultiPL-E keeps it: a worked sum's result, an aside after the
    value, bare words meant as strings (two lines of them, no parameter named), and
    examples written for another name where none names the function."""
    worked = ('//fruit("5 apples and 6 oranges", 19) -> 19 - 5 - 6 = 8\n'
              '//fruit("a", 2) = 1 + 1 = 2\n'
              "//fruit(\"1example\", 1) # => 'No' (it starts with a digit)\n"
              "function fruit(s, n){\n  return n;\n}")
    assert examples(worked, "fruit") == [(("5 apples and 6 oranges", 19), 8, True),
                                         (("a", 2), None, False), (("1example", 1), "No", True)]
    words = ("//is_happy(a) => False\n//is_happy(abcd) => True\n//is_happy(s) => True\n"
             "function is_happy(s){\n  return s.length > 2;\n}")
    assert examples(words, "is_happy") == [(("a",), False, True), (("abcd",), True, True)]
    one = "//is_happy(abcd) => True\nfunction is_happy(s){\n  return true;\n}"
    assert examples(one, "is_happy") == []
    renamed = ("//grade_equation([4.0, 3]) ==> ['A+', 'B']\n"
               "//assert grade_equation([0.0]) => ['E']\n"
               "function numerical_letter_grade(grades){\n"
               "  return check(grades) === 1 ? [] : grades;\n}")
    assert examples(renamed, "numerical_letter_grade") == [
        (([4.0, 3],), ["A+", "B"], True), (([0.0],), ["E"], True)]
    assert examples(renamed.replace("//assert grade_equation", "//assert score"),
                    "numerical_letter_grade") == []  # two other names: which is not said

