"""The version in its module's place, and module syntax made CommonJS (read, never run)."""

from __future__ import annotations

import pytest

from codequorum.behaviour.runtimes.js_modules import (
    IMPORT_META,
    NotSpliced,
    commonjs_form,
    module_message,
    spliced,
)
from codequorum.core.model import ModuleContext


def test_imports_become_requires_on_their_own_lines() -> None:
    code = "import d, { a, b as c } from './x';\nimport * as ns from './y';\nimport './z';\n"
    lines = commonjs_form(code).splitlines()
    assert lines[0] == ("const __cq_import_0 = require('./x'); const d = __cq_import_0 && "
                        "__cq_import_0.__esModule ? __cq_import_0.default : __cq_import_0; "
                        "const { a, b: c } = __cq_import_0;")
    assert lines[1] == "const __cq_import_1 = require('./y'); const ns = __cq_import_1;"
    assert lines[2] == "require('./z');"


def test_exports_are_set_at_the_end() -> None:
    code = ("export function f() {}\nexport const K = 1, [p] = [2];\n"
            "export default class C {}\nexport { f as g };\nexport * from './w';\n")
    out = commonjs_form(code)
    assert out.startswith("function f() {}\nconst K = 1, [p] = [2];\nclass C {}\n")
    tail = out.splitlines()[-1]
    assert ("exports.f = f; exports.K = K; exports.p = p; exports.default = C; "
            "exports.g = f; (function (m) {") in tail
    assert "require('./w')" in tail


def test_a_file_without_module_syntax_is_kept() -> None:
    code = "module.exports = { a: require('./a') };\n"
    assert commonjs_form(code) == code


def test_import_meta_reads_as_the_modules_file_and_an_empty_env() -> None:
    code = ("export const MODE = import.meta.env?.MODE ?? 'dev';\n"
            "const here = new URL('.', import.meta.url);\n")
    out = commonjs_form(code)
    assert "import.meta" not in out
    assert out.count(IMPORT_META) == 2 and out.splitlines()[1] == (
        f"const here = new URL('.', {IMPORT_META}.url);")
    assert commonjs_form("const u = import.meta.url;\n") == (
        f"const u = {IMPORT_META}.url;\n")


def test_a_version_takes_its_function_s_place() -> None:
    source = "const K = 2;\nexport function f(x) { return x; }\nf(1);\n"
    assert spliced(source, "javascript", "f", "export function f(x) { return x * K; }") == (
        "const K = 2;\nexport function f(x) { return x * K; }\nf(1);\n")
    assert spliced("export default function f() { return 1; }\n", "javascript", "f",
                   "export default function f() { return 2; }") == (
        "export default function f() { return 2; }\n")
    assert spliced("const f = (x) => x;\n", "javascript", "f",
                   "export function f(x) { return -x; }") == (
        "export function f(x) { return -x; }\n")
    method = spliced("class A {\n  m() { return 1; }\n}\n", "javascript", "A.m",
                     "m() { return 2; }")
    assert method == "class A {\n  m() { return 2; }\n}\n"


def test_a_module_without_the_function_cannot_take_the_version() -> None:
    with pytest.raises(NotSpliced, match="no function g"):
        spliced("function f() {}\n", "javascript", "g", "function g() {}")
    context = ModuleContext("m.ts", "m.ts", "f", "function",
                            (("m.ts", "module 'x' { }\nfunction f() {}\n"),), ())
    message = module_message(context, "function f() {}", "typescript")
    assert message["problem"].startswith("the module `m.ts` cannot take the version: ")
    assert message["files"] == [] and message["entry"] == ""


def test_a_file_of_the_view_that_is_not_javascript_throws_only_when_it_is_loaded() -> None:
    """A file the module reads types from, which the stripping refuses, does not keep the
    module from loading: it becomes a script that throws, naming itself, if it is loaded."""
    context = ModuleContext("m.ts", "m.ts", "f", "function",
                            (("m.ts", "import type { T } from './t';\nexport function f() {}\n"),
                             ("t.ts", "module 'x' { }\nexport type T = number;\n")), ())
    message = module_message(context, "export function f(): number { return 1; }", "typescript")
    assert "problem" not in message
    assert message["files"] == [["t.ts", 'throw new SyntaxError("t.ts: TypeScript an ambient '
                                 'module has no run-time form");\n']]
    assert "return 1;" in message["entry"]


def test_a_version_takes_its_place_in_its_namespace() -> None:
    """A function of ``namespace Text`` is replaced where it is, its ``export`` kept; a
    name the version and the namespace both declare is declared once (the version's)."""
    source = ("export namespace Text {\n  const SEP = '-';\n"
              "  export function slugify(s: string) { return s; }\n}\n")
    version = ("const SEP = '_';\n"
               "export function slugify(s: string) { return s.split(' ').join(SEP); }")
    assert spliced(source, "typescript", "Text.slugify", version) == (
        "export namespace Text {\n  \n  export const SEP = '_';\n"
        "export function slugify(s: string) { return s.split(' ').join(SEP); }"
        ";Text.slugify = slugify;\n}\n")
    nested = "namespace A.B {\n  export function g() { return 1; }\n}\n"
    assert spliced(nested, "typescript", "A.B.g", "function g() { return 2; }") == (
        "namespace A.B {\n  export function g() { return 2; };B.g = g;\n}\n")


def test_what_a_namespace_keeps_to_itself_is_set_on_it_for_the_run() -> None:
    """A function the namespace does not export (a helper of it) is still reached as
    ``A.B.g``: the namespaces and the class on its way are exported in the run's copy, and
    the version's function is set on its namespace after it (a helper may come first)."""
    source = ("namespace A {\n  namespace B {\n    function g() { return 1; }\n"
              "    class K { m() { return 1; } }\n  }\n}\n")
    assert spliced(source, "typescript", "A.B.g",
                   "const TWO = 2;\nfunction g() { return TWO; }") == (
        "namespace A {\n  export namespace B {\n    const TWO = 2;\n"
        "function g() { return TWO; };B.g = g;\n    class K { m() { return 1; } }\n  }\n}\n")
    assert spliced(source, "typescript", "A.B.K.m", "m() { return 2; }") == (
        "namespace A {\n  export namespace B {\n    function g() { return 1; }\n"
        "    export class K { m() { return 2; } }\n  }\n}\n")


def test_a_private_methods_version_brings_the_caller_that_reaches_it() -> None:
    from codequorum.behaviour.runtimes.js_modules import with_private_caller
    got = with_private_caller("#clamp(n) { return n; }", "Stack.#clamp")
    assert got == ("#clamp(n) { return n; }\nstatic { Object.defineProperty(this, "
                   "'__codequorum_private', { value: function (...a) { return "
                   "this.#clamp(...a); } }); }")
    fixed = with_private_caller("static #sign(n) { return 1; }", "Stack.#sign")
    assert "'__codequorum_private_static'" in fixed and "(...a) => this.#sign(...a)" in fixed
    assert with_private_caller("clamp(n) { return n; }", "Stack.clamp") == \
        "clamp(n) { return n; }"
    assert with_private_caller("x", "Stack.#a(); evil") == "x"  # no name, nothing added
