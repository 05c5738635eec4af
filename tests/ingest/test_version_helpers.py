"""The helpers a version keeps beside its function: what it reaches by name, in order."""

from __future__ import annotations

import pytest

from codequorum.core.parsing import parse
from codequorum.ingest.version_helpers import (
    declared_names,
    helper_nodes,
    top_level,
    without_module_copies,
)


def _kept(code: str, language: str, name: str) -> list[str]:
    root = parse(code, language).root_node
    target = top_level(root, code.index(name))
    assert target is not None
    return [(n.text or b"").decode() for n in helper_nodes(root, target, language)]


def test_javascript_keeps_what_the_function_reaches_and_drops_the_rest() -> None:
    code = ("const DIGITS = '0123456789abcdef';\nconst UNUSED = 1;\n"
            "function digit(d) { return DIGITS[d]; }\n"
            "export function toHex(n) { return digit(n % 16); }\n"
            "console.log(toHex(255));\n")
    assert _kept(code, "javascript", "export function toHex") == [
        "const DIGITS = '0123456789abcdef';", "function digit(d) { return DIGITS[d]; }"]


def test_typescript_keeps_types_enums_and_classes_it_names_but_no_import() -> None:
    code = ("import { clamp as c } from './util';\ninterface P { x: number }\n"
            "type Q = number;\nenum Mode { A, B }\nclass Box { constructor(public v: Q) {} }\n"
            "type Unused = string;\n"
            "function f(p: P): Q { return c(new Box(p.x).v, Mode.A, 1); }\n")
    assert _kept(code, "typescript", "function f") == [
        "interface P { x: number }",
        "type Q = number;", "enum Mode { A, B }",
        "class Box { constructor(public v: Q) {} }"]


def test_python_keeps_decorated_helpers_and_constants_but_no_import() -> None:
    code = ("import math as m\nfrom functools import lru_cache\nTABLE = {1: 2}\n"
            "@lru_cache\ndef helper(x):\n    return TABLE.get(x, m.pi)\n\n"
            "def other():\n    pass\n\n"
            "def f(x):\n    return helper(x)\n\nprint(f(1))\n")
    kept = _kept(code, "python", "def f")
    assert kept == ["TABLE = {1: 2}",
                    "@lru_cache\ndef helper(x):\n    return TABLE.get(x, m.pi)"]


def test_a_language_without_a_rule_keeps_nothing() -> None:
    code = "package p\nconst K = 1\nfunc f() int { return K }\n"
    assert _kept(code, "go", "func f") == []


@pytest.mark.parametrize(("code", "language", "names"), [
    ("const [a, { b, c: d }] = x;", "javascript", ["a", "b", "d"]),
    ("export default class K {}", "javascript", ["K"]),
    ("namespace A.B { }", "typescript", ["A"]),
    ("export namespace N { }", "typescript", ["N"]),
    ("import d, * as ns from 'm';", "javascript", ["d", "ns"]),
    ("a, b = 1, 2", "python", ["a", "b"]),
    ("import os.path", "python", ["os"]),
    ("from a.b import c as d, e", "python", ["d", "e"]),
    ("x += 1", "python", []),
    ("print(1)", "python", []),
])
def test_the_names_a_statement_binds(code: str, language: str, names: list[str]) -> None:
    [node] = parse(code, language).root_node.named_children
    assert declared_names(node, language) == names


MODULE_TS = ("export const DIGITS = '0123456789abcdef';\nfunction digit(d: number) {\n"
             "  return DIGITS[d];\n}\nexport function toHex(n: number): string { return ''; }\n")


def test_helpers_the_module_holds_word_for_word_are_left_to_it() -> None:
    version = ("const DIGITS = '0123456789abcdef';\n\n"
               "function digit(d: number) { return DIGITS[d]; }\n\nconst SEP = '';\n\n"
               "function toHex(n: number): string {\n"
               "  return digit(n % 16) + SEP;\n}\n")
    assert without_module_copies(version, "typescript", "toHex", MODULE_TS) == (
        "const SEP = '';\n\nfunction toHex(n: number): string {\n"
        "  return digit(n % 16) + SEP;\n}\n")


def test_a_helper_written_otherwise_stays_with_its_version() -> None:
    version = ("const DIGITS = '0123456789ABCDEF';\n\nfunction toHex(n: number): string {\n"
               "  return DIGITS[n];\n}\n")
    assert without_module_copies(version, "typescript", "toHex", MODULE_TS) == version
    assert without_module_copies(version, "typescript", "toHex", "not ( typescript") == version
    python = "K = 1\n\ndef f():\n    return K\n"
    assert without_module_copies(python, "python", "f", "K = 1\ndef f():\n    pass\n") == (
        "def f():\n    return K\n")
    assert without_module_copies(python, "python", "C.f", "K = 1\n") == python


def test_assignments_that_change_a_kept_helper_come_with_it() -> None:
    code = ("function Stack() { this.items = []; }\n"
            "Stack.prototype.push = function (x) { this.items.push(x); };\n"
            "const memo = {};\nmemo[0] = 1;\nlet calls = 0;\ncalls += 1;\n"
            "other.x = 1;\nfunction f(x) { calls++; const s = new Stack(); s.push(x);"
            " return memo[x]; }\nf.cache = true;\nconsole.log(f(0));\n")
    assert _kept(code, "javascript", "function f") == [
        "function Stack() { this.items = []; }",
        "Stack.prototype.push = function (x) { this.items.push(x); };",
        "const memo = {};", "memo[0] = 1;", "let calls = 0;", "calls += 1;", "f.cache = true;"]
    python = "CACHE = {}\nCACHE[0] = 1\nprint(2)\ndef f(x):\n    return CACHE[x]\n"
    assert _kept(python, "python", "def f") == ["CACHE = {}", "CACHE[0] = 1"]
