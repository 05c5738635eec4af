"""The view of the workspace a JavaScript module's versions get (read, never run)."""

from __future__ import annotations

import os
from pathlib import Path

from codequorum.behaviour.runtimes.ts_parameters import module_types
from codequorum.ingest.js_module_view import (
    js_module_view,
    package_name,
    specifiers,
    type_specifiers,
)
from codequorum.ingest.module_view import MAX_VIEW_FILES
from tests.behaviour.runtimes.test_node_module import (
    FIND,
    _context,
    _library,
    _subpath_workspace,
    _workspace,
)


def test_specifiers_of_imports_requires_and_reexports() -> None:
    code = ("import a from './a';\nexport { b } from \"./b\";\nconst c = require('./c');\n"
            "const d = () => import('./d');\nrequire(name);\n")
    assert specifiers(code, "javascript") == ["./a", "./b", "./c", "./d"]
    assert package_name("@scope/name/sub/x") == ("@scope/name", "sub/x")


def test_the_view_holds_the_imported_files_and_the_package(tmp_path: Path) -> None:
    _workspace(tmp_path)
    context = _context(tmp_path, "target")
    assert sorted(p for p, _ in context.files) == [
        "lib/cjs.js", "main.ts", "node_modules/left-pad/lib/pad.js",
        "node_modules/left-pad/package.json", "util.ts"]
    assert context.notes == () and context.kind == "function"


def test_node_builtins_and_native_packages_are_not_given(tmp_path: Path) -> None:
    pkg = tmp_path / "node_modules" / "native"
    pkg.mkdir(parents=True)
    (pkg / "package.json").write_text('{"name": "native", "gypfile": true}')
    (pkg / "index.js").write_text("module.exports = require('./build/x.node');\n")
    path = tmp_path / "app.mjs"
    path.write_text("import fs from 'fs';\nimport n from 'native';\nexport function f() {}\n")
    notes = js_module_view(path.read_text(), path, tmp_path).notes
    assert notes == (
        "not-run-in-module: `app.mjs` loads `fs`, which the sandbox does not give (one of "
        "Node's own modules, not given in the sandbox)",
        "not-run-in-module: `app.mjs` loads `native`, which the sandbox does not give (the "
        "package has native code)")




def test_subpath_imports_are_read_from_the_package_json(tmp_path: Path) -> None:
    path = _subpath_workspace(tmp_path)
    view = js_module_view(path.read_text(), path, tmp_path)
    assert sorted(p for p, _ in view.files) == [
        "node_modules/left-pad/index.js", "node_modules/left-pad/package.json",
        "packages/app/cjs/math.cjs", "packages/app/package.json",
        "packages/app/src/internal/clamp.js", "packages/app/src/main.js"]
    assert view.notes == ()


def test_a_subpath_import_not_mapped_or_out_of_its_package_is_named(tmp_path: Path) -> None:
    path = _subpath_workspace(tmp_path)
    text = "import x from '#shared';\nimport y from '#nope';\nexport function f() {}\n"
    notes = js_module_view(text, path, tmp_path).notes
    assert notes == (
        "not-run-in-module: `packages/app/src/main.js` loads `#shared`, which the sandbox does "
        "not give (its `imports` mapping `../shared/x.js` leads out of its package)",
        "not-run-in-module: `packages/app/src/main.js` loads `#nope`, which the sandbox does "
        "not give (no `imports` mapping of its package.json matches it)")
    (tmp_path / "packages" / "app" / "package.json").write_text('{"name": "app"}')
    [note] = js_module_view("import '#x';\n", path, tmp_path).notes
    assert note.endswith("(its package.json has no `imports`)")


def test_a_package_json_nested_past_the_stack_is_a_package_not_given(tmp_path: Path) -> None:
    """A package of the workspace's ``node_modules`` is the repository's: a package.json
    nested 100,000 deep ended the view with RecursionError (the function lost its whole
    analysis); it is a note, as one that is not JSON is."""
    pkg = tmp_path / "node_modules" / "deep"
    pkg.mkdir(parents=True)
    (pkg / "package.json").write_text('{"main": ' + "[" * 100_000 + "]" * 100_000 + "}")
    path = tmp_path / "app.js"
    path.write_text("const d = require('deep');\nfunction f(x) { return x; }\n")
    notes = js_module_view(path.read_text(), path, tmp_path).notes
    assert notes == ("not-run-in-module: `app.js` loads `deep`, which the sandbox does not "
                     "give (its package.json is not JSON)",)


def test_a_function_in_a_namespace_is_the_modules_own(tmp_path: Path) -> None:
    """A namespace's function runs where it is (``Text.slugify``), not as a nested one; a
    class's method in a namespace is a method of ``A.B.K``."""
    path = tmp_path / "text.ts"
    path.write_text("export namespace Text { export function slugify(s: string) { return s; } }\n"
                    "namespace A.B { export class K { m() { return 1; } } }\n"
                    "namespace M { export function h() { function inner() {} } }\n")
    view = js_module_view(path.read_text(), path, tmp_path)
    assert view.context("Text.slugify").kind == "function"
    method = view.context("A.B.K.m", "method")
    assert (method.kind, method.owner) == ("method", "A.B.K")
    assert view.context("M.h.inner").kind == "nested"


def test_files_it_imports_types_only_from_are_in_the_view_and_never_noted(
        tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "types.ts").write_text("export interface User { name: string }\n")
    text = ("import type { User } from './types';\nimport type { Gone } from './gone';\n"
            "export type { Role } from './types';\nimport type { X } from 'some-lib';\n"
            "export function label(u: User): string { return u.name; }\n")
    (tmp_path / "src" / "users.ts").write_text(text)
    assert type_specifiers(text, "typescript") == ["./types", "./gone", "some-lib"]
    view = js_module_view(text, tmp_path / "src" / "users.ts", tmp_path)
    assert [p for p, _ in view.files] == ["src/users.ts", "src/types.ts"]
    assert view.notes == ()  # nothing is loaded from them: none missing is a problem
    context = view.context("label")
    assert module_types(context)["User"] == "{ name: string }"
    # the workspace's one rule holds for them too: a secret, a link out, a path out
    (tmp_path / ".env").write_text("TOKEN=1\n")
    (tmp_path / "src" / "env.ts").symlink_to(tmp_path / ".env")
    hostile = ("import type { A } from '../.env';\nimport type { B } from './env';\n"
               "import type { C } from '../../outside';\nexport function f(a: A) {}\n")
    seen = js_module_view(hostile, tmp_path / "src" / "h.ts", tmp_path)
    assert [p for p, _ in seen.files] == ["src/h.ts"]
    assert all("TOKEN" not in t for _, t in seen.files)


def alias_workspace(root: Path) -> Path:
    """A project importing its own files by the aliases of its tsconfig.json."""
    (root / "tsconfig.json").write_text(
        '{\n  // the app\'s aliases\n  "compilerOptions": {"baseUrl": ".", "paths": {\n'
        '    "@/*": ["src/*"], "@lib": ["src/lib/index.ts"], "@env": [".env"],\n'
        '    "@out/*": ["../*"],\n  }},\n}\n')
    (root / "src" / "lib").mkdir(parents=True)
    (root / "src" / "app").mkdir()
    (root / "src" / "lib" / "index.ts").write_text(
        "export const SEP = '-';\nexport const clean = (s: string): string => "
        "s.trim().toLowerCase();\n")
    (root / "src" / "lib" / "pad.ts").write_text(
        "export function pad(s: string): string { return s.length < 3 ? s.padEnd(3, '_') : s; }\n")
    (root / "src" / "types.ts").write_text(
        "export interface User { first: string; last: string }\n")
    (root / ".env").write_text("TOKEN=1\n")
    path = root / "src" / "app" / "names.ts"
    path.write_text("import { clean, SEP } from '@lib';\nimport { pad } from '@/lib/pad';\n"
                    "import type { User } from '@/types';\n"
                    "export function slug(u: User): string {\n"
                    "  return pad(clean(u.first) + SEP + clean(u.last));\n}\n")
    return path


def test_a_tsconfigs_aliases_lead_to_files_of_the_view(tmp_path: Path) -> None:
    path = alias_workspace(tmp_path)
    view = js_module_view(path.read_text(), path, tmp_path)
    assert [p for p, _ in view.files] == ["src/app/names.ts", "src/lib/index.ts",
                                          "src/lib/pad.ts", "src/types.ts"]
    assert view.aliases == (("src/app", "@lib", "src/lib/index.ts"),
                            ("src/app", "@/lib/pad", "src/lib/pad.ts"),
                            ("src/app", "@/types", "src/types.ts"))
    assert view.notes == ()
    context = view.context("slug")
    assert context.aliases == view.aliases
    assert module_types(context)["User"] == "{ first: string; last: string }"
    hostile = "import t from '@env';\nimport o from '@out/x';\nexport function f() {}\n"
    seen = js_module_view(hostile, path, tmp_path)
    assert [p for p, _ in seen.files] == ["src/app/names.ts"] and seen.aliases == ()
    assert all("TOKEN" not in t for _, t in seen.files)
    assert [n.partition(", which")[0] for n in seen.notes] == [
        "not-run-in-module: `src/app/names.ts` loads `@env`",
        "not-run-in-module: `src/app/names.ts` loads `@out/x`"]


def test_examples_calling_the_package_through_a_namespace_bring_its_functions(
        tmp_path: Path) -> None:
    """``R.find(R.propEq(...))`` in the comment: the package's entry (``main`` names a
    build that is not there, so ``src/index.js``) is read for its re-exports, and the
    file giving ``propEq`` joins the view with what it loads; ``find`` is the module."""
    path = _library(tmp_path)
    view = js_module_view(FIND, path, tmp_path)
    assert view.library == (("propEq", "src/propEq.js"),) and view.notes == ()
    assert sorted(p for p, _ in view.files) == [
        "package.json", "src/eq.js", "src/find.js", "src/propEq.js"]
    plain = FIND.replace("R.find(R.propEq(2, 'a'))(xs)", "find((x) => x.a === 2)(xs)")
    plain = plain.replace("R.find(R.propEq(4, 'a'))(xs)", "find((x) => x.a === 4)(xs)")
    assert js_module_view(plain, path, tmp_path).library == ()  # no namespace: nothing


def test_a_function_of_the_package_that_does_not_fit_the_view_is_left_out(
        tmp_path: Path) -> None:
    """A function whose file imports one that is not there, or more files than the view
    holds: left out, the module's own view unchanged (no note of the package's)."""
    path = _library(tmp_path)
    propeq = tmp_path / "src" / "propEq.js"
    text = propeq.read_text()
    propeq.write_text("import gone from './gone.js';\n" + text)
    view = js_module_view(FIND, path, tmp_path)
    assert view.library == () and view.notes == ()
    assert sorted(p for p, _ in view.files) == ["package.json", "src/find.js"]
    propeq.write_text(text)
    (tmp_path / "src" / "many").mkdir()
    for i in range(MAX_VIEW_FILES):
        (tmp_path / "src" / "many" / f"f{i}.js").write_text(f"export const f{i} = {i};\n")
    (tmp_path / "src" / "eq.js").write_text(
        "".join(f"export {{ f{i} }} from './many/f{i}.js';\n" for i in range(MAX_VIEW_FILES))
        + "export default (a, b) => a === b;\n")
    view = js_module_view(FIND, path, tmp_path)
    assert view.library == () and view.notes == ()
    assert sorted(p for p, _ in view.files) == ["package.json", "src/find.js"]


def test_a_package_entry_or_re_export_leading_out_or_to_a_secret_reads_nothing(
        tmp_path: Path) -> None:
    """A ``main`` naming an absolute path or one above the workspace, an entry that links
    to ``.env``, a re-export leading out of the workspace or to a secret-looking file:
    none is read, and the view holds the module alone."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (tmp_path / "outside.js").write_text("export const propEq = 'outside';\n")
    (ws / ".env").write_text("export { propEq } from './secrets.js';\nTOKEN=1\n")
    (ws / "secrets.js").write_text("export const propEq = 'secret';\n")
    path = _library(ws)
    (ws / "src" / "index.js").unlink()
    for main in ("/etc/hostname", "../outside.js", "../../outside.js"):
        (ws / "package.json").write_text(f'{{"name": "rl", "main": "{main}"}}')
        view = js_module_view(FIND, path, ws)
        assert view.library == () and sorted(p for p, _ in view.files) == [
            "package.json", "src/find.js"], main
    (ws / "package.json").write_text('{"name": "rl", "main": "src/index.js"}')
    (ws / "src" / "index.js").symlink_to(ws / ".env")
    view = js_module_view(FIND, path, ws)
    assert view.library == () and "secret" not in " ".join(t for _, t in view.files)
    (ws / "src" / "index.js").unlink()
    (ws / "src" / "index.js").write_text("export { propEq } from '../../outside.js';\n")
    assert js_module_view(FIND, path, ws).library == ()
    (ws / "src" / "index.js").write_text("export { propEq } from '../secrets.js';\n")
    view = js_module_view(FIND, path, ws)
    assert view.library == () and "secret" not in " ".join(t for _, t in view.files)


def test_a_hoisted_package_linked_out_of_its_project_or_into_a_hidden_folder_is_not_given(
        tmp_path: Path) -> None:
    """A monorepo's ``node_modules`` above the workspace: a package linked to a sibling
    package of the repository (npm workspaces) is given; one linked out of the repository
    (``-> ~/outside/pkg``) or into a hidden folder of it (``-> .private-proj``) is not, and
    nothing of it is read."""
    outside = tmp_path / "outside" / "pkg"
    outside.mkdir(parents=True)
    (outside / "package.json").write_text('{"name": "hoisted", "main": "index.js"}')
    (outside / "index.js").write_text("module.exports = 'MARKER_OUTSIDE';\n")
    mono = tmp_path / "mono"
    hidden = mono / ".private-proj"
    hidden.mkdir(parents=True)
    (hidden / "package.json").write_text('{"name": "h2", "main": "settings.json"}')
    (hidden / "settings.json").write_text('{"dbPassword": "MARKER_HIDDEN"}')
    sibling = mono / "packages" / "sib"
    sibling.mkdir(parents=True)
    (sibling / "package.json").write_text('{"name": "sib", "main": "index.js"}')
    (sibling / "index.js").write_text("module.exports = 1;\n")
    modules = mono / "node_modules"
    modules.mkdir()
    os.symlink(outside, modules / "hoisted")
    os.symlink(hidden, modules / "h2")
    os.symlink(sibling, modules / "sib")
    app = mono / "packages" / "app"
    app.mkdir(parents=True)
    (app / ".git").mkdir()
    path = app / "lib.js"
    path.write_text("const a = require('hoisted');\nconst b = require('h2');\n"
                    "const c = require('sib');\nfunction peek(x) { return x + 1; }\n"
                    "module.exports = { peek };\n")
    context = js_module_view(path.read_text(), path, app).context("peek")
    assert sorted(p for p, _ in context.files) == [
        "lib.js", "node_modules/sib/index.js", "node_modules/sib/package.json"]
    assert "MARKER" not in repr(context.files)
    assert sum("`hoisted`" in n or "`h2`" in n for n in context.notes) == 2, context.notes
