"""The module a JavaScript or TypeScript function lives in, as its versions see it in the sandbox.

The JavaScript side of :mod:`codequorum.ingest.module_view`, under the same rules: the
module's text as the editor holds it and a read-only view of the workspace holding the
files it loads, found by reading their ``import``/``export ... from`` statements and their
``require('...')`` and ``import('...')`` calls with a literal specifier (nothing here runs
or compiles anything):

- a relative specifier (``./util``, ``../lib/math.js``) is looked up as Node looks it up,
  the exact path first, then with :data:`EXTENSIONS`, then as a folder's ``index``, then as
  TypeScript does (``./util.js`` for the ``util.ts`` it compiles from: :data:`TS_SOURCES`);
- a bare specifier (``left-pad``, ``@scope/name/sub``) is a package of a ``node_modules``
  folder between the importing file and the workspace root: its ``package.json`` and the
  files its entry (``exports`` or ``main``) loads; a package with native code
  (``binding.gyp``, ``"gypfile": true``, a ``.node`` file) is left out. Where the workspace
  has none of that name, a ``node_modules`` folder above the workspace (a monorepo's
  hoisted root with one package open, at most :data:`MAX_LEVELS_UP` folders up, as Node
  would look there) gives it, under the same rules with the package's folder as their root,
  shown to the versions where the workspace's own ``node_modules/<name>`` would be;
- a ``#`` specifier (``#internal/x.js``) is mapped by the ``imports`` of the nearest
  ``package.json`` (:mod:`codequorum.ingest.js_imports`: inside its package, or a package
  it names);
- every file passes the workspace's one rule
  (:func:`~codequorum.core.safe_paths.workspace_refusal`, on the path and where its links
  lead: a link to ``.env`` is never read) and the bounds of the Python view;
- ``buffer``, ``url``, ``path`` and ``crypto``'s hashes and random values (``node:`` too)
  are the sandbox's own (:data:`CONTEXT_MODULES`);
- a file the module imports types only from (``import type { User } from './types'``) is in
  the view for the types it declares (the inputs are drawn of them), never loaded, and
  never noted when it is not there;
- anything else (Node's other modules, a package that is not there, a path that leads out
  of the workspace) is named in a note: the module then does not load in the sandbox, and the
  function's versions are not run there (``not-run-in-module``).

A function's context also holds the workspace's other JavaScript and TypeScript files that
name it (its tests, its callers: :func:`~codequorum.ingest.workspace_callers.caller_files`),
read for their calls and never given to the sandbox.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from tree_sitter import Node

from codequorum.core.errors import UserError
from codequorum.core.limits import InputLimitError
from codequorum.core.model import FunctionKind, ModuleContext
from codequorum.core.parsing import function_by_name, parse
from codequorum.core.safe_paths import workspace_refusal
from codequorum.ingest.js_imports import CONDITIONS, NoMapping, imports_target
from codequorum.ingest.js_library import SOURCE_ENTRIES, members_called, reexported
from codequorum.ingest.module_view import (
    MAX_FILE_BYTES,
    MAX_IMPORTED_NAMES,
    MAX_VIEW_BYTES,
    MAX_VIEW_FILES,
    UNTITLED,
    read_inside,
)
from codequorum.ingest.ts_config import MAX_CONFIG_CHARS, Aliases, nearest_aliases
from codequorum.ingest.workspace_callers import JS_SUFFIXES, caller_files

#: Suffixes tried after a specifier, in Node's order (then TypeScript's), and in a folder.
EXTENSIONS = (".js", ".ts", ".mjs", ".cjs", ".mts", ".cts", ".json")
#: The TypeScript source a specifier of the JavaScript it compiles to names
#: (``import {f} from './util.js'`` in ``index.ts`` loads ``util.ts``).
TS_SOURCES = {".js": (".ts", ".tsx"), ".mjs": (".mts",), ".cjs": (".cts",), ".jsx": (".tsx",)}
INDEXES = tuple(f"/index{ext}" for ext in EXTENSIONS)
#: Node's own modules the sandbox's context gives, each as the globals it holds, or the one
#: global that is the whole module (``node_harness/globals.js`` and ``builtins.js`` build
#: them; ``node:buffer`` is ``buffer``).
CONTEXT_MODULES: dict[str, tuple[str, ...] | str] = {
    "buffer": ("Buffer",),
    "url": ("URL", "URLSearchParams"),
    "path": "__codequorum_path",
    "crypto": "__codequorum_crypto",
    "assert": "__codequorum_assert",
    "assert/strict": "__codequorum_assert_strict",
    "events": "__codequorum_events",
    "util": "__codequorum_util",
}


def context_module(spec: str) -> bool:
    """Whether ``spec`` names one of :data:`CONTEXT_MODULES`."""
    return spec.removeprefix("node:") in CONTEXT_MODULES


#: Node's own modules (``module.builtinModules`` of Node 20, ``node:`` spellings aside):
#: a specifier naming one is never looked for in a ``node_modules`` folder, as in Node.
NODE_MODULES = frozenset({"assert", "assert/strict", "async_hooks", "buffer", "child_process",
    "cluster", "console", "constants", "crypto", "dgram", "diagnostics_channel", "dns",
    "dns/promises", "domain", "events", "fs", "fs/promises", "http", "http2", "https",
    "inspector", "inspector/promises", "module", "net", "os", "path", "path/posix", "path/win32",
    "perf_hooks", "process", "punycode", "querystring", "readline", "readline/promises", "repl",
    "stream", "stream/consumers", "stream/promises", "stream/web", "string_decoder", "sys",
    "timers", "timers/promises", "tls", "trace_events", "tty", "url", "util", "util/types", "v8",
    "vm", "wasi", "worker_threads", "zlib"})
#: How many folders above the workspace a package is looked for (Node goes on to ``/``).
MAX_LEVELS_UP = 8
#: A package name a bare specifier may carry (npm's rules, either case).
PACKAGE_NAME = re.compile(r"(?:@[A-Za-z0-9~][\w.~-]*/)?[A-Za-z0-9~][\w.~-]*")


def packages_above(root: Path) -> tuple[Path, ...]:
    """The ``node_modules`` folders above ``root`` that Node would look in, nearest first."""
    return tuple(folder / "node_modules" for folder in root.parents[:MAX_LEVELS_UP]
                 if (folder / "node_modules").is_dir())


def hoisted_inside(project: Path, package: Path) -> Path | None:
    """Where a package of the ``node_modules`` folder of ``project`` (a folder above the
    workspace) really is, when that is inside ``project`` and passes the one rule there (a
    sibling package a workspace links, pnpm's ``node_modules/.pnpm``); None for a link
    that leads out of it or into a hidden or secret-looking folder (a repository's
    ``node_modules/x -> ~/.config``)."""
    try:
        real = Path(os.path.realpath(package))
        inner = real.relative_to(Path(os.path.realpath(project)))
    except (OSError, ValueError):
        return None
    if workspace_refusal(PurePosixPath(inner.as_posix())) is not None:
        return None
    return real


#: What the sandbox says of a file it cannot give.
MISSING = "not-run-in-module: `{module}` loads `{spec}`, which the sandbox does not give ({why})"


@dataclass(frozen=True)
class JsModuleView:
    """One JavaScript file's module and its view, shared by the functions of that file."""

    path: str
    files: tuple[tuple[str, str], ...]
    notes: tuple[str, ...] = ()
    workspace: Path | None = None
    aliases: tuple[tuple[str, str, str], ...] = ()
    #: (function, its file in the view) of the package's functions its examples call
    #: through a namespace
    library: tuple[tuple[str, str], ...] = ()

    def namespace(self, qualified_name: str) -> str:
        """The TypeScript namespace the module's function ``qualified_name`` is in (``A.B``),
        empty when it is in none or the module does not define it."""
        if "." not in qualified_name:
            return ""
        source = next((text for path, text in self.files if path == self.path), "")
        try:
            found = function_by_name(source, "tsx" if self.path.endswith(".tsx")
                                     else grammar(self.path), qualified_name)
        except (InputLimitError, UserError, ValueError):
            return ""
        return found.namespace if found is not None and found.qualified_name == qualified_name \
            else ""

    def context(self, qualified_name: str, kind: str = "function") -> ModuleContext:
        """The context of one function of the module: a method when the parser says so and
        it has an owner, else nested when it has one besides its namespace (a function of
        ``namespace Text`` is the module's own: ``Text.slugify``); with the workspace's
        files that name it (its tests and callers)."""
        space = self.namespace(qualified_name)
        owned = "." in qualified_name.removeprefix(f"{space}." if space else "")
        found: FunctionKind = ("method" if owned and kind == "method"
                               else "nested" if owned else "function")
        in_view = frozenset(p for p, _ in self.files)
        callers = caller_files(self.workspace, qualified_name.rpartition(".")[2], in_view,
                               JS_SUFFIXES)
        return ModuleContext(name=self.path, path=self.path, qualified_name=qualified_name,
                             kind=found, files=self.files, roots=(), notes=self.notes,
                             callers=callers, aliases=self.aliases, library=self.library)


def typescript_sources(base: str) -> tuple[str, ...]:
    """The TypeScript files ``base`` may name by the JavaScript they compile to."""
    stem, ext = posixpath.splitext(base)
    return tuple(stem + t for t in TS_SOURCES.get(ext, ()))


def grammar(path: str) -> str:
    """The grammar of a file of the view, from its suffix."""
    return "typescript" if path.endswith((".ts", ".mts", ".cts")) else "javascript"


def specifiers(text: str, language: str) -> list[str]:
    """The literal specifiers ``text`` loads, in order: static imports, re-exports,
    ``require('...')`` and ``import('...')`` calls anywhere."""
    out: dict[str, None] = {}
    stack = [parse(text, language).root_node]
    while stack:
        node = stack.pop()
        spec = _specifier(node)
        if spec is not None:
            out[spec] = None
        stack.extend(reversed(node.children))
    return list(out)


def type_specifiers(text: str, language: str) -> list[str]:
    """The specifiers ``text`` imports types only from (``import type { User } from
    './types'``, ``from '@/types'``): read for the types they declare (a relative one, or
    one a configuration's alias leads to a file of the workspace), never loaded."""
    root = parse(text, language).root_node
    out: dict[str, None] = {}
    for node in root.named_children:
        if node.type in ("import_statement", "export_statement") \
                and any(c.type == "type" for c in node.children):
            spec = _string(node.child_by_field_name("source"))
            if spec is not None and not spec.startswith(("node:", "/")):
                out[spec] = None
    return list(out)


def _string(node: Node | None) -> str | None:
    if node is None or node.type != "string":
        return None
    inner = [c for c in node.named_children if c.type == "string_fragment"]
    return (inner[0].text or b"").decode("utf-8", "replace") if len(inner) == 1 else None


def _specifier(node: Node) -> str | None:
    if node.type in ("import_statement", "export_statement"):
        if any(c.type == "type" for c in node.children):
            return None  # ``import type``: nothing is loaded at run time
        return _string(node.child_by_field_name("source"))
    if node.type == "call_expression":
        callee = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        if callee is None or args is None or not args.named_children:
            return None
        if callee.type == "import" or (callee.type == "identifier" and callee.text == b"require"):
            return _string(args.named_children[0])
    return None


def is_relative(spec: str) -> bool:
    return spec.startswith(("./", "../")) or spec in (".", "..")


def package_name(spec: str) -> tuple[str, str]:
    """``@scope/name/sub`` -> (``@scope/name``, ``sub``); ``name/sub`` -> (``name``, ``sub``)."""
    parts = spec.split("/")
    cut = 2 if spec.startswith("@") else 1
    return "/".join(parts[:cut]), "/".join(parts[cut:])


@dataclass
class _Builder:
    """Collects the view: files by relative path, and notes."""

    root: Path
    module: str
    files: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    size: int = 0
    looked: int = 0
    #: (folder, specifier, file) for each specifier a configuration's alias resolved
    aliases: dict[tuple[str, str], str] = field(default_factory=dict)
    configs: dict[str, Aliases | None] = field(default_factory=dict)
    #: ``node_modules/<name>`` -> the folder above the workspace that package is read from
    mounts: dict[str, Path] = field(default_factory=dict)

    def peek(self, rel: str) -> str | None:
        """A configuration file of the workspace under the one rule, not given to the
        sandbox (None: not there or refused)."""
        pure = PurePosixPath(rel)
        if rel.startswith("../") or workspace_refusal(pure) is not None \
                or not (self.root / rel).is_file():
            return None
        return read_inside(self.root, pure, MAX_CONFIG_CHARS)[0]

    def aliased(self, folder: str, spec: str) -> str | None:
        """The file a configuration's alias leads ``spec`` to from ``folder``
        (:mod:`~codequorum.ingest.ts_config`), None when none does."""
        if folder not in self.configs:
            self.configs[folder] = nearest_aliases(self.peek, folder)
        config = self.configs[folder]
        for base in config.candidates(spec) if config is not None else ():
            found = self.locate(base)
            if found is not None:
                self.aliases[(folder, spec)] = found
                return found
        return None

    def read(self, rel: str) -> str | None:
        """A file of the workspace under the one rule and the bounds (None: not there or
        refused; a refusal is noted)."""
        if rel in self.files:
            return self.files[rel]
        pure = PurePosixPath(rel)
        if rel.startswith("../") or workspace_refusal(pure) is not None:
            return None
        root, inner = self.where(pure)
        if not (root / inner).is_file() or len(self.files) >= MAX_VIEW_FILES:
            return None
        text, problem = read_inside(root, inner, min(MAX_FILE_BYTES,
                                                     MAX_VIEW_BYTES - self.size))
        if text is None:
            self.notes.append(f"{rel} left out of the sandbox's view: {problem}")
            return None
        self.files[rel] = text
        self.size += len(text.encode("utf-8"))
        return text

    def where(self, rel: PurePosixPath) -> tuple[Path, PurePosixPath]:
        """The folder ``rel`` is read from and its path there: the workspace, or a package
        above it shown at ``node_modules/<name>`` (the package's folder is then the root
        its files and their links must stay in)."""
        parts = rel.parts
        for cut in (3, 2):
            top = "/".join(parts[:cut])
            if len(parts) >= cut and top in self.mounts:
                return self.mounts[top], PurePosixPath(*parts[cut:])
        return self.root, rel

    def above(self, name: str) -> str | None:
        """``node_modules/<name>`` when a ``node_modules`` folder above the workspace holds
        the package (mounted there from now on), else None."""
        top = f"node_modules/{name}"
        if top in self.mounts:
            return top
        if not PACKAGE_NAME.fullmatch(name) or ".." in name:
            return None
        for folder in packages_above(self.root):
            package = folder.joinpath(*name.split("/"))
            if (package / "package.json").is_file():
                real = hoisted_inside(folder.parent, package)
                if real is None:
                    return None  # Node would take this one: it leads out, none is given
                self.mounts[top] = real
                return top
        return None

    def locate(self, base: str) -> str | None:
        """The file ``base`` names, as Node finds it (exact, suffixed, a folder's index),
        then as TypeScript finds it: ``./util.js`` written for the ``util.ts`` it becomes."""
        for rel in (base, *(base + e for e in EXTENSIONS), *(base + i for i in INDEXES),
                    *typescript_sources(base)):
            rel = posixpath.normpath(rel)
            if not rel.startswith("..") and self.read(rel) is not None:
                return rel
        return None

    def package(self, folder: str, spec: str) -> tuple[str | None, str]:
        """The file a bare ``spec`` loads from ``folder``: (path, "") or (None, why). Where
        ``folder`` is reached through a link (a package pnpm installed), the package is also
        looked for from the folder the link leads to, as Node looks for it, and the sandbox's
        loader told where it is (an alias of ``folder``)."""
        name, sub = package_name(spec)
        here = folder
        while True:
            top = posixpath.join(here, "node_modules", name) if here else f"node_modules/{name}"
            meta = self.read(f"{top}/package.json")
            if meta is not None:
                return self._entry(top, meta, sub)
            if not here:
                break
            here = posixpath.dirname(here)
        real = self._real(folder)
        if real is not None and real != folder:
            found, why = self.package(real, spec)
            if found is not None:
                self.aliases[(folder, spec)] = found
            return found, why
        mounted = self.above(name)
        meta = self.read(f"{mounted}/package.json") if mounted is not None else None
        if mounted is not None and meta is not None:
            return self._entry(mounted, meta, sub)
        return None, "not in a node_modules folder of the workspace or above it"

    def _real(self, folder: str) -> str | None:
        """The workspace path ``folder`` leads to through its links (None: out of the
        workspace, or refused by the one rule)."""
        try:
            real = Path(os.path.realpath(self.root / folder)).relative_to(self.root.resolve())
        except (OSError, ValueError):
            return None
        if workspace_refusal(PurePosixPath(real.as_posix())) is not None:
            return None
        return "" if real == Path(".") else real.as_posix()

    def _entry(self, top: str, meta: str, sub: str) -> tuple[str | None, str]:
        try:
            info = json.loads(meta)
        except (ValueError, RecursionError):  # nested past the stack: the repository's
            return None, "its package.json is not JSON"
        if not isinstance(info, dict):
            return None, "its package.json is not an object"
        root, inner = self.where(PurePosixPath(top, "binding.gyp"))
        if info.get("gypfile") is True or (root / inner).exists():
            return None, "the package has native code"
        target = sub or _main(info)
        found = self.locate(posixpath.join(top, target))
        if found is None or found.endswith(".node"):
            return None, f"{top}/{target} is not a JavaScript file of the view"
        return found, ""

    def follow(self, start: str) -> None:
        """Add what ``start`` loads, and what that loads, until nothing new comes in."""
        pending, seen = [start], {start}
        while pending:
            rel = pending.pop(0)
            if rel.endswith(".json"):
                continue
            for spec in specifiers(self.files[rel], grammar(rel)):
                self.looked += 1
                if self.looked > MAX_IMPORTED_NAMES:
                    self.notes.append(f"the sandbox's view follows the first "
                                      f"{MAX_IMPORTED_NAMES} specifiers; the others were "
                                      "left out")
                    return
                if context_module(spec):
                    continue
                found, why = self.resolve(posixpath.dirname(rel), spec)
                if found is None:
                    if rel == start:
                        self.notes.append(MISSING.format(module=self.module, spec=spec,
                                                         why=why))
                    continue
                if found not in seen:
                    seen.add(found)
                    pending.append(found)

    def library(self, rel: str, members: frozenset[str]) -> tuple[tuple[str, str], ...]:
        """The files of ``rel``'s package that give the functions ``members`` (its examples
        call them through a namespace: ``R.propEq``), each added to the view with what it
        loads, as (name, path); a function whose file does not fit the view whole, or that
        the entry does not re-export, is left out and the view kept as it was."""
        found = self.scope(posixpath.dirname(rel))
        entry = self._library_entry(*found) if found is not None else None
        if entry is None or entry == rel:
            return ()
        reexports = reexported(self.peek(entry) or "", grammar(entry))
        out: list[tuple[str, str]] = []
        for name in sorted(members):
            spec = reexports.get(name)
            if spec is None or not is_relative(spec):
                continue
            before = self._state()
            target, _why = self.resolve(posixpath.dirname(entry), spec)
            if target is not None and target != rel:  # the module's own: given by its name
                self.follow(target)
            if target is None or target == rel or self.notes != before[1] \
                    or len(self.files) >= MAX_VIEW_FILES:
                self._restore(before)
                continue
            out.append((name, target))
        return tuple(out)

    def _state(self) -> tuple[dict[str, str], list[str], int, int, dict[tuple[str, str], str],
                              dict[str, Path]]:
        """What following a specifier may change, to put back (:meth:`_restore`)."""
        return (dict(self.files), list(self.notes), self.size, self.looked, dict(self.aliases),
                dict(self.mounts))

    def _restore(self, state: tuple[dict[str, str], list[str], int, int,
                                    dict[tuple[str, str], str], dict[str, Path]]) -> None:
        self.files, self.notes, self.size, self.looked, self.aliases, self.mounts = state

    def _library_entry(self, top: str, meta: str) -> str | None:
        """The entry of the package at ``top`` read without adding it to the view: what its
        ``exports``/``main`` names, else the first of :data:`SOURCE_ENTRIES` there."""
        try:
            info = json.loads(meta)
        except (ValueError, RecursionError):
            return None
        named = _main(info) if isinstance(info, dict) else "index"
        for target in dict.fromkeys((named, *SOURCE_ENTRIES)):
            base = posixpath.normpath(posixpath.join(top, target))
            for rel in (base, *(base + e for e in EXTENSIONS), *(base + i for i in INDEXES),
                        *typescript_sources(base)):
                if not rel.startswith("..") and not rel.endswith(".json") \
                        and self.peek(rel) is not None:
                    return rel
        return None

    def resolve(self, folder: str, spec: str) -> tuple[str | None, str]:
        if is_relative(spec):
            target = posixpath.normpath(posixpath.join(folder, spec))
            if target.startswith(".."):
                return None, "a path out of the workspace"
            found = self.locate(target)
            return (found, "") if found else (None, "no such file, or a refused one")
        if spec.startswith("#"):
            return self.subpath(folder, spec)
        if spec in NODE_MODULES:
            return None, "one of Node's own modules, not given in the sandbox"
        if spec.startswith(("/", "node:")) or ":" in spec:
            return None, "not a file of the workspace"
        aliased = self.aliased(folder, spec)
        if aliased is not None:
            return aliased, ""
        return self.package(folder, spec)

    def scope(self, folder: str) -> tuple[str, str] | None:
        """The package ``folder`` is in: (its folder, its package.json), the nearest one
        up to the workspace root and never past a ``node_modules`` folder (as Node looks)."""
        here = folder
        while True:
            meta = self.read(posixpath.join(here, "package.json") if here else "package.json")
            if meta is not None:
                return here, meta
            if not here or posixpath.basename(here) == "node_modules":
                return None
            here = posixpath.dirname(here)

    def subpath(self, folder: str, spec: str) -> tuple[str | None, str]:
        """The file a ``#`` specifier maps to through its package's ``imports``."""
        found = self.scope(folder)
        if found is None:
            return None, "no package.json holds its `imports`"
        top, meta = found
        try:
            info = json.loads(meta)
            target = imports_target(info.get("imports") if isinstance(info, dict) else None,
                                    spec)
        except (ValueError, RecursionError) as exc:
            return None, str(exc) if isinstance(exc, NoMapping) else "its package.json is not JSON"
        if not target.startswith("./"):
            return self.package(top, target)
        rel = posixpath.normpath(posixpath.join(top, target[2:]))
        if self.read(rel) is None or rel.endswith(".node"):
            return None, f"{rel} is not a JavaScript file of the view"
        return rel, ""


def _main(info: dict[str, object]) -> str:
    """A package's entry: ``exports['.']`` (its ``require``, ``node``, ``default`` or
    ``import`` when conditional, nested conditions followed), else ``main``, else
    ``index``."""
    exports = info.get("exports")
    if isinstance(exports, dict):
        exports = exports.get(".", exports)
    for _ in range(4):
        if not isinstance(exports, dict):
            break
        exports = next((exports[c] for c in CONDITIONS if exports.get(c)), None)
    if isinstance(exports, str):
        return exports
    main = info.get("main")
    return main if isinstance(main, str) and main else "index"


def js_module_view(text: str, path: Path | None, workspace: Path | None) -> JsModuleView:
    """The module held in ``text`` (the file ``path``, None for a document without one)
    and the view of ``workspace`` its versions get. Reads files; runs nothing."""
    rel = _relative(path, workspace)
    if rel is None or workspace is None:
        name = path.name if path is not None else f"{UNTITLED}.js"
        return JsModuleView(name, ((name, text),), _unresolved(text, name))
    builder = _Builder(workspace.resolve(), rel)
    builder.files[rel] = text
    builder.follow(rel)
    folder = posixpath.dirname(rel)
    for spec in type_specifiers(text, grammar(rel)):  # in the view for their types only
        if is_relative(spec):
            builder.resolve(folder, spec)
        else:
            builder.aliased(folder, spec)
    members = members_called(text, grammar(rel))
    library = builder.library(rel, members) if members else ()
    aliases = tuple((f, spec, found) for (f, spec), found in builder.aliases.items())
    return JsModuleView(rel, tuple(builder.files.items()), tuple(builder.notes),
                        builder.root, aliases, library)


def _unresolved(text: str, name: str) -> tuple[str, ...]:
    """A module outside a workspace loads nothing: each of its specifiers is noted."""
    return tuple(MISSING.format(module=name, spec=s, why="the module is outside a workspace")
                 for s in specifiers(text, grammar(name)))


def _relative(path: Path | None, workspace: Path | None) -> str | None:
    if path is None or workspace is None:
        return None
    try:
        rel = path.resolve().relative_to(workspace.resolve())
    except (OSError, RuntimeError, ValueError):
        return None
    if not rel.parts or workspace_refusal(PurePosixPath(*rel.parts)) is not None:
        return None
    return PurePosixPath(*rel.parts).as_posix()


__all__ = ["EXTENSIONS", "JsModuleView", "js_module_view", "package_name", "specifiers",
           "type_specifiers"]
