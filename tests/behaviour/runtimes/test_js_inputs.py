"""Inputs of JavaScript functions: examples in comments, TypeScript types, literals."""

from __future__ import annotations

from typing import Any

from codequorum.behaviour.runtimes.js_inputs import (
    collect_js_inputs,
    example_call,
    examples,
    from_python,
    guessed_types,
    parameter_types,
)
from codequorum.core.model import SampleSet
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


def test_typescript_parameter_types_draw_values() -> None:
    code = "function f(xs: number[], s: string): number { return 1; }"
    assert parameter_types(code, "f") == ["number[]", "string"]
    plan = collect_js_inputs(SampleSet.from_codes("t", [code], language="typescript",
                                                  entry_point="f"))
    assert plan.sources == ["hypothesis"] and len(plan.cases) == 6
    assert all(isinstance(c.test.args[0], list) for c in plan.cases)


def test_prompt_examples_are_graded_and_the_models_inputs_come_last() -> None:
    prompt = "// >>> f(2)\n// 4\nfunction f(x) {}"
    ss = SampleSet.from_codes("t", ["function f(x) { return x * x; }"], language="javascript",
                              entry_point="f", prompt=prompt)
    plan = collect_js_inputs(ss)
    assert [(c.source, c.graded, c.test.expected) for c in plan.cases] == [("doctest", True, 4)]
    bare = SampleSet.from_codes("t", ["function f(x) { return x; }"], language="javascript",
                                entry_point="f")

    def proposer(source: str, entry: str, arity: int, *, language: InputLanguage = PYTHON_INPUTS
                 ) -> tuple[list[tuple[Any, ...]], list[str]]:
        return [(1.5,), ({"a": [1]},)], []

    asked = collect_js_inputs(bare, proposer=proposer)
    assert [c.test.args for c in asked.cases] == [(1.5,), ({"$": "object", "v": [["a", [1]]]},)]
    assert from_python(float("nan")) == {"$": "number", "v": "NaN"}


def test_untyped_parameters_are_guessed_from_their_use() -> None:
    code = ("function f(xs, s, n) { let t = 0; for (const x of xs) t += x;"
            " return s.toUpperCase().length + t * n; }")
    assert guessed_types(code, "f") == ["number[]", "string", "number"]
    plan = collect_js_inputs(SampleSet.from_codes("t", [code], language="javascript",
                                                  entry_point="f"))
    assert plan.sources == ["hypothesis"] and len(plan.cases) == 6
    assert "parameter types guessed from their use: number[], string, number" in plan.notes
    assert guessed_types("function f({a}) { return a; }", "f") is None
