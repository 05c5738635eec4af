"""The parameters' types of TypeScript functions: required, optional and defaulted."""

from __future__ import annotations

from codequorum.behaviour.runtimes.ts_parameters import parameter_types


def test_a_parameter_with_a_default_is_optional_and_typed_by_its_default() -> None:
    code = ("const fmt = ({ lo, hi }: { lo: number; hi: number }, sep = '-', n = 2,"
            " f = g()): string => '';")
    assert parameter_types(code, "fmt") == ["{ lo: number; hi: number }"]
    assert parameter_types(code, "fmt", optional=True) == [
        "{ lo: number; hi: number }", "string", "number"]  # g() tells no type: the end
    assert parameter_types("function f(a = true, b?: string[]) {}", "f", optional=True) == [
        "boolean", "string[]"]
    assert parameter_types("function f(a: number, b) {}", "f") is None


def test_comments_between_parameters_are_no_parameters() -> None:
    text = ("export default function invariant(\n  condition: any,\n"
            "  // a comment between the two\n  /** and a doc comment */\n"
            "  message?: string | (() => string),\n): asserts condition {}\n")
    assert parameter_types(text, "invariant") == ["any"]
    assert parameter_types(text, "invariant", optional=True) == [
        "any", "string | (() => string)"]
    js = "/**\n * @param {string} s\n * @param {number} n\n */\nfunction f(s, /* count */ n) {}\n"
    assert parameter_types(js, "f") == ["string", "number"]
