"""The module a function lives in, as its versions see it in the sandbox.

A version runs in its function's module (:class:`~codequorum.core.model.ModuleContext`): the
module's text as the editor holds it, its dotted name and package, and a read-only view of
the workspace holding the project modules it imports, found by reading their ``import``
statements (nothing here runs or compiles the module). The view is kept small:

- only Python sources (``*.py``) that the module imports, directly or through the modules
  it imports, each with the ``__init__.py`` files of its packages, and the text files
  beside the module that its own text names (``"data.txt"``: the package data it reads at
  import); never a whole folder, so nothing else of the workspace (``.git``,
  ``.codequorum``, ``.env``, other data files) is in it;
- never a file under a hidden folder, a file whose name looks like it holds secrets
  (``secrets``, ``credentials``, ``passwords``) or is a key file (``master.key``,
  ``server.pem``, ``id_rsa``), a standard-library name (the sandbox's own
  standard library is the one that counts), or anything outside the workspace: the rule
  (:func:`~codequorum.core.safe_paths.workspace_refusal`, the one the agents' tools apply) is
  tested on the import path and again where its links lead, so ``helper.py -> .env`` or
  ``conf/__init__.py -> .git/config`` is left out, and the file read is the one checked;
- at most :data:`MAX_VIEW_FILES` files and :data:`MAX_VIEW_BYTES` bytes, each a regular
  UTF-8 file of at most :data:`MAX_FILE_BYTES`, found by following at most
  :data:`MAX_IMPORTED_NAMES` imported names; what is left out is said in the notes.

Imports are looked up where a run from the workspace would find them: the folder above
the module's package (the chain of folders holding ``__init__.py``), the workspace root,
its ``src`` folder, and the ``site-packages`` of its virtual environment (``.venv``,
``venv`` or ``env``: the packages the project installed, Python sources only; a package with native
code is left out), in that order. A workspace without one of its own takes the environment
the user activated (:func:`active_environment`: ``VIRTUAL_ENV``, as Poetry, Pipenv, Hatch and
``source .venv/bin/activate`` set it, or conda's ``CONDA_PREFIX``), read under the same rules
with that environment's ``site-packages`` as their root, and shown to the versions where a
workspace's ``.venv`` would be; never a path a repository names.
"""

from __future__ import annotations

import ast
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from codequorum.core import pyast
from codequorum.core.model import FunctionKind, ModuleContext
from codequorum.core.safe_paths import RefusedFile, read_workspace_file, workspace_refusal
from codequorum.ingest.workspace_callers import caller_files

MAX_VIEW_FILES = 256
MAX_VIEW_BYTES = 8 * 1024 * 1024
MAX_FILE_BYTES = 1024 * 1024
#: Data files beside the module that its text names, at most (see ``add_package_data``).
MAX_DATA_FILES = 16
#: Imported names looked up in the workspace (each costs a few ``stat`` calls).
MAX_IMPORTED_NAMES = 2048
#: The module's name when the editor's document has no file.
UNTITLED = "untitled"
_STDLIB = frozenset(sys.stdlib_module_names)


@dataclass(frozen=True)
class ModuleView:
    """One file's module and its view, shared by the functions of that file."""

    name: str
    path: str
    package: str
    files: tuple[tuple[str, str], ...]
    roots: tuple[str, ...]
    notes: tuple[str, ...]
    tree: ast.Module | None = field(compare=False, repr=False)
    workspace: Path | None = field(default=None, compare=False, repr=False)

    def context(self, qualified_name: str, kind: str = "function") -> ModuleContext:
        """The context of one function of the module (``kind`` as the parser says it:
        ``function`` or ``method``), with the other files of the workspace that name it
        (:func:`~codequorum.ingest.workspace_callers.caller_files`)."""
        in_view = frozenset(path for path, _text in self.files)
        return ModuleContext(
            name=self.name,
            path=self.path,
            qualified_name=qualified_name,
            kind=function_kind(self.tree, qualified_name, kind),
            files=self.files,
            roots=self.roots,
            notes=self.notes,
            callers=caller_files(self.workspace, qualified_name.rpartition(".")[2], in_view),
        )


def function_kind(tree: ast.Module | None, qualified_name: str, parsed: str) -> FunctionKind:
    """``function`` at the module's top level, ``method`` when every enclosing definition
    is a class, else ``nested``; from the module's syntax tree when it parses, else from
    the parser's ``parsed`` kind."""
    owners = qualified_name.split(".")[:-1]
    if not owners:
        return "function"
    if tree is None:
        return "method" if parsed == "method" else "nested"
    body: list[ast.stmt] = tree.body
    for owner in owners:
        found = [n for n in body if isinstance(n, (ast.ClassDef, ast.FunctionDef,
                                                   ast.AsyncFunctionDef)) and n.name == owner]
        if not found or not isinstance(found[-1], ast.ClassDef):
            return "nested"
        body = found[-1].body
    return "method"


def module_view(text: str, path: Path | None, workspace: Path | None,
                environ: Mapping[str, str] | None = None) -> ModuleView:
    """The module held in ``text`` (the file ``path``, None for a document without one)
    and the view of ``workspace`` its versions get, with the packages of the environment
    ``environ`` (the process's by default) activates when the workspace has none of its
    own. Reads files; runs nothing."""
    layout = _Layout.of(path, workspace, os.environ if environ is None else environ)
    builder = _Builder(layout)
    builder.add_module(layout.rel, text, layout.name, layout.is_package)
    for init, dotted in layout.package_inits():
        builder.add_file(init, dotted, is_package=True)
    builder.follow()
    for rel in [layout.rel, *builder.installed]:
        builder.add_package_data(rel)
    return ModuleView(
        name=layout.name,
        path=layout.rel.as_posix(),
        package=layout.package,
        files=tuple(builder.files.items()),
        roots=tuple(r.as_posix() if r.parts else "" for r in layout.roots),
        notes=tuple(builder.notes),
        tree=builder.trees.get(layout.rel),
        workspace=layout.workspace,
    )


def module_context(text: str, path: Path | None, workspace: Path | None,
                   qualified_name: str, kind: str = "function") -> ModuleContext:
    """:func:`module_view` for one function."""
    return module_view(text, path, workspace).context(qualified_name, kind)


# --------------------------------------------------------------------------- layout


@dataclass
class _Layout:
    """Where the module sits: the workspace (resolved, or None), the module's path in the
    view, its dotted name, and the folders imports are looked up in (relative)."""

    workspace: Path | None
    rel: PurePosixPath
    name: str
    is_package: bool
    roots: list[PurePosixPath]
    #: The site-packages of the workspace's virtual environment (the last root), if any.
    installed: PurePosixPath | None = None
    #: The real site-packages folder ``installed`` stands for when the environment is an
    #: activated one outside the workspace (None: ``installed`` is in the workspace).
    outside: Path | None = None

    @property
    def package(self) -> str:
        return self.name if self.is_package else self.name.rpartition(".")[0]

    @classmethod
    def of(cls, path: Path | None, workspace: Path | None,
           environ: Mapping[str, str]) -> _Layout:
        if path is None:
            return cls(None, PurePosixPath(f"{UNTITLED}.py"), UNTITLED, False,
                       [PurePosixPath()])
        root = _not_above_home(_resolved(workspace), path)
        inside = _relative(path, root)
        if root is None or inside is None:
            stem = path.stem if path.suffix == ".py" else path.name
            return cls(None, PurePosixPath(f"{stem}.py"), stem, False, [PurePosixPath()])
        parts = list(inside.parts)
        is_package = parts[-1] == "__init__.py"
        names = parts[:-1] if is_package else [*parts[:-1], Path(parts[-1]).stem]
        # the package chain: folders above the module that hold an __init__.py
        depth = len(parts) - 1
        top = depth
        while top > 0 and (root.joinpath(*parts[:top]) / "__init__.py").is_file():
            top -= 1
        dotted = names[top:] or [Path(parts[-1]).stem]
        import_root = PurePosixPath(*parts[:top])
        roots = [import_root]
        for extra in (PurePosixPath(), PurePosixPath("src")):
            if extra not in roots and (root / extra).is_dir():
                roots.append(extra)
        installed = next(iter(environment_roots(root)), None)
        outside = active_environment(environ) if installed is None else None
        if outside is not None:
            installed = outside.root
        return cls(root, PurePosixPath(*parts), ".".join(dotted), is_package,
                   [*roots, *([installed] if installed is not None else [])], installed,
                   outside.site if outside is not None else None)

    def from_environment(self, rel: PurePosixPath) -> bool:
        """Whether ``rel`` (a root or a file) is in the environment's site-packages."""
        return self.installed is not None and rel.is_relative_to(self.installed)

    def base(self, rel: PurePosixPath) -> tuple[Path, PurePosixPath]:
        """The real folder ``rel`` of the view is read under, and ``rel`` inside it: the
        workspace, or the activated environment's site-packages for its files."""
        assert self.workspace is not None
        if self.outside is not None and self.installed is not None \
                and rel.is_relative_to(self.installed):
            return self.outside, PurePosixPath(*rel.relative_to(self.installed).parts)
        return self.workspace, rel

    def real(self, rel: PurePosixPath) -> Path:
        """Where ``rel`` of the view is on disk (links not followed: :meth:`read` checks)."""
        folder, inside = self.base(rel)
        return folder.joinpath(*inside.parts)

    def read(self, rel: PurePosixPath, limit: int) -> tuple[str | None, str]:
        """:func:`read_inside` of ``rel`` under the folder it belongs to."""
        folder, inside = self.base(rel)
        return read_inside(folder, inside, limit)

    def package_inits(self) -> list[tuple[PurePosixPath, str]]:
        """The ``__init__.py`` of each package above the module and its dotted name,
        outermost first (importing the module runs them first)."""
        if self.workspace is None:
            return []
        parents = self.name.split(".")[:-1]
        folder = self.rel.parent.parent if self.is_package else self.rel.parent
        out: list[tuple[PurePosixPath, str]] = []
        for j in range(len(parents), 0, -1):
            out.append((folder / "__init__.py", ".".join(parents[:j])))
            folder = folder.parent
        return out[::-1]


#: The folders of the workspace a virtual environment lives in (``python -m venv .venv``,
#: uv's and Poetry's in-project one, ``venv``, ``env``), the first with a ``pyvenv.cfg`` counts.
ENVIRONMENTS = (".venv", "venv", "env")
#: Entries of an installed package looked at for native code, at most.
MAX_PACKAGE_ENTRIES = 4000
#: What an extension module's file ends with.
NATIVE_SUFFIXES = (".so", ".pyd", ".dylib")


def environment_roots(root: Path) -> list[PurePosixPath]:
    """The site-packages of the workspace's virtual environment (relative; empty when it
    has none): an import the workspace's own folders do not give is looked up there last,
    as the environment's Python would find it. Of several Pythons' folders, the one of the
    sandbox's Python, else the newest."""
    for name in ENVIRONMENTS:
        env = root / name
        if not (env / "pyvenv.cfg").is_file():
            continue
        own = f"python{sys.version_info[0]}.{sys.version_info[1]}"
        found = sorted((p.parent.name for p in env.glob("lib/python3.*/site-packages")
                        if p.is_dir()), key=lambda v: (v == own, _version(v)), reverse=True)
        if found:
            return [PurePosixPath(name, "lib", found[0], "site-packages")]
        if (env / "Lib" / "site-packages").is_dir():
            return [PurePosixPath(name, "Lib", "site-packages")]
    return []


#: What an activated environment sets: ``VIRTUAL_ENV`` (``venv``'s ``activate``, Poetry,
#: Pipenv, Hatch, uv, tox), then conda's ``CONDA_PREFIX``.
ACTIVE_ENVIRONMENT_VARIABLES = ("VIRTUAL_ENV", "CONDA_PREFIX")


@dataclass(frozen=True)
class ActiveEnvironment:
    """An activated environment outside the workspace: its real ``site-packages`` folder,
    and ``root``, where the view shows it (as a workspace's ``.venv`` would be)."""

    site: Path
    root: PurePosixPath


def active_environment(environ: Mapping[str, str]) -> ActiveEnvironment | None:
    """The environment ``environ`` says is activated, when it is one (a ``pyvenv.cfg`` or
    conda's ``conda-meta`` in it) with a ``site-packages``: the sandbox's Python's folder of
    several, else the newest. Only the user's own process sets these variables; nothing a
    repository holds names it."""
    for variable in ACTIVE_ENVIRONMENT_VARIABLES:
        value = environ.get(variable, "")
        if not value or "\0" in value or not os.path.isabs(value):
            continue
        env = _resolved(Path(value))
        if env is None or not ((env / "pyvenv.cfg").is_file() or (env / "conda-meta").is_dir()):
            continue
        own = f"python{sys.version_info[0]}.{sys.version_info[1]}"
        found = sorted((p.parent.name for p in env.glob("lib/python3.*/site-packages")
                        if p.is_dir()), key=lambda v: (v == own, _version(v)), reverse=True)
        if found:
            return ActiveEnvironment(env / "lib" / found[0] / "site-packages",
                                     PurePosixPath(".venv", "lib", found[0], "site-packages"))
        if (env / "Lib" / "site-packages").is_dir():
            return ActiveEnvironment(env / "Lib" / "site-packages",
                                     PurePosixPath(".venv", "Lib", "site-packages"))
    return None


def _version(folder: str) -> tuple[int, ...]:
    """``python3.12`` -> (3, 12)."""
    digits = folder.removeprefix("python").split(".")
    return tuple(int(d) for d in digits if d.isdigit())


def native_code(folder: Path) -> bool:
    """Whether an installed package's folder holds an extension module (a compiled
    ``.so``/``.pyd``): the sandbox loads Python sources only, so such a package is left out
    whole (one looked at past :data:`MAX_PACKAGE_ENTRIES` entries counts as having one)."""
    seen = 0
    stack = [folder]
    while stack:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if seen > MAX_PACKAGE_ENTRIES or entry.name.endswith(NATIVE_SUFFIXES):
                return True
            if entry.is_dir(follow_symlinks=False):
                stack.append(Path(entry.path))
    return False


def _resolved(workspace: Path | None) -> Path | None:
    if workspace is None:
        return None
    try:
        return workspace.resolve()
    except (OSError, RuntimeError):
        return None


def _not_above_home(root: Path | None, path: Path) -> Path | None:
    """``root``, or, when it holds the user's home folder (a workspace opened at ``/`` or at
    ``~``), the folder of the module's top package: the view is the user's code, never the
    home folder itself. None when even that folder holds the home folder."""
    home = _resolved(Path.home())
    if root is None or home is None or not home.is_relative_to(root):
        return root
    folder = _resolved(path.parent)
    while folder is not None and (folder / "__init__.py").is_file() and folder != folder.parent:
        folder = folder.parent
    if folder is None or home.is_relative_to(folder):
        return None
    return folder


def _relative(path: Path, root: Path | None) -> PurePosixPath | None:
    """``path`` relative to ``root`` (both resolved), or None outside it."""
    if root is None:
        return None
    try:
        rel = path.resolve().relative_to(root)
    except (OSError, RuntimeError, ValueError):
        return None
    if not rel.parts or any(p.startswith(".") for p in rel.parts):
        return None
    return PurePosixPath(*rel.parts)


# --------------------------------------------------------------------------- imports


def imported_names(tree: ast.Module, module: str, is_package: bool) -> list[str]:
    """Absolute names of the modules ``tree`` may import (``module`` is its dotted name):
    each ``import a.b`` as ``a`` and ``a.b``; each ``from x import y`` as ``x`` and, in
    case ``y`` is a submodule, ``x.y``; relative imports resolved against the package.
    Imports anywhere in the module count, inside functions too (they run when called)."""
    package = module if is_package else module.rpartition(".")[0]
    out: dict[str, None] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                for k in range(1, len(parts) + 1):
                    out[".".join(parts[:k])] = None
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node.module, node.level, package)
            if base is None:
                continue
            parts = base.split(".") if base else []
            for k in range(1, len(parts) + 1):
                out[".".join(parts[:k])] = None
            for alias in node.names:
                if alias.name != "*":
                    out[f"{base}.{alias.name}" if base else alias.name] = None
    return list(out)


def _absolute(name: str | None, level: int, package: str) -> str | None:
    """The absolute module of ``from <level dots><name> import ...`` in ``package``."""
    if level == 0:
        return name
    parts = package.split(".") if package else []
    if level - 1 > len(parts) or not parts:
        return None
    base = parts[: len(parts) - (level - 1)]
    return ".".join([*base, *([name] if name else [])])


def _data_names(tree: ast.Module) -> set[str]:
    """String constants of ``tree`` that name a data file beside the module: one name
    with a suffix (``data.txt``), no folder, not a Python source."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            name = node.value
            if (0 < len(name) <= 100 and "/" not in name and "\\" not in name
                    and not name.startswith(".") and "." in name and " " not in name
                    and not name.endswith((".py", ".pyc")) and name.isprintable()):
                out.add(name)
    return out


class _Builder:
    """Collects the view: files by relative path, their syntax trees, and notes."""

    def __init__(self, layout: _Layout) -> None:
        self.layout = layout
        self.files: dict[str, str] = {}
        self.trees: dict[PurePosixPath, ast.Module | None] = {}
        self.pending: list[tuple[PurePosixPath, str, bool]] = []
        self.bytes = 0
        self.notes: list[str] = []
        self.left_out: set[str] = set()
        self._full = False
        self._seen_names: set[str] = set()
        #: The files added from the virtual environment's site-packages.
        self.installed: list[PurePosixPath] = []

    def add_module(self, rel: PurePosixPath, text: str, dotted: str, is_package: bool) -> None:
        """The module itself, from the editor's text."""
        self.files[rel.as_posix()] = text
        self.bytes += len(text.encode("utf-8", "surrogatepass"))
        self.trees[rel] = _parse(text)
        self.pending.append((rel, dotted, is_package))

    def add_file(self, rel: PurePosixPath, dotted: str, is_package: bool) -> None:
        """A project file read from the workspace (once; bounded; notes for what is left
        out)."""
        key = rel.as_posix()
        if key in self.files or key in self.left_out or self.layout.workspace is None:
            return
        refused = workspace_refusal(rel)
        if refused is not None:
            self.left_out.add(key)
            self.notes.append(f"{key} left out of the sandbox's view: {refused}")
            return
        if len(self.files) >= MAX_VIEW_FILES:
            if not self._full:
                self._full = True
                self.notes.append(f"the sandbox's view holds the first {MAX_VIEW_FILES} "
                                  "files the module imports; the others were left out")
            return
        text, problem = self.layout.read(rel, min(MAX_FILE_BYTES, MAX_VIEW_BYTES - self.bytes))
        if text is None:
            self.left_out.add(key)
            if problem:
                self.notes.append(f"{key} left out of the sandbox's view: {problem}")
            return
        self.files[key] = text
        self.bytes += len(text.encode("utf-8"))
        self.trees[rel] = _parse(text)
        self.pending.append((rel, dotted, is_package))
        if self.layout.from_environment(rel):
            self.installed.append(rel)

    def add_package_data(self, rel: PurePosixPath) -> None:
        """Data files of the folder of ``rel`` (the module, or a file of an installed
        package) that its text names (``"data.txt"`` in
        ``pkgutil.get_data(__package__, "data.txt")``, ``files(...) / "words.json"``,
        ``open(join(dirname(__file__), "table.csv"))``): text files only, at most
        :data:`MAX_DATA_FILES`, so that its top level reads what it reads when installed."""
        tree = self.trees.get(rel)
        if tree is None or self.layout.workspace is None:
            return
        folder = rel.parent
        for name in sorted(_data_names(tree))[:MAX_DATA_FILES]:
            data = folder / name
            key = data.as_posix()
            if key in self.files or len(self.files) >= MAX_VIEW_FILES \
                    or not self.layout.real(data).is_file():
                continue
            refused = workspace_refusal(data)
            if refused is not None:  # certifi's ``cacert.pem``: named like a key file
                self.notes.append(f"{key} left out of the sandbox's view: {refused}")
                continue
            text, _ = self.layout.read(data, min(MAX_FILE_BYTES, MAX_VIEW_BYTES - self.bytes))
            if text is not None:
                self.files[key] = text
                self.bytes += len(text.encode("utf-8"))

    def follow(self) -> None:
        """Add what the files added so far import, until nothing new comes in (nothing
        for a module outside the workspace: no other file may be read)."""
        while self.pending and self.layout.workspace is not None:
            rel, dotted, is_package = self.pending.pop(0)
            tree = self.trees.get(rel)
            if tree is None:
                continue
            for name in imported_names(tree, dotted, is_package):
                if name in self._seen_names or name.partition(".")[0] in _STDLIB:
                    continue
                if len(self._seen_names) >= MAX_IMPORTED_NAMES:
                    self.notes.append(f"the sandbox's view follows the first "
                                      f"{MAX_IMPORTED_NAMES} imported names; the others "
                                      "were left out")
                    return
                self._seen_names.add(name)
                for found, found_name, package in self._locate(name):
                    self.add_file(found, found_name, package)

    def _locate(self, name: str) -> list[tuple[PurePosixPath, str, bool]]:
        """The files importing ``name`` reads (its packages' ``__init__.py`` and the module),
        from the first root that has its top-level name, as a path finder would."""
        real = self.layout.real
        parts = name.split(".")
        if not all(p.isidentifier() for p in parts):
            return []
        roots = self.layout.roots
        # a regular package or module first, in sys.path order; a namespace folder last
        for base in [*(b for b in roots if _defines(real(b), parts[0])),
                     *(b for b in roots if real(b / parts[0]).is_dir())]:
            if self.layout.from_environment(base) and self._native(base, parts[0]):
                return []
            found: list[tuple[PurePosixPath, str, bool]] = []
            here = PurePosixPath(base)
            for i, part in enumerate(parts):
                dotted = ".".join(parts[: i + 1])
                package = real(here / part)
                if (package / "__init__.py").is_file():
                    found.append((here / part / "__init__.py", dotted, True))
                    here = here / part
                elif real(here / f"{part}.py").is_file():
                    found.append((here / f"{part}.py", dotted, False))
                    break
                elif package.is_dir():  # a namespace package
                    here = here / part
                else:
                    break
            return found
        return []


    def _native(self, base: PurePosixPath, top: str) -> bool:
        """Whether the environment's package ``top`` has native code, or leads out of the
        workspace (or the activated environment) through a link (its folder is then not
        even listed); said once."""
        folder = self.layout.real(base / top)
        if not folder.is_dir():
            return False
        home = self.layout.base(base)[0]
        outside = not Path(os.path.realpath(folder)).is_relative_to(home)
        if not outside and not native_code(folder):
            return False
        where = "the workspace" if self.layout.outside is None else "the environment"
        why = f"it leads out of {where}" if outside else \
            "it has native code (the sandbox loads Python sources only)"
        whose = "the workspace's" if self.layout.outside is None else "the activated"
        note = f"`{top}` of {whose} environment left out of the sandbox's view: {why}"
        if note not in self.notes:
            self.notes.append(note)
        return True


def _defines(folder: Path, name: str) -> bool:
    """Whether ``folder`` holds a regular package or a module ``name``."""
    return (folder / name / "__init__.py").is_file() or (folder / f"{name}.py").is_file()


def _parse(text: str) -> ast.Module | None:
    try:
        return pyast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def read_inside(root: Path, rel: PurePosixPath, limit: int) -> tuple[str | None, str]:
    """The text of ``root / rel`` when it resolves, under the workspace's one rule
    (:func:`~codequorum.core.safe_paths.read_workspace_file`: inside ``root``, nothing hidden
    or secret-looking where a link leads, a regular file), to UTF-8 text of at most
    ``limit`` bytes; else (None, why)."""
    try:
        _real, data = read_workspace_file(root, root.joinpath(*rel.parts), limit)
    except RefusedFile as exc:
        return None, str(exc)
    except FileNotFoundError:
        return None, "no such file"
    try:
        return data.decode("utf-8"), ""
    except UnicodeDecodeError:
        return None, "not UTF-8 text"


__all__ = [
    "ACTIVE_ENVIRONMENT_VARIABLES",
    "ENVIRONMENTS",
    "MAX_FILE_BYTES",
    "MAX_VIEW_BYTES",
    "MAX_VIEW_FILES",
    "ActiveEnvironment",
    "ModuleView",
    "active_environment",
    "environment_roots",
    "function_kind",
    "imported_names",
    "module_context",
    "module_view",
    "native_code",
]
