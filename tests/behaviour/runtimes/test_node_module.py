"""JavaScript and TypeScript versions in their module, in the real Node sandbox: helpers,
constants, relative ESM and CommonJS imports, a pure-JS package, a class's method; and
what the view never gives (a link to ``.env``, a path out of the workspace)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from codequorum.behaviour.dynamic_analysis import DynamicOptions, run_dynamic
from codequorum.behaviour.runtimes.node import JAVASCRIPT, TYPESCRIPT
from codequorum.behaviour.sandbox.limits import Limits
from codequorum.core.model import ModuleContext, Receiver, TestCase, VersionSet
from codequorum.ingest.js_module_view import JsModuleView, js_module_view

MAIN = """import { double } from './util';
import pad from 'left-pad';
const { inc } = require('./lib/cjs');
const OFFSET: number = 10;
function helper(x: number): number { return x + OFFSET; }
export function target(x: number): number { return x; }
export function padded(s: string): string { return s; }
export class Counter {
  step(x: number): number { return x; }
}
"""


def _workspace(root: Path) -> Path:
    (root / "lib").mkdir()
    (root / "util.ts").write_text("export function double(x: number) { return x * 2; }\n")
    (root / "lib" / "cjs.js").write_text("module.exports = { inc: (x) => x + 1 };\n")
    pkg = root / "node_modules" / "left-pad"
    pkg.mkdir(parents=True)
    (pkg / "package.json").write_text('{"name": "left-pad", "main": "lib/pad.js"}')
    (pkg / "lib").mkdir()
    (pkg / "lib" / "pad.js").write_text(
        "module.exports = function pad(s, n) { return ' '.repeat(n - s.length) + s; };\n")
    (root / "main.ts").write_text(MAIN)
    return root / "main.ts"


def _subpath_workspace(root: Path) -> Path:
    """A package in a monorepo whose module imports through its ``imports`` field."""
    app = root / "packages" / "app"
    (app / "src" / "internal").mkdir(parents=True)
    (app / "cjs").mkdir()
    (root / "packages" / "shared").mkdir()
    (root / "packages" / "shared" / "x.js").write_text("module.exports = 1;\n")
    (app / "package.json").write_text(json.dumps({"name": "app", "imports": {
        "#internal/*": "./src/internal/*",
        "#math": {"types": "./math.d.ts", "node": {"import": "./cjs/math.cjs"},
                  "default": "./nowhere.js"},
        "#pad": "left-pad",
        "#shared": "../shared/x.js"}}))
    (app / "src" / "internal" / "clamp.js").write_text(
        "export const clamp = (x, lo, hi) => Math.min(hi, Math.max(lo, x));\n")
    (app / "cjs" / "math.cjs").write_text("exports.square = (x) => x * x;\n")
    pkg = root / "node_modules" / "left-pad"
    pkg.mkdir(parents=True)
    (pkg / "package.json").write_text('{"name": "left-pad", "main": "index.js"}')
    (pkg / "index.js").write_text("module.exports = (s, n) => String(s).padStart(n, '0');\n")
    (app / "src" / "main.js").write_text(
        "import { clamp } from '#internal/clamp.js';\nconst { square } = require('#math');\n"
        "import pad from '#pad';\nexport function area(x) { return x; }\n")
    return app / "src" / "main.js"


def _call(n: int, expected: object, name: str = "t") -> TestCase:
    return TestCase("call", args=(n,), expected=expected, has_expected=True, name=name)


def _context(root: Path, qualified: str, kind: str = "function") -> ModuleContext:
    path = root / "main.ts"
    return js_module_view(path.read_text(), path, root).context(qualified, kind)


def test_a_function_sees_its_helpers_constants_and_imports(node_sandboxed: object,
                                                           tmp_path: Path) -> None:
    _workspace(tmp_path)
    context = _context(tmp_path, "target")
    version = "export function target(x: number): number { return helper(double(inc(x))); }"
    result = TYPESCRIPT.run(version, [_call(1, 14)], "target", module=context)
    assert result.status == "ok" and result.module is not None and result.module.loaded
    assert [t.passed for t in result.tests] == [True]


def test_a_package_of_node_modules_is_loaded(node_sandboxed: object, tmp_path: Path) -> None:
    _workspace(tmp_path)
    version = "function padded(s: string): string { return pad(s, 4); }"
    test = TestCase("call", args=("ab",), expected="  ab", has_expected=True, name="p")
    result = TYPESCRIPT.run(version, [test], "padded", module=_context(tmp_path, "padded"))
    assert [t.passed for t in result.tests] == [True]


def test_a_method_runs_in_its_class(node_sandboxed: object, tmp_path: Path) -> None:
    _workspace(tmp_path)
    context = _context(tmp_path, "Counter.step", "method")
    assert context.kind == "method"
    version = ("step(x: number): number "
               "{ return double(x) + OFFSET + this.constructor.name.length; }")
    result = TYPESCRIPT.run(version, [_call(3, 23)], "Counter.step", module=context)
    assert [t.passed for t in result.tests] == [True]  # 6 + 10 + len("Counter")


def test_a_link_to_env_is_never_read_and_the_module_is_not_run(node_sandboxed: object,
                                                               tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("TOKEN=sk-very-secret\n")
    os.symlink(tmp_path / ".env", tmp_path / "config.js")
    path = tmp_path / "app.js"
    path.write_text("const cfg = require('./config');\nfunction f(x) { return x; }\n")
    context = js_module_view(path.read_text(), path, tmp_path).context("f")
    assert all("sk-very-secret" not in text for _p, text in context.files)
    assert [p for p, _ in context.files] == ["app.js"]
    assert any(n.startswith("config.js left out") for n in context.notes)
    assert any("not-run-in-module: `app.js` loads `./config`" in n for n in context.notes)
    result = JAVASCRIPT.run("function f(x) { return x; }", [_call(1, 1)], "f",
                            module=context)
    assert result.tests == [] and result.module is not None
    assert not result.module.loaded and not result.module.ran_alone
    assert "Cannot find module './config'" in result.module.detail


def test_a_package_pnpm_installed_loads_through_its_link_and_its_store_holds_no_secret(
        node_sandboxed: object, tmp_path: Path) -> None:
    """pnpm's layout: ``node_modules/left-pad`` links into ``node_modules/.pnpm``; the
    package loads with its own dependency, a link beside it in the store (before: refused
    as a hidden folder, and the module did not run). A link in the store to the
    workspace's ``.env`` is still refused where it leads."""
    (tmp_path / ".env").write_text("TOKEN=sk-very-secret\n")
    store = tmp_path / "node_modules" / ".pnpm" / "left-pad@1.3.0" / "node_modules" / "left-pad"
    store.mkdir(parents=True)
    (store / "package.json").write_text('{"name": "left-pad", "main": "index.js"}')
    (store / "index.js").write_text("module.exports = (s, n) => String(s).padStart(n, '0');\n"
                                    "module.exports.cfg = require('./config');\n")
    os.symlink(tmp_path / ".env", store / "config.js")
    os.symlink(Path(".pnpm/left-pad@1.3.0/node_modules/left-pad"),
               tmp_path / "node_modules" / "left-pad")
    path = tmp_path / "main.ts"
    path.write_text("import pad from 'left-pad';\n"
                    "export function padded(s: string): string { return s; }\n")
    view = js_module_view(path.read_text(), path, tmp_path)
    assert [p for p, _ in view.files] == ["main.ts", "node_modules/left-pad/package.json",
                                          "node_modules/left-pad/index.js"]
    assert all("sk-very-secret" not in text for _p, text in view.files)
    assert any(n.startswith("node_modules/left-pad/config.js left out") for n in view.notes)
    version = "export function padded(s: string): string { return pad(s, 4); }"
    result = TYPESCRIPT.run(version, [TestCase("call", args=("7",), expected="0007",
                                               has_expected=True, name="p")],
                            "padded", module=view.context("padded"))
    assert result.module is not None and not result.module.loaded
    assert "Cannot find module './config'" in result.module.detail
    # its own dependency, a link beside it in the store, found as Node finds it
    dep = tmp_path / "node_modules" / ".pnpm" / "repeat-str@1.0.0" / "node_modules" / "repeat-str"
    dep.mkdir(parents=True)
    (dep / "package.json").write_text('{"name": "repeat-str", "main": "index.js"}')
    (dep / "index.js").write_text("module.exports = (c, n) => c.repeat(n);\n")
    os.symlink(Path("../../repeat-str@1.0.0/node_modules/repeat-str"), store.parent / "repeat-str")
    (store / "index.js").write_text("const rep = require('repeat-str');\nmodule.exports = "
                                    "(s, n) => rep('0', Math.max(0, n - s.length)) + s;\n")
    view = js_module_view(path.read_text(), path, tmp_path)
    assert view.aliases == (("node_modules/left-pad", "repeat-str",
                             "node_modules/.pnpm/left-pad@1.3.0/node_modules/repeat-str/index.js"),)
    result = TYPESCRIPT.run(version, [TestCase("call", args=("7",), expected="0007",
                                               has_expected=True, name="p")],
                            "padded", module=view.context("padded"))
    assert result.module is not None and result.module.loaded, result.module
    assert [t.passed for t in result.tests] == [True]


def test_a_require_out_of_the_workspace_finds_nothing(node_sandboxed: object,
                                                      tmp_path: Path) -> None:
    path = tmp_path / "app.js"
    path.write_text("function f(x) { return x; }\n")
    context = js_module_view(path.read_text(), path, tmp_path).context("f")
    version = "function f(x) { return String(require('../../etc/passwd')); }"
    result = JAVASCRIPT.run(version, [_call(1, 1)], "f", module=context)
    assert result.module is not None and result.module.loaded
    [outcome] = result.tests
    assert outcome.exc_type == "Error" and "Cannot find module '../../etc/passwd'" in (
        outcome.exc_message or "")


def test_a_set_whose_module_does_not_load_runs_alone_unless_it_uses_the_module(
        node_sandboxed: object, tmp_path: Path) -> None:
    """As a Python version does: versions that need no name of their module run alone,
    each with its own helpers; one that reads a name of the module leaves the set unrun."""
    path = tmp_path / "app.js"
    path.write_text("const fs = require('fs');\nconst LIMIT = 3;\n"
                    "/** @example f(1) // => 2 */\nfunction f(x) { return x + 1; }\n")
    context = js_module_view(path.read_text(), path, tmp_path).context("f")
    ss = VersionSet.from_codes("app", ["function f(x) { return x + 1; }",
                                      "const one = () => 1;\nfunction f(x) { return one() + x; }",
                                      "function f(x) { return x * 2; }"],
                              language="javascript", entry_point="f",
                              prompt="/** @example f(1) // => 2 */")
    ss.module = context
    report = run_dynamic(ss, DynamicOptions())
    assert report.rules.module_problem is not None
    assert report.rules.module_problem.startswith("the module `app.js` did not load")
    assert "Cannot find module 'fs'" in report.rules.module_problem
    assert report.rules.module_problem.endswith(
        "the versions ran without it (none of them uses a name from it)")
    assert report.rules.not_run is None
    assert [outcomes[0] for outcomes in report.outcomes] == [("2", None, None)] * 3
    assert report.output_clusters == [[0, 1], [2]]  # ``x * 2`` parts on other inputs
    uses = VersionSet.from_codes("app", ["function f(x) { return x + LIMIT; }",
                                        "function f(x) { return x + 1; }"],
                                 language="javascript", entry_point="f",
                                 prompt="/** @example f(1) // => 2 */")
    uses.module = context
    unrun = run_dynamic(uses, DynamicOptions())
    assert unrun.rules.module_problem is not None
    assert unrun.rules.module_problem.startswith("not run: the module `app.js` did not load")
    assert unrun.rules.module_problem.endswith("the versions use LIMIT from it")
    assert all(c.pass_rate is None for c in unrun.candidates)


def test_a_module_importing_packages_the_sandbox_lacks_loads_and_their_use_raises(
        node_sandboxed: object, tmp_path: Path) -> None:
    """An Angular service imports ``@angular/core`` and decorates its class: the module
    loads (the package is absent, its names are there), a method that never uses the package
    runs, and one that does raises naming it; Node's own modules are still refused."""
    path = tmp_path / "price.service.ts"
    path.write_text(
        "import { Injectable } from '@angular/core';\nimport { map } from 'rxjs/operators';\n"
        "@Injectable({ providedIn: 'root' })\nexport class PriceService {\n"
        "  discount(price: number, rate: number): number { return price * (1 - rate); }\n"
        "  piped(n: number): number { map((x: number) => x); return n; }\n}\n")
    view = js_module_view(path.read_text(), path, tmp_path)
    ss = VersionSet.from_codes(
        "p", ["discount(price: number, rate: number): number { return price * (1 - rate); }",
              "discount(price: number, rate: number): number { return price * rate; }"],
        language="typescript", entry_point="PriceService.discount",
        prompt="/** @example discount(100, 0.25) // => 75 */")
    ss.module = view.context("PriceService.discount", "method")
    report = run_dynamic(ss, DynamicOptions())
    assert report.rules.module_problem is None
    assert [c.pass_rate for c in report.candidates][1] == 0.0
    assert report.candidates[0].pass_rate == 1.0
    assert ("packages not in the sandbox (a use of them raises): @angular/core, "
            "rxjs/operators") in report.notes
    used = VersionSet.from_codes(
        "q", ["piped(n: number): number { map((x: number) => x); return n; }"],
        language="typescript", entry_point="PriceService.piped",
        prompt="/** @example piped(1) // => 1 */")
    used.module = view.context("PriceService.piped", "method")
    ran = run_dynamic(used, DynamicOptions())
    first = ran.outcomes[0][0]
    assert first is not None and first[1] == "Error"
    assert "'rxjs/operators.map' of the package 'rxjs/operators', which is not in the " \
        "sandbox" in str(first[2])


def test_a_set_in_its_module_runs_and_passes(node_sandboxed: object, tmp_path: Path) -> None:
    (tmp_path / "step.js").write_text("exports.STEP = 1;\n")
    path = tmp_path / "app.js"
    path.write_text("const { STEP } = require('./step');\nfunction f(x) { return x; }\n")
    ss = VersionSet.from_codes("app", ["function f(x) { return x + 1; }",
                                      "function f(x) { return x + STEP; }"],
                              language="javascript", entry_point="f",
                              prompt="/** @example f(1) // => 2 */")
    ss.module = js_module_view(path.read_text(), path, tmp_path).context("f")
    report = run_dynamic(ss, DynamicOptions())
    assert report.rules.module_problem is None
    assert [c.pass_rate for c in report.candidates] == [1.0, 1.0]


@pytest.mark.parametrize(("top", "said"), [
    ("while (true) {}", "Script execution timed out"),
    ("require('child_process').execSync('id');", "Cannot find module 'child_process'"),
    ("process.exit(3);", "process.exit is not a function"),
    ("process.binding('spawn_sync');", "process.binding is not a function"),
])
def test_a_hostile_module_top_level_is_not_loaded(node_sandboxed: object, tmp_path: Path,
                                                  top: str, said: str) -> None:
    path = tmp_path / "app.js"
    path.write_text(f"{top}\nfunction f(x) {{ return x; }}\n")
    context = js_module_view(path.read_text(), path, tmp_path).context("f")
    limits = Limits(wall_seconds=20, cpu_seconds=20, test_seconds=1.0)
    result = JAVASCRIPT.run("function f(x) { return x; }", [_call(1, 1)], "f", limits,
                            module=context)
    assert result.tests == [] and result.module is not None and not result.module.loaded
    assert said in result.module.detail


def test_an_object_literal_s_method_and_a_static_method_run_where_they_are(
        node_sandboxed: object, tmp_path: Path) -> None:
    path = tmp_path / "app.js"
    path.write_text("const SCALE = 3;\nconst util = {\n  triple(x) { return x; },\n};\n"
                    "class A { static make(n) { return n; } }\n")
    view = js_module_view(path.read_text(), path, tmp_path)
    obj = JAVASCRIPT.run("triple(x) { return x * SCALE; }", [_call(2, 6)], "util.triple",
                         module=view.context("util.triple", "method"))
    static = JAVASCRIPT.run("static make(n) { return new A() instanceof A ? n + 1 : 0; }",
                            [_call(2, 3)], "A.make", module=view.context("A.make", "method"))
    assert [t.passed for t in obj.tests + static.tests] == [True, True]


#: A module shaped like tiny-invariant's source: its top level reads ``process.env``.
INVARIANT = """const isProduction: boolean = process.env.NODE_ENV === 'production';
const prefix: string = 'Invariant failed';
export default function invariant(condition: any, message?: string): asserts condition {
  if (condition) {
    return;
  }
  if (isProduction) {
    throw new Error(prefix);
  }
  throw new Error(message ? `${prefix}: ${message}` : prefix);
}
"""


def test_a_module_reading_its_environment_at_the_top_level_loads_with_a_neutral_one(
        node_sandboxed: object, tmp_path: Path) -> None:
    """``process.env.NODE_ENV`` at a module's top level reads an empty environment (as a
    Node started without variables does), so the module loads and its versions run; the
    values the versions part on read in JavaScript's words (``undefined``)."""
    path = tmp_path / "invariant.ts"
    path.write_text(INVARIANT)
    real = INVARIANT[INVARIANT.index("export default"):]
    bug = real.replace("if (condition) {", "if (condition !== undefined) {")
    probe = ("export default function invariant(c: any): any {\n  return [typeof process.env, "
             "process.env.NODE_ENV, process.platform, typeof process.exit, isProduction];\n}\n")
    ss = VersionSet.from_codes("inv", [real, real.replace("if (condition)", "if (!!condition)"),
                                       bug, probe], language="typescript",
                               entry_point="invariant")
    ss.tests = [TestCase("call", args=(False, "boom"), name="invariant(false, \"boom\")")]
    ss.module = js_module_view(INVARIANT, path, tmp_path).context("invariant")
    report = run_dynamic(ss, DynamicOptions())
    assert report.rules.module_problem is None
    firsts = [row[0] for row in report.outcomes]
    assert [o[:2] if o else None for o in firsts[:3]] == [
        (None, "Error"), (None, "Error"), ('{"$":"undefined"}', None)]
    assert firsts[3] is not None
    assert firsts[3][0] == '["object",{"$":"undefined"},"linux","undefined",false]'
    div = report.rules.divergence
    assert div is not None and "undefined" in (div.shown_a, div.shown_b)
    assert not any('{"$"' in s for s in (div.shown_a, div.shown_b))


def test_a_method_named_by_its_short_name_is_found_where_its_module_puts_it(
        node_sandboxed: object, tmp_path: Path) -> None:
    """The front ends name a set by the method's own name (``triple``); in its module the
    version is found where the function lives (``util.triple``), not as a global."""
    path = tmp_path / "app.js"
    path.write_text("const SCALE = 3;\nconst util = {\n  triple(x) { return x; },\n};\n"
                    "class A { static make(n) { return n; } }\n")
    view = js_module_view(path.read_text(), path, tmp_path)
    obj = JAVASCRIPT.run("triple(x) { return x * SCALE; }", [_call(2, 6)], "triple",
                         module=view.context("util.triple", "method"))
    static = JAVASCRIPT.run("static make(n) { return n + 1; }", [_call(2, 3)], "make",
                            module=view.context("A.make", "method"))
    assert obj.module is not None and obj.module.loaded, obj.module
    assert [t.passed for t in obj.tests + static.tests] == [True, True]


def test_a_typescript_module_with_type_only_imports_and_a_json_import_loads(
        node_sandboxed: object, tmp_path: Path) -> None:
    """``import type`` of a package the workspace does not have, ``export interface`` in the
    imported types file and a default import of a JSON file: the module loads, the version
    reads the JSON's data."""
    (tmp_path / "types.ts").write_text("export interface Unit { name: string; factor: number }\n")
    (tmp_path / "units.json").write_text('{"units": [{"name": "km", "factor": 1000}]}')
    path = tmp_path / "convert.ts"
    path.write_text("import type { Unit } from './types';\n"
                    "import type { Request } from 'express';\n"
                    "import data from './units.json';\nconst UNITS: Unit[] = data.units;\n"
                    "export function toMeters(v: number, unit: string): number { return v; }\n")
    view = js_module_view(path.read_text(), path, tmp_path)
    assert not view.notes  # nothing of `express` is needed at run time
    version = ("export function toMeters(v: number, unit: string): number {\n"
               "  return v * UNITS.find((u) => u.name === unit)!.factor;\n}\n")
    result = TYPESCRIPT.run(version, [TestCase("call", args=(2, "km"), expected=2000,
                                               has_expected=True, name="t")],
                            "toMeters", module=view.context("toMeters"))
    assert result.module is not None and result.module.loaded, result.module
    assert [t.passed for t in result.tests] == [True]


def test_an_esm_only_package_with_nested_import_conditions_loads(
        node_sandboxed: object, tmp_path: Path) -> None:
    """A package of ``node_modules`` that only says where its ``import`` entry is, under
    nested conditions (``{"import": {"types": ..., "default": ...}}``), as ESM-only packages
    publish it: the view and the sandbox's loader both find its entry."""
    pkg = tmp_path / "node_modules" / "yocto-pad"
    pkg.mkdir(parents=True)
    (pkg / "package.json").write_text(json.dumps({
        "name": "yocto-pad", "type": "module",
        "exports": {"import": {"types": "./dist/index.d.ts", "default": "./dist/index.mjs"}}}))
    (pkg / "dist").mkdir()
    (pkg / "dist" / "index.mjs").write_text("export default function pad(s, n) "
                                   "{ return s.padStart(n, '0'); }\n")
    path = tmp_path / "app.mjs"
    path.write_text("import pad from 'yocto-pad';\nexport function code(n) { return n; }\n")
    view = js_module_view(path.read_text(), path, tmp_path)
    assert "node_modules/yocto-pad/dist/index.mjs" in dict(view.files) and not view.notes
    result = JAVASCRIPT.run("export function code(n) { return pad(String(n), 4); }",
                            [TestCase("call", args=(7,), expected="0007", has_expected=True,
                                      name="t")], "code", module=view.context("code"))
    assert result.module is not None and result.module.loaded, result.module
    assert [t.passed for t in result.tests] == [True]


def test_subpath_imports_load_in_the_sandbox_and_one_out_of_its_package_does_not(
        node_sandboxed: object, tmp_path: Path) -> None:
    """``#internal/*``, a conditional ``#math`` and a ``#pad`` naming a package load through
    the sandbox's own loader; a ``#shared`` mapped through ``..`` finds nothing there even
    when the file it names is in the view."""
    path = _subpath_workspace(tmp_path)
    view = js_module_view(path.read_text(), path, tmp_path)
    version = "export function area(x) { return pad(square(clamp(x, 0, 9)), 3); }"
    tests = [TestCase("call", args=(n,), expected=want, has_expected=True, name=str(n))
             for n, want in ((3, "009"), (20, "081"), (-4, "000"))]
    result = JAVASCRIPT.run(version, tests, "area", module=view.context("area"))
    assert result.module is not None and result.module.loaded, result.module
    assert [t.passed for t in result.tests] == [True, True, True]
    text = ("const x = require('../../shared/x.js');\nconst y = require('#shared');\n"
            "export function area(v) { return v; }\n")
    escaping = js_module_view(text, path, tmp_path)
    assert "packages/shared/x.js" in dict(escaping.files)
    result = JAVASCRIPT.run("export function area(v) { return v; }", [_call(1, 1)], "area",
                            module=escaping.context("area"))
    assert result.module is not None and not result.module.loaded
    assert "Cannot find module '#shared'" in result.module.detail


def test_a_typescript_import_that_names_the_javascript_it_compiles_to_loads(
        node_sandboxed: object, tmp_path: Path) -> None:
    """``import {f} from './helpers.js'`` in a ``.ts`` file, ``helpers.ts`` beside it (as
    TypeScript with ``node16`` or ``bundler`` resolution writes it), and ``import type``
    from ``./types.js``: the view holds ``helpers.ts``, the sandbox's loader finds it, and
    the version calls its helper."""
    (tmp_path / "types.ts").write_text("export type Options = { readonly separator?: string };\n")
    (tmp_path / "helpers.ts").write_text(
        "export const joined = (parts: string[], sep: string): string => parts.join(sep);\n")
    path = tmp_path / "decamelize.ts"
    path.write_text("import type {Options} from './types.js';\n"
                    "import {joined} from './helpers.js';\n\n"
                    "export default function decamelize(text: string, "
                    "{separator = '_'}: Options = {}): string {\n"
                    "  return joined(text.split(/(?=[A-Z])/), separator).toLowerCase();\n}\n")
    view = js_module_view(path.read_text(), path, tmp_path)
    assert "helpers.ts" in dict(view.files) and not view.notes
    version = ("export default function decamelize(text: string, "
               "{separator = '_'}: Options = {}): string {\n"
               "  return joined(text.replace(/([a-z])([A-Z])/g, '$1 $2').split(' '), "
               "separator).toLowerCase();\n}\n")
    result = TYPESCRIPT.run(version, [TestCase("call", args=("unicornRainbow",),
                                               expected="unicorn_rainbow", has_expected=True,
                                               name="t")],
                            "decamelize", module=view.context("decamelize"))
    assert result.module is not None and result.module.loaded, result.module
    assert [t.passed for t in result.tests] == [True]


def test_node_buffer_and_url_are_the_contexts_own(node_sandboxed: object,
                                                  tmp_path: Path) -> None:
    """``buffer`` and ``url`` (``node:`` too) load as the context's globals, with no note;
    Node's other modules still say the module does not load."""
    path = tmp_path / "net.ts"
    path.write_text("import { Buffer } from 'node:buffer';\nimport url from 'url';\n"
                    "const { URLSearchParams: Q } = require('node:url');\n"
                    "export function host(u: string): string { return u; }\n")
    context = js_module_view(path.read_text(), path, tmp_path).context("host")
    assert context.notes == ()
    version = ("export function host(u: string): string {\n"
               "  const h = new url.URL(u).host;\n"
               "  return Buffer.from(h).toString('hex') + new Q('a=1').get('a'); }")
    test = TestCase("call", args=("https://ab.c/x",), expected="61622e631", has_expected=True)
    result = TYPESCRIPT.run(version, [test], "host", module=context)
    assert result.module is not None and result.module.loaded, result.module
    assert [t.passed for t in result.tests] == [True]
    other = tmp_path / "fsy.js"
    other.write_text("const fs = require('node:fs');\nfunction f(x) { return x; }\n")
    notes = js_module_view(other.read_text(), other, tmp_path).context("f").notes
    assert any("loads `node:fs`, which the sandbox does not give" in n for n in notes)


#: A TypeScript module whose functions live in namespaces (one nested, ``A.B``), one of them
#: a class's method; the namespace's own code calls the function through the namespace.
SPACES = """export namespace Text {
  const SEP: string = "-";
  /** @example slugify("Hello World") // => "hello-world" */
  export function slugify(s: string): string { return s; }
  export const shout = (s: string): string => slugify(s).toUpperCase();
}
namespace Geo.Plane {
  export const UNIT = 2;
  export function area(w: number, h: number): number { return w; }
  export class Box {
    constructor(public side: number) {}
    volume(): number { return 0; }
  }
  namespace Hidden { function twice(x: number): number { return x; } }
}
"""


def test_a_namespace_s_function_runs_in_its_namespace(node_sandboxed: object,
                                                      tmp_path: Path) -> None:
    """Versions of ``Text.slugify`` replace the namespace's function: they read the
    namespace's own names, the namespace's other functions call them, and the set's example
    grades them."""
    path = tmp_path / "text.ts"
    path.write_text(SPACES)
    view = js_module_view(SPACES, path, tmp_path)
    ss = VersionSet.from_codes(
        "text", ["export function slugify(s: string): string "
                 "{ return s.toLowerCase().split(' ').join(SEP); }",
                 "function slugify(s: string): string { return s.toLowerCase(); }"],
        language="typescript", entry_point="Text.slugify",
        prompt='/** @example slugify("Hello World") // => "hello-world" */')
    ss.module = view.context("Text.slugify")
    report = run_dynamic(ss, DynamicOptions())
    assert report.rules.module_problem is None
    assert [c.pass_rate for c in report.candidates] == [1.0, 0.0]
    assert not any("outside `Text`" in n for n in report.notes)
    shout = "export const shout = (s: string): string => slugify(s).toUpperCase() + SEP;"
    assert _in_namespace(view, "Text.shout", shout, ("a b",)) == "A B-"


def _in_namespace(view: JsModuleView, name: str, version: str, args: tuple[object, ...],
                  kind: str = "function", receiver: Receiver | None = None) -> object:
    """What one version of a function of ``SPACES`` returns on one call in its module."""
    test = TestCase("call", args=args, name="t", receiver=receiver)
    result = TYPESCRIPT.run(version, [test], name, module=view.context(name, kind))
    assert result.module is not None and result.module.loaded, result.module
    [outcome] = result.tests
    assert outcome.exc_type is None, outcome
    return json.loads(str(outcome.output))


def test_a_nested_namespace_s_function_and_method_run_where_they_are(
        node_sandboxed: object, tmp_path: Path) -> None:
    """``namespace Geo.Plane``: its function is found as ``Geo.Plane.area`` and reads the
    namespace's exported constant; its class's method runs on an instance of the class."""
    path = tmp_path / "text.ts"
    path.write_text(SPACES)
    view = js_module_view(SPACES, path, tmp_path)
    area = "export function area(w: number, h: number): number { return w * h * UNIT; }"
    assert _in_namespace(view, "Geo.Plane.area", area, (2, 3)) == 12
    volume = "volume(): number { return this.side ** 3 + UNIT; }"
    assert _in_namespace(view, "Geo.Plane.Box.volume", volume, (), "method",
                         Receiver("Geo.Plane.Box", (2,))) == 10


def test_what_a_namespace_keeps_to_itself_runs_too(node_sandboxed: object,
                                                   tmp_path: Path) -> None:
    """A function of a namespace that neither it nor its outer namespace exports
    (``Geo.Plane.Hidden.twice``) is reached for the run, its helper first."""
    path = tmp_path / "text.ts"
    path.write_text(SPACES)
    view = js_module_view(SPACES, path, tmp_path)
    twice = ("const TIMES = UNIT;\n"
             "function twice(x: number): number { return x * TIMES; }")
    assert _in_namespace(view, "Geo.Plane.Hidden.twice", twice, (3,)) == 6


def test_a_module_importing_its_files_by_tsconfig_aliases_runs(node_sandboxed: object,
                                                               tmp_path: Path) -> None:
    """``@lib`` and ``@/lib/pad`` of the tsconfig's ``paths`` load in the sandbox as the
    parent resolved them; the version uses both."""
    from tests.ingest.test_js_module_view import alias_workspace

    path = alias_workspace(tmp_path)
    context = js_module_view(path.read_text(), path, tmp_path).context("slug")
    version = ("export function slug(u: User): string {\n"
               "  return pad([clean(u.first), clean(u.last)].join(SEP));\n}\n")
    user = {"$": "object", "v": [["first", " A "], ["last", "B"]]}
    test = TestCase("call", args=(user,), expected="a-b", has_expected=True, name="ab")
    result = TYPESCRIPT.run(version, [test], "slug", module=context)
    assert result.module is not None and result.module.loaded, result.module
    assert [(t.passed, t.output) for t in result.tests] == [(True, '"a-b"')]


def test_a_module_reading_import_meta_at_its_top_level_loads(node_sandboxed: object,
                                                             tmp_path: Path) -> None:
    """A Vite-style module (``import.meta.env``, ``import.meta.url``) loads as a script:
    ``env`` is empty, ``url`` the module's file in the view."""
    path = tmp_path / "src" / "config.ts"
    path.parent.mkdir()
    path.write_text("export const MODE = import.meta.env?.MODE ?? 'development';\n"
                    "const HERE = import.meta.url;\n"
                    "export function where(x: number): string { return MODE + x; }\n")
    context = js_module_view(path.read_text(), path, tmp_path).context("where")
    version = "export function where(x: number): string { return `${MODE}:${HERE}:${x}`; }"
    result = TYPESCRIPT.run(version, [_call(2, "development:file:///workspace/src/config.ts:2")],
                            "where", module=context)
    assert result.module is not None and result.module.loaded, result.module
    assert [t.passed for t in result.tests] == [True]


def test_a_method_using_its_classs_private_fields_runs_in_its_class(node_sandboxed: object,
                                                                    tmp_path: Path) -> None:
    """``this.#items`` names a field only its class declares: the version, a method alone,
    compiles with the private names declared on the wrapper's first line, and runs in the
    class (the module's own)."""
    path = tmp_path / "queue.js"
    path.write_text("export default class Queue {\n  #items = [];\n  #size = 0;\n"
                    "  enqueue(v) { this.#items.push(v); this.#size++; }\n"
                    "  peekOr(d) { return this.#size ? this.#items[0] : d; }\n}\n")
    context = js_module_view(path.read_text(), path, tmp_path).context("Queue.peekOr", "method")
    version = "peekOr(d) {\n  return this.#items.length ? this.#items.at(-1) : d;\n}\n"
    test = TestCase("call", args=(5,), name="q", receiver=Receiver(
        "Queue", steps=(("enqueue", (1,)), ("enqueue", (2,)))))
    result = JAVASCRIPT.run(version, [test], "peekOr", module=context)
    assert result.status == "ok", result.detail
    assert [t.output for t in result.tests] == ["2"]


def test_a_getter_runs_as_a_method_of_no_argument_in_its_class_and_alone(
        node_sandboxed: object, tmp_path: Path) -> None:
    """``get area()`` is found by its descriptor (never read on the prototype, where
    ``this.#w`` throws) and called on the instance the example builds."""
    path = tmp_path / "shape.ts"
    path.write_text(
        "export class Rect {\n  #w: number;\n  constructor(w: number, public h: number) {"
        " this.#w = w; }\n  /** @example new Rect(2, 3).area // => 6 */\n"
        "  get area(): number { return this.#w * this.h; }\n}\n")
    getters = ["get area(): number { return this.#w * this.h; }",
               "get area(): number { return this.#w + this.h; }"]
    ss = VersionSet.from_codes("a", getters, language="typescript", entry_point="Rect.area",
                               prompt="/** @example new Rect(2, 3).area // => 6 */")
    ss.module = js_module_view(path.read_text(), path, tmp_path).context("Rect.area", "method")
    report = run_dynamic(ss, DynamicOptions())
    assert report.rules.module_problem is None
    assert report.inputs[0]["label"] == "new Rect(2, 3).area"
    assert [outcomes[0] for outcomes in report.outcomes] == [("6", None, None), ("5", None, None)]
    assert [c.pass_rate for c in report.candidates] == [1.0, 0.0]
    whole = ["class Rect { constructor(w, h) { this.w = w; this.h = h; }\n"
             "  static get unit() { return new Rect(1, 1); }\n"
             "  get area() { return this.w * this.h; } }",
             "class Rect { constructor(w, h) { this.w = w; this.h = h; }\n"
             "  get area() { return this.w + this.h; } }"]
    alone = VersionSet.from_codes("b", whole, language="javascript", entry_point="Rect.area",
                                  prompt="/** @example new Rect(2, 3).area // => 6 */")
    ran = run_dynamic(alone, DynamicOptions())
    assert [outcomes[0] for outcomes in ran.outcomes] == [("6", None, None), ("5", None, None)]


def test_a_getter_that_never_returns_is_stopped_while_it_is_looked_up(
        node_sandboxed: object, tmp_path: Path) -> None:
    """Finding an object's getter reads it (a namespace's export binding gives its
    function that way): the read runs under the per-test limit, and the run says why."""
    path = tmp_path / "s.js"
    path.write_text("export const shape = {\n  w: 2,\n  get area() { return this.w * 2; },\n};\n")
    ss = VersionSet.from_codes("a", ["get area() { while (true) {} }"], language="javascript",
                               entry_point="shape.area",
                               prompt="/** @example shape.area // => 4 */")
    ss.module = js_module_view(path.read_text(), path, tmp_path).context("shape.area", "method")
    report = run_dynamic(ss, DynamicOptions(test_timeout_seconds=1.0))
    assert report.rules.module_problem is not None
    assert "`shape.area` raised while it was looked up in `s.js`: Error: Script execution " \
        "timed out" in report.rules.module_problem


def test_a_constructor_runs_with_new_and_gives_the_instance_it_makes(
        node_sandboxed: object, tmp_path: Path) -> None:
    """``Range.constructor``: each input is ``new Range(...)`` (never a call on another
    instance), its value the instance's fields, in its class and alone."""
    path = tmp_path / "range.ts"
    path.write_text("export class Range {\n  lo: number;\n  hi: number;\n"
                    "  constructor(a: number, b: number) {\n    this.lo = Math.min(a, b);\n"
                    "    this.hi = Math.max(a, b);\n  }\n}\n")
    versions = ["constructor(a: number, b: number) {\n    this.lo = Math.min(a, b);\n"
                "    this.hi = Math.max(a, b);\n  }",
                "constructor(a: number, b: number) {\n    this.lo = a;\n    this.hi = b;\n  }"]
    ss = VersionSet.from_codes("a", versions, language="typescript",
                               entry_point="Range.constructor")
    ss.module = js_module_view(path.read_text(), path, tmp_path).context(
        "Range.constructor", "method")
    report = run_dynamic(ss, DynamicOptions())
    assert report.rules.module_problem is None and report.rules.not_run is None
    labels = [i["label"] for i in report.inputs]
    assert labels[:2] == ["new Range(0, 1)", "new Range(1, -3)"]
    assert all(label.startswith("new Range(") for label in labels)
    made = '{"$":"object","class":"Range","v":[["hi",1],["lo",-3]]}'
    swapped = '{"$":"object","class":"Range","v":[["hi",-3],["lo",1]]}'
    assert [outcomes[1] for outcomes in report.outcomes] == [(made, None, None),
                                                             (swapped, None, None)]
    assert report.output_clusters == [[0], [1]]
    whole = ["class Range { constructor(a, b) { this.lo = Math.min(a, b);"
             " this.hi = Math.max(a, b); } }",
             "class Range { constructor(a, b) { this.lo = a; this.hi = b; } }"]
    alone = run_dynamic(VersionSet.from_codes("b", whole, language="javascript",
                                              entry_point="Range.constructor"),
                        DynamicOptions())
    assert "new Range(1, -3)" in [i["label"] for i in alone.inputs]
    assert alone.output_clusters == [[0], [1]]


def test_a_typescript_module_whose_types_file_re_exports_types_loads(
        node_sandboxed: object, tmp_path: Path) -> None:
    """date-fns's layout: ``.ts`` files import each other by their ``.ts`` names, one with
    ``import { type X, value }``; the types file the function reads holds
    ``export type * from`` (TypeScript 5.0), which the grammar does not know. The module
    loads and the version calls its helper (before: "the TypeScript does not parse", and
    nothing ran in the module)."""
    (tmp_path / "src" / "toDate").mkdir(parents=True)
    (tmp_path / "src" / "isLeapYear").mkdir()
    (tmp_path / "src" / "fp.ts").write_text("export type Fn = (d: Date) => Date;\n")
    (tmp_path / "src" / "types.ts").write_text(
        "import { type Fn } from './fp.ts';\nexport type * from './fp.ts';\n"
        "export type DateArg<D extends Date> = D | number | string;\n")
    (tmp_path / "src" / "toDate" / "index.ts").write_text(
        "import { type DateArg } from '../types.ts';\n"
        "export function toDate(d: DateArg<Date>): Date { return new Date(d as number); }\n")
    path = tmp_path / "src" / "isLeapYear" / "index.ts"
    path.write_text("import { toDate } from '../toDate/index.ts';\n"
                    "import type { DateArg } from '../types.ts';\n"
                    "export function isLeapYear(date: DateArg<Date> & {}): boolean {\n"
                    "  const year = toDate(date).getFullYear();\n"
                    "  return year % 400 === 0 || (year % 4 === 0 && year % 100 !== 0);\n}\n")
    view = js_module_view(path.read_text(), path, tmp_path)
    assert not view.notes
    version = ("export function isLeapYear(date: DateArg<Date> & {}): boolean {\n"
               "  return new Date(toDate(date).getFullYear(), 1, 29).getDate() === 29;\n}\n")
    tests = [TestCase("call", args=({"$": "date", "v": f"{y}-07-02T00:00:00.000Z"},),
                      expected=leap, has_expected=True, name=str(y))
             for y, leap in ((2012, True), (2100, False), (2000, True))]
    result = TYPESCRIPT.run(version, tests, "isLeapYear", module=view.context("isLeapYear"))
    assert result.module is not None and result.module.loaded, result.module
    assert [t.passed for t in result.tests] == [True, True, True]


LABELS = """import { Color } from './color';

const NAMES = ['red', 'green'];

/**
 * The name of a colour.
 * @example
 * label(Color.Green) // => 'green'
 * label(NAMES.length as number) // => 'unknown'
 * @example
 * await Promise.resolve(label(Color.Red)) // => 'red'
 */
export function label(c: Color | number): string {
  return NAMES[c] ?? 'unknown';
}
"""


def test_examples_reading_the_modules_names_run_whole_in_the_module(
        node_sandboxed: object, tmp_path: Path) -> None:
    """``label(Color.Green)``: an enum member the module imports, a constant of its own, a
    TypeScript cast, an awaited value: each example runs where the module's names are,
    graded against the expected value as a literal call's is."""
    (tmp_path / "color.ts").write_text("export enum Color { Red, Green }\n")
    (tmp_path / "labels.ts").write_text(LABELS)
    right = "export function label(c: Color | number): string {\n  return NAMES[c] ?? 'unknown';\n}"
    upper = ("export function label(c: Color | number): string {\n"
             "  return (NAMES[c] ?? 'unknown').toUpperCase();\n}")
    ss = VersionSet.from_codes("t", [right, upper], language="typescript",
                               entry_point="label", prompt=LABELS[LABELS.index("/**"):])
    ss.module = js_module_view(LABELS, tmp_path / "labels.ts", tmp_path).context(
        "label", "function")
    report = run_dynamic(ss, DynamicOptions(hypothesis_examples=0, scaling=False))
    assert report.rules.module_problem is None
    assert [i["label"] for i in report.inputs] == [
        "label(Color.Green)", "label(NAMES.length as number)",
        "await Promise.resolve(label(Color.Red))"]
    assert [[o[0] if o else None for o in row] for row in report.outcomes] == [
        ['"green"', '"unknown"', '"red"'], ['"GREEN"', '"UNKNOWN"', '"RED"']]
    assert [c.pass_rate for c in report.candidates] == [1.0, 0.0]


def _monorepo(root: Path) -> Path:
    """A monorepo with one package open: its dependencies hoisted to the repository's
    ``node_modules``, one scoped package requiring another, and a package whose file links
    to the repository's ``.env``."""
    (root / ".env").write_text("TOKEN=sk-very-secret\n")
    hoisted = root / "node_modules"
    pad = hoisted / "left-pad"
    pad.mkdir(parents=True)
    (pad / "package.json").write_text('{"name": "left-pad", "main": "index.js"}')
    (pad / "index.js").write_text("module.exports = (s, n) => String(s).padStart(n, '.');\n")
    words = hoisted / "@acme" / "words"
    words.mkdir(parents=True)
    (words / "package.json").write_text('{"name": "@acme/words", "main": "lib/index.js"}')
    (words / "lib").mkdir()
    (words / "lib" / "index.js").write_text(
        "const pad = require('left-pad');\nexports.shout = (s) => pad(s.toUpperCase(), 6);\n")
    leaky = hoisted / "leaky"
    leaky.mkdir()
    (leaky / "package.json").write_text('{"name": "leaky", "main": "index.js"}')
    os.symlink(root / ".env", leaky / "index.js")
    app = root / "packages" / "app"
    app.mkdir(parents=True)
    (app / "main.js").write_text(
        "const { shout } = require('@acme/words');\nfunction loud(s) { return s; }\n"
        "module.exports = { loud };\n")
    return app


def test_a_package_hoisted_above_the_workspace_loads_where_its_own_would(
        node_sandboxed: object, tmp_path: Path) -> None:
    """The workspace is one package of a monorepo: ``@acme/words`` and the ``left-pad`` it
    requires are in the repository's ``node_modules``, above it; they load, shown at the
    workspace's own ``node_modules``, and the version runs in its module."""
    app = _monorepo(tmp_path)
    path = app / "main.js"
    context = js_module_view(path.read_text(), path, app).context("loud")
    assert sorted(p for p, _ in context.files) == [
        "main.js", "node_modules/@acme/words/lib/index.js", "node_modules/@acme/words/package.json",
        "node_modules/left-pad/index.js", "node_modules/left-pad/package.json"]
    assert context.notes == ()
    version = "function loud(s) { return shout(s) + '!'; }"
    test = TestCase("call", args=("ab",), expected="....AB!", has_expected=True, name="l")
    result = JAVASCRIPT.run(version, [test], "loud", module=context)
    assert result.module is not None and result.module.loaded
    assert [t.passed for t in result.tests] == [True]


def test_a_package_above_the_workspace_is_read_under_the_one_rule(tmp_path: Path) -> None:
    """A hoisted package's file that links to the repository's ``.env`` is refused where it
    leads; a Node module of its own name is never looked for in a ``node_modules``; a name
    that is no package name is not looked for."""
    app = _monorepo(tmp_path)
    fs = tmp_path / "node_modules" / "fs"
    fs.mkdir()
    (fs / "package.json").write_text('{"name": "fs", "main": "index.js"}')
    (fs / "index.js").write_text("module.exports = 'a package named fs';\n")
    path = app / "main.js"
    path.write_text("require('leaky');\nrequire('fs');\nrequire('@x/../../y');\n"
                    "function f(s) { return s; }\n")
    context = js_module_view(path.read_text(), path, app).context("f")
    assert all("sk-very-secret" not in text and "named fs" not in text
               for _p, text in context.files)
    assert [p for p, _ in context.files] == ["main.js", "node_modules/leaky/package.json"]
    assert context.notes[0].startswith("node_modules/leaky/index.js left out of the "
                                       "sandbox's view: ")
    assert [n.rpartition("(")[2] for n in context.notes[1:]] == [
        "node_modules/leaky/index.js is not a JavaScript file of the view)",
        "one of Node's own modules, not given in the sandbox)",
        "not in a node_modules folder of the workspace or above it)"]


def test_a_file_that_imports_the_module_back_gets_its_functions(node_sandboxed: object,
                                                               tmp_path: Path) -> None:
    """``main.ts`` imports ``./parse``, which imports ``hasProtocol`` back from ``./main``
    (a cycle, as ``ufo``'s ``utils.ts`` and ``parse.ts``): the module loads, and the
    version's call of ``parse`` reaches ``main``'s own function (before: "Cannot find
    module './main'", and the versions ran without their module)."""
    (tmp_path / "main.ts").write_text(
        "import { kind } from './parse';\n"
        "export function hasProtocol(s: string): boolean { return s.includes('://'); }\n"
        "export function describe(s: string): string { return s; }\n")
    (tmp_path / "parse.ts").write_text(
        "import { hasProtocol } from './main';\nimport * as main from './main';\n"
        "export function kind(s: string): string {\n"
        "  return (hasProtocol(s) ? 'url' : 'path') + (typeof main.describe);\n}\n")
    context = _context(tmp_path, "describe")
    version = "export function describe(s: string): string { return kind(s).toUpperCase(); }"
    tests = [TestCase("call", args=(s,), expected=e, has_expected=True, name=s)
             for s, e in (("http://a", "URLFUNCTION"), ("/a/b", "PATHFUNCTION"))]
    result = TYPESCRIPT.run(version, tests, "describe", module=context)
    assert result.module is not None and result.module.loaded, result.module
    assert [t.passed for t in result.tests] == [True, True]


#: A Ramda-shaped package: ``find`` shows itself through the package's namespace, reading
#: another of its functions (``R.propEq``) that its module does not import.
FIND = """/**
 * The first element of the list matching the predicate, or `undefined`.
 *
 * @example
 *
 *      const xs = [{a: 1, b: 1}, {a: 2, b: 2}, {a: 2, b: 3}];
 *      R.find(R.propEq(2, 'a'))(xs); //=> {a: 2, b: 2}
 *      R.find(R.propEq(4, 'a'))(xs); //=> undefined
 */
export function find(fn) {
  return (list) => list.find((x) => fn(x));
}
"""


def _library(root: Path) -> Path:
    (root / "src").mkdir()
    (root / "package.json").write_text('{"name": "rl", "main": "dist/rl.js"}')
    (root / "src" / "eq.js").write_text("export default (a, b) => a === b;\n")
    (root / "src" / "propEq.js").write_text(
        "import eq from './eq.js';\nconst propEq = (val, name) => (obj) => eq(obj[name], val);\n"
        "export default propEq;\n")
    (root / "src" / "find.js").write_text(FIND)
    (root / "src" / "index.js").write_text(
        "export { find } from './find.js';\nexport { default as propEq } from './propEq.js';\n"
        "export * from './eq.js';\nexport { huge } from './huge.js';\n")
    return root / "src" / "find.js"


def test_examples_calling_the_package_through_its_namespace_run_with_the_package(
        node_sandboxed: object, tmp_path: Path) -> None:
    """``R.find(R.propEq(2, 'a'))(xs)``: the view holds the file of ``propEq`` the
    package's entry re-exports (its ``main`` names a build that is not there: its
    ``src/index.js``; another of its files is missing and not needed), ``R`` holds it,
    ``R.find`` is the version; the version finding the last match fails the example."""
    path = _library(tmp_path)
    last = ("export function find(fn) {\n  return (list) => {\n"
            "    for (let i = list.length - 1; i >= 0; i--) if (fn(list[i])) return list[i];\n"
            "    return undefined;\n  };\n}")
    ss = VersionSet.from_codes("t", [FIND[FIND.index("export"):], last],
                               language="javascript", entry_point="find",
                               prompt=FIND[:FIND.index("export")])
    ss.module = js_module_view(FIND, path, tmp_path).context("find", "function")
    assert ss.module.library == (("propEq", "src/propEq.js"),)
    report = run_dynamic(ss, DynamicOptions(hypothesis_examples=0, scaling=False))
    assert report.rules.module_problem is None
    assert [i["label"] for i in report.inputs] == [
        "find(R.propEq(2, 'a'))(xs)", "find(R.propEq(4, 'a'))(xs)"]
    assert [[o[0] if o else None for o in row] for row in report.outcomes] == [
        ['{"$":"object","v":[["a",2],["b",2]]}', '{"$":"undefined"}'],
        ['{"$":"object","v":[["a",2],["b",3]]}', '{"$":"undefined"}']]
    assert [c.pass_rate for c in report.candidates] == [1.0, 0.5]
