"""TypeScript types blanked to JavaScript; decorators blanked; a module declared by a
string refused."""

from __future__ import annotations

import pytest

from codequorum.behaviour.runtimes.ts_strip import (
    NotStrippable,
    decorators,
    package_imports,
    script_form,
    strip_types,
)


def test_types_casts_and_interfaces_are_blanked_in_place() -> None:
    code = ("interface P { x: number }\n"
            "function f<T>(a: number, b?: string): number { return (a as number) + b!.length; }")
    out = strip_types(code)
    assert len(out) == len(code) and out.count("\n") == 1
    assert "".join(out.split()) == "functionf(a,b){return(a)+b.length;}"


def test_syntax_with_run_time_meaning_is_refused() -> None:
    with pytest.raises(NotStrippable):
        strip_types("module 'm' { }")


def test_decorators_are_blanked_and_named() -> None:
    """A version runs undecorated: class, method, property and parameter decorators are
    blanked, an ``export`` they stand before kept; :func:`decorators` names them."""
    code = ("@Injectable({ providedIn: 'root' })\nexport class S {\n"
            "  @Input() name: string = 'a';\n"
            "  constructor(@Inject(TOKEN) private t: number) {}\n"
            "  @memoize\n  twice(x: number) { return 2 * x; }\n}\n")
    out = strip_types(code)
    assert out.count("\n") == code.count("\n")  # lines stay where they were
    assert "".join(out.split()) == ("exportclassS{name='a';constructor(t){this.t=t;}"
                                    "twice(x){return2*x;}}")
    assert decorators(code) == ["@Injectable({ providedIn: 'root' })", "@Input()",
                                "@Inject(TOKEN)"]  # the first three
    assert decorators("class C { m() { return 'a@b'; } }") == []


def test_module_syntax_becomes_a_script() -> None:
    code = ('import z from "./z";\nexport default function f(x) { return x; }\n'
            "export const g = (y) => y;\nexport { f as h };\n")
    assert [line.strip() for line in script_form(code).splitlines()] == [
        "", "function f(x) { return x; }", "const g = (y) => y;", ""]
    assert script_form("function f() {}") == "function f() {}"
    assert script_form("export default (x) => x;") == "module.exports = (x) => x;"
    assert script_form("export default function (x) {}") == "module.exports = function (x) {}"


def test_imports_of_the_node_modules_the_sandbox_gives_become_require_calls() -> None:
    code = ("import * as path from 'node:path';\nimport { createHash as h } from 'crypto';\n"
            "import fs from 'fs';\nfunction f(p) { return path.extname(p); }\n")
    lines = [line.strip() for line in script_form(code).splitlines()]
    assert lines == [
        "const __cq_import_0 = require('node:path'); const path = __cq_import_0;",
        "const __cq_import_1 = require('crypto'); const { createHash: h } = __cq_import_1;",
        "",  # fs is not given: blanked, a use of it reads an undefined name
        "function f(p) { return path.extname(p); }"]


def test_type_only_imports_exports_and_declarations_leave_nothing() -> None:
    """``import type``, ``export type { ... }`` and the ``export`` of an interface, a type
    alias or a ``declare`` leave no ``export`` keyword behind (a bare ``export`` is a
    syntax error that stopped a whole module from loading)."""
    code = ("import type { Unit } from './types';\nexport type { Unit } from './types';\n"
            "export interface U { a: number }\nexport type T = number;\n"
            "export declare const x: number;\nexport const y: number = 1;\n")
    stripped = strip_types(code)
    assert stripped.split("\n")[:5] == [" " * len(line) for line in code.split("\n")[:5]]
    assert stripped.split("\n")[5] == "export const y         = 1;"


def test_type_marked_names_and_type_star_exports_leave_nothing() -> None:
    """``import { type A, b }`` keeps ``b``; an import of types only is elided whole (as
    TypeScript compiles it: the file is not loaded); ``export type * from`` (TypeScript
    5.0, which the grammar reads as an error) is blanked, where before the whole file was
    refused and a module importing it did not load."""
    code = ("import { type A, b } from './c';\nimport { type T, type U } from './t';\n"
            "import D, { type E } from './d';\nexport type * from './fp/types.ts';\n"
            "export type * as ns from './n';\nexport { b, type A };\nexport const x: A = b;\n")
    lines = strip_types(code).split("\n")
    assert lines[0] == "import {         b } from './c';"
    assert lines[1:2] + lines[3:5] == [" " * len(line) for line in code.split("\n")[1:5]
                                       if not line.startswith("import D")]
    assert lines[2] == "import D, {        } from './d';"
    assert lines[5] == "export { b,        };"
    assert lines[6] == "export const x    = b;"
    with pytest.raises(NotStrippable):  # any other error still refuses the file
        strip_types("export type * from './a';\nconst = 1;\n")


def test_a_file_nested_thousands_deep_is_stripped() -> None:
    """A TypeScript file of the workspace (a helper the module imports) may nest 50,000
    deep: stripping it recursed, and RecursionError cost its module's function the whole
    analysis."""
    code = "const x: number = " + "(" * 50_000 + "1 as number" + ")" * 50_000 + ";"
    assert strip_types(code) == ("const x         = " + "(" * 50_000 + "1          "
                                 + ")" * 50_000 + ";")


def test_an_enum_is_the_object_typescript_emits_on_its_own_lines() -> None:
    code = "export enum E {\n  A,\n  B = 5,\n  C,\n  D = 'd',\n}\nconst x = 1;\n"
    out = strip_types(code)
    assert out.count("\n") == code.count("\n") and out.splitlines()[-1] == "const x = 1;"
    assert 'E[E["A"] = 0] = "A";' in out and 'E[E["C"] = 6] = "C";' in out
    assert "E[\"D\"] = 'd';" in out and "enum" not in out


def test_overload_signatures_are_types_and_parameter_properties_assignments() -> None:
    code = ("export function p(a: string): string;\nexport function p(a: any): string "
            "{ return a; }\nclass S extends B { constructor(private readonly x: number, "
            "public y?: number) { super(); } }")
    out = strip_types(code)
    assert out.splitlines()[0].strip() == ""
    assert "function p(a     )" in out
    assert "{ super(); this.x = x; this.y = y; }" in out and "private" not in out


@pytest.mark.parametrize(("code", "left"), [
    ("function f(this: Window, a: number) { return a; }", "function f(" + " " * 14 + "a"),
    ("let x!: number;", "let x  "),
    ("class C { [key: string]: any; f() { return 1; } }", "class C {" + " " * 19 + ";"),
])
def test_this_parameters_definite_assignments_and_index_signatures_are_types(
        code: str, left: str) -> None:
    assert strip_types(code).startswith(left)


def test_a_namespace_is_the_function_typescript_wraps_it_in_on_its_own_lines() -> None:
    code = ("export namespace A.B {\n  export const x: number = 1;\n  export function f() {}\n"
            "  export namespace C { export let z = x; }\n  interface I {}\n}\nconst y = 2;\n")
    out = strip_types(code)
    assert out.count("\n") == code.count("\n") and out.splitlines()[-1] == "const y = 2;"
    lines = [line.strip() for line in out.splitlines()]
    assert lines[0] == ("export var A; (function (A) { let B; (function (B) {")
    assert lines[1].startswith('let x         = 1; Object.defineProperty(B, "x", { get() '
                               "{ return x; }, set(__codequorum_value) { x = "
                               "__codequorum_value; }")
    assert lines[2] == "function f() {} B.f = f;"
    assert lines[3].startswith("let C; (function (C) { let z = x; Object.defineProperty(C, ")
    assert lines[3].endswith("})(C = B.C || (B.C = {}));")
    assert lines[4] == ""
    assert lines[5] == "})(B = A.B || (A.B = {})); })(A || (A = {}));"


def test_a_declared_namespace_leaves_nothing() -> None:
    code = "declare namespace D { const q: number; }\n"
    assert strip_types(code).strip() == ""


def test_names_imported_from_packages_are_read_with_their_specifiers() -> None:
    code = ("import _ from 'lodash';\nimport { sum as s, max } from 'lodash';\n"
            "import * as path from 'node:path';\nimport x from './x';\n"
            "import { readFileSync } from 'node:fs';\n"
            "import type { T } from 'types';\nimport def, { a } from 'pkg';\nimport 'side';\n")
    assert package_imports(code, "typescript") == {
        "_": "lodash", "s": "lodash", "max": "lodash", "readFileSync": "node:fs", "def": "pkg",
        "a": "pkg"}  # node:path is given to a version run alone


def test_typescripts_commonjs_forms_are_written_as_it_emits_them() -> None:
    code = ("import fs = require('fs');\nimport type T = require('t');\n"
            "namespace B { export const C = 1; }\nimport A = B.C;\nexport = A;\n")
    lines = [line.strip() for line in strip_types(code).splitlines()]
    assert lines[0] == "const fs = require('fs');"
    assert lines[1] == ""  # a type only
    assert lines[3:] == ["const A = B.C;", "module.exports = A;"]
