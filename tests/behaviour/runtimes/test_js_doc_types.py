"""Parameter types of JavaScript functions, read from their JSDoc comments."""

from __future__ import annotations

from pathlib import Path

from codequorum.behaviour.runtimes.js_doc_types import as_typescript, documented
from codequorum.behaviour.runtimes.js_inputs import collect_js_inputs
from codequorum.behaviour.runtimes.ts_parameters import parameter_types
from codequorum.core.model import VersionSet
from codequorum.ingest.js_module_view import js_module_view

DOC = """/**
 * Join the words.
 * @param {string[]} words - the words
 * @param {?string} sep
 * @param {Object.<string, number>} [counts={}] how often each
 * @param {function(string): boolean} [keep]
 * @param {Object} opts
 * @param {number} opts.limit a property, not a parameter
 */
"""


def test_tags_are_read_with_their_optional_marks() -> None:
    assert documented(DOC) == {
        "words": ("string[]", False), "sep": ("string | null", False),
        "counts": ("Record<string, number>", True), "keep": ("(x: any) => boolean", True),
        "opts": ("Object", False)}
    assert documented("@param {number=} n\n@arg {{a: number}} p\n@param {unclosed x") == {
        "n": ("number", True), "p": ("{a: number}", False)}


def test_jsdoc_types_read_as_typescript() -> None:
    assert [as_typescript(t) for t in (
        "Array.<String>", "*", "!Number", "?Array", "function(number)", "(number|null)[]",
        "Map.<string, Boolean>")] == [
        "Array<string>", "any", "number", "any[] | null", "(x: any) => void",
        "(number|null)[]", "Map<string, boolean>"]


def test_a_javascript_functions_types_are_its_jsdoc_ones_by_name() -> None:
    code = DOC + "export const join = (words, sep, counts = {}, keep) => words.join(sep);"
    assert parameter_types(code, "join") == ["string[]", "string | null"]
    assert parameter_types(code, "join", optional=True) == [
        "string[]", "string | null", "Record<string, number>", "(x: any) => boolean"]
    # a required parameter without a tag, or destructured: the types are not known
    assert parameter_types("/** @param {number} a */\nfunction f(a, b) {}", "f") is None
    assert parameter_types("/** @param {number} a */\nfunction f({a}) {}", "f") is None
    assert parameter_types("/** @param {number} a */\nfunction f(a, ...r) {}", "f") == [
        "number"]
    plan = collect_js_inputs(VersionSet.from_codes("t", [code], language="javascript",
                                                  entry_point="join"), scaling=False)
    assert plan.cases[0].origin == "hint"
    assert [c.test.args for c in plan.cases[:3]] == [([], None), (["a", "hello"], "a"), (
        ["hello", "Hello World", "abcba"], "hello")]


def test_a_parameter_of_a_type_not_drawn_falls_back_to_its_use() -> None:
    code = ("/** @param {Object} opts */\n"
            "function f(opts) { return opts.name.toUpperCase(); }")
    plan = collect_js_inputs(VersionSet.from_codes("t", [code], language="javascript",
                                                  entry_point="f"), scaling=False)
    assert "parameter types not drawn: Object" in plan.notes
    assert plan.cases and plan.cases[0].origin == "usage"


def test_a_prompt_of_a_comment_alone_types_the_versions_it_stands_above() -> None:
    prompt = "/**\n * Words of a sentence.\n * @param {string} s\n */\n"
    ss = VersionSet.from_codes("t", ["function words(s) { return s.split(' '); }",
                                     "const words = (s) => s.split(/ +/);"],
                               language="javascript", entry_point="words", prompt=prompt)
    plan = collect_js_inputs(ss, scaling=False)
    assert plan.cases[0].origin == "hint" and not any("guessed" in n for n in plan.notes)
    assert "  mIxEd  CASE, 42! " in [c.test.args[0] for c in plan.cases]


def test_in_its_module_a_functions_jsdoc_is_read_from_its_own_file(tmp_path: Path) -> None:
    text = ("/**\n * @param {string[]} words\n */\n"
            "export function longest(words) {\n  return 1;\n}\n")
    path = tmp_path / "words.js"
    path.write_text(text)
    ss = VersionSet.from_codes("t", ["function longest(words) { return words[0]; }"],
                               language="javascript", entry_point="longest")
    ss.module = js_module_view(text, path, tmp_path).context("longest", "function")
    plan = collect_js_inputs(ss, scaling=False)
    assert plan.cases[0].origin == "hint"
    assert plan.cases[1].test.args == (["a", "hello"],)
