"""The module a function lives in and the workspace view its versions get."""

from __future__ import annotations

import ast
import os
import sys
from pathlib import Path, PurePosixPath

import pytest

from codequorum.core.safe_paths import HIDDEN, SECRET_LOOKING
from codequorum.ingest import module_view as mv
from codequorum.ingest.module_view import (
    function_kind,
    imported_names,
    module_context,
    module_view,
)


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    write(tmp_path, {
        ".git/config": "[core]\n",
        ".env": "TOKEN=secret\n",
        ".codequorum/notes.py": "X = 1\n",
        "data.json": "{}\n",
        "pkg/__init__.py": "from .util import helper\n",
        "pkg/util.py": "import os\nfrom lib import thing\nfrom . import consts\n"
                       "def helper(x):\n    return x\n",
        "pkg/consts.py": "X = 1\n",
        "pkg/unused.py": "Y = 2\n",
        "pkg/credentials.py": "PASSWORD = 'hunter2'\n",
        "pkg/secret_store/__init__.py": "TOKEN = 'x'\n",
        "pkg/app.py": "import re\nimport numpy\nfrom .util import helper\n"
                      "from . import credentials\nfrom .secret_store import TOKEN\n\n"
                      "def parse(x):\n    def inner():\n        import pkg.late\n    return x\n\n"
                      "class Shape:\n    class Side:\n        def length(self):\n"
                      "            return 1\n    def area(self):\n        return 1\n",
        "pkg/late.py": "Z = 3\n",
        "src/lib/__init__.py": "thing = 1\n",
        "scripts/tool.py": "import json\n",
    })
    return tmp_path


def test_a_package_module_and_what_it_imports(workspace: Path) -> None:
    path = workspace / "pkg" / "app.py"
    view = module_view(path.read_text(), path, workspace)
    assert (view.name, view.path, view.package, view.roots) == ("pkg.app", "pkg/app.py", "pkg",
                                                                 ("", "src"))
    files = dict(view.files)
    assert sorted(files) == ["pkg/__init__.py", "pkg/app.py", "pkg/consts.py", "pkg/late.py",
                             "pkg/util.py", "src/lib/__init__.py"]
    assert files["pkg/consts.py"] == "X = 1\n"
    assert view.notes == (
        f"pkg/credentials.py left out of the sandbox's view: {SECRET_LOOKING}",
        f"pkg/secret_store/__init__.py left out of the sandbox's view: {SECRET_LOOKING}",
    )


def test_the_module_is_the_editors_text_not_the_file(workspace: Path) -> None:
    path = workspace / "pkg" / "app.py"
    unsaved = "from . import consts\n\ndef parse(x):\n    return consts.X\n"
    view = module_view(unsaved, path, workspace)
    assert dict(view.files)["pkg/app.py"] == unsaved
    assert sorted(dict(view.files)) == ["pkg/__init__.py", "pkg/app.py", "pkg/consts.py",
                                        "pkg/util.py", "src/lib/__init__.py"]


@pytest.mark.parametrize(
    ("rel", "name", "path", "roots"),
    [
        ("scripts/tool.py", "tool", "scripts/tool.py", ("scripts", "", "src")),
        ("pkg/__init__.py", "pkg", "pkg/__init__.py", ("", "src")),
        ("src/lib/__init__.py", "lib", "src/lib/__init__.py", ("src", "")),
    ],
)
def test_dotted_names_and_import_roots(workspace: Path, rel: str, name: str, path: str,
                                       roots: tuple[str, ...]) -> None:
    file = workspace / rel
    view = module_view(file.read_text(), file, workspace)
    assert (view.name, view.path, view.roots) == (name, path, roots)


def test_a_module_outside_the_workspace_or_without_a_file(tmp_path: Path,
                                                          workspace: Path) -> None:
    outside = tmp_path.parent / f"{tmp_path.name}-elsewhere.py"
    outside.write_text("from pkg import util\n")
    try:
        view = module_view(outside.read_text(), outside, workspace)
    finally:
        outside.unlink()
    assert (view.name, [f for f, _ in view.files]) == (outside.stem, [f"{outside.stem}.py"])
    untitled = module_view("import pkg\n", None, workspace)
    assert (untitled.name, untitled.path, untitled.roots) == ("untitled", "untitled.py", ("",))
    assert [f for f, _ in untitled.files] == ["untitled.py"]


def test_a_symbolic_link_out_of_the_workspace_is_not_followed(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    secret = tmp_path / "home" / "keys.py"
    write(tmp_path, {"home/keys.py": "KEY = 'private'\n"})
    write(ws, {"app.py": "import keys\nimport inside\n", "real.py": "R = 1\n"})
    (ws / "keys.py").symlink_to(secret)
    (ws / "inside.py").symlink_to(ws / "real.py")
    view = module_view((ws / "app.py").read_text(), ws / "app.py", ws)
    files = dict(view.files)
    assert sorted(files) == ["app.py", "inside.py"]
    assert files["inside.py"] == "R = 1\n"
    assert view.notes == ("keys.py left out of the sandbox's view: outside the workspace (a "
                          "path or link that leads out of it is not read)",)


def test_a_link_into_a_hidden_or_secret_file_is_refused_where_it_leads(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write(ws, {".env": "TOKEN=sk-live-123\n", ".git/config": "[remote]\nurl = tok\n",
               ".git/settings.py": "S = 'tok'\n", "keys/passwords.py": "P = 'pw'\n",
               "real.py": "R = 1\n",
               "app.py": "import helper, conf, pw, alias, gitdir.settings, proc, dev, ok\n"})
    (ws / "helper.py").symlink_to(ws / ".env")
    (ws / "conf").mkdir()
    (ws / "conf" / "__init__.py").symlink_to(ws / ".git" / "config")
    (ws / "pw.py").symlink_to(ws / "keys" / "passwords.py")
    (ws / "alias.py").symlink_to(Path("conf") / "__init__.py")  # a link to a link
    (ws / "gitdir").symlink_to(ws / ".git", target_is_directory=True)
    (ws / "proc.py").symlink_to("/proc/self/environ")
    (ws / "dev.py").symlink_to("/dev/zero")
    (ws / "ok.py").symlink_to(ws / "real.py")
    view = module_view((ws / "app.py").read_text(), ws / "app.py", ws)
    files = dict(view.files)
    assert sorted(files) == ["app.py", "ok.py"]
    assert not any("sk-live" in text or "tok" in text for text in files.values())
    outside = "outside the workspace (a path or link that leads out of it is not read)"
    assert sorted(view.notes) == sorted([  # /dev/zero is no module: never opened
        f"helper.py left out of the sandbox's view: {HIDDEN}",
        f"conf/__init__.py left out of the sandbox's view: {HIDDEN}",
        f"alias.py left out of the sandbox's view: {HIDDEN}",
        f"gitdir/settings.py left out of the sandbox's view: {HIDDEN}",
        f"pw.py left out of the sandbox's view: {SECRET_LOOKING}",
        f"proc.py left out of the sandbox's view: {outside}",
    ])


def test_a_file_swapped_for_a_link_after_the_check_is_not_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import codequorum.core.safe_paths as sp
    write(tmp_path, {".env": "TOKEN=sk-live-123\n", "helper.py": "H = 1\n",
                     "app.py": "import helper\n"})
    checked = sp.resolve_in_workspace

    def swap_after_check(root: Path, path: Path) -> Path:
        real = checked(root, path)
        path.unlink()  # the repository's process swaps the file for a link
        path.symlink_to(tmp_path / ".env")
        return real

    monkeypatch.setattr(sp, "resolve_in_workspace", swap_after_check)
    view = module_view("import helper\n", tmp_path / "app.py", tmp_path)
    assert [f for f, _ in view.files] == ["app.py"]
    assert view.notes == ("helper.py left out of the sandbox's view: changed while being read "
                          "(a link took its place)",)


def test_files_that_are_not_plain_small_utf8_are_left_out(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"app.py": "import big, latin, pipe\n", "big.py": "x" * 200 + "\n"})
    (tmp_path / "latin.py").write_bytes(b"S = '\xe9'\n")
    os.mkfifo(tmp_path / "pipe.py")
    monkeypatch.setattr(mv, "MAX_FILE_BYTES", 100)
    view = module_view("import big, latin, pipe\n", tmp_path / "app.py", tmp_path)
    assert [f for f, _ in view.files] == ["app.py"]
    assert sorted(view.notes) == [
        "big.py left out of the sandbox's view: 201 bytes, over the 100 a file read here may "
        "have",
        "latin.py left out of the sandbox's view: not UTF-8 text",
    ]  # a FIFO is not a module: never opened


def test_the_view_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    names = [f"m{i}" for i in range(10)]
    write(tmp_path, {f"{n}.py": "X = 1\n" for n in names})
    source = "".join(f"import {n}\n" for n in names)
    monkeypatch.setattr(mv, "MAX_VIEW_FILES", 4)
    view = module_view(source, tmp_path / "app.py", tmp_path)
    assert len(view.files) == 4
    assert view.notes == ("the sandbox's view holds the first 4 files the module imports; "
                          "the others were left out",)
    monkeypatch.setattr(mv, "MAX_VIEW_FILES", 256)
    monkeypatch.setattr(mv, "MAX_IMPORTED_NAMES", 3)
    view = module_view(source, tmp_path / "app.py", tmp_path)
    assert [f for f, _ in view.files] == ["app.py", "m0.py", "m1.py", "m2.py"]
    assert view.notes == ("the sandbox's view follows the first 3 imported names; the "
                          "others were left out",)


def test_imported_names() -> None:
    tree = ast.parse("import a.b.c\nfrom .x import y, z\nfrom .. import w\nfrom q import *\n"
                     "def f():\n    import late\n")
    assert imported_names(tree, "pkg.sub.mod", False) == [
        "a", "a.b", "a.b.c", "pkg", "pkg.sub", "pkg.sub.x", "pkg.sub.x.y", "pkg.sub.x.z",
        "pkg.w", "q", "late"]
    # a package's own relative imports start from itself; too many dots go nowhere
    tree = ast.parse("from . import a\nfrom ... import b\n")
    assert imported_names(tree, "pkg", True) == ["pkg", "pkg.a"]


def test_function_kinds(workspace: Path) -> None:
    path = workspace / "pkg" / "app.py"
    tree = ast.parse(path.read_text())
    assert function_kind(tree, "parse", "function") == "function"
    assert function_kind(tree, "Shape.area", "method") == "method"
    assert function_kind(tree, "Shape.Side.length", "method") == "method"
    assert function_kind(tree, "parse.inner", "function") == "nested"
    assert function_kind(None, "Shape.area", "method") == "method"
    assert function_kind(None, "parse.inner", "function") == "nested"
    context = module_context(path.read_text(), path, workspace, "Shape.area", "method")
    assert (context.kind, context.owner, context.name) == ("method", "Shape", "pkg.app")
    assert context.source == path.read_text()


def test_a_workspace_that_holds_the_home_folder_gives_only_the_modules_own_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a workspace opened at / or at ~ : the view stays in the project folder the module is in,
    # and a module right in the home folder gets no workspace view at all
    home = tmp_path / "home"
    write(home, {"secrets.py": "TOKEN = 'private'\n",
                 "proj/app.py": "import secrets\nimport helper\n",
                 "proj/helper.py": "H = 1\n",
                 "loose.py": "import secrets\n"})
    monkeypatch.setenv("HOME", str(home))
    app = home / "proj" / "app.py"
    for workspace in (tmp_path, home):
        view = module_view(app.read_text(), app, workspace)
        assert (view.name, sorted(dict(view.files))) == ("app", ["app.py", "helper.py"])
    loose = home / "loose.py"
    view = module_view(loose.read_text(), loose, home)
    assert [f for f, _ in view.files] == ["loose.py"]
    assert "TOKEN" not in repr(view)
    inner = tmp_path / "elsewhere" / "pkg"
    write(inner, {"__init__.py": "", "mod.py": "from . import sib\n", "sib.py": "S = 2\n"})
    view = module_view((inner / "mod.py").read_text(), inner / "mod.py", Path("/"))
    assert (view.name, sorted(dict(view.files))) == (
        "pkg.mod", ["pkg/__init__.py", "pkg/mod.py", "pkg/sib.py"])


def test_data_files_the_module_names_beside_it_join_the_view(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "words.txt").write_text("alpha\n")
    (tmp_path / "pkg" / "other.txt").write_text("not named\n")
    (tmp_path / "pkg" / "credentials.json").write_text("{}")
    (tmp_path / "pkg" / "blob.bin").write_bytes(b"\xff\xfe")
    text = ("import pkgutil\nWORDS = pkgutil.get_data(__package__, 'words.txt')\n"
            "KEYS = 'credentials.json'\nBLOB = 'blob.bin'\nURL = 'example.org'\n")
    (tmp_path / "pkg" / "app.py").write_text(text)
    view = mv.module_view(text, tmp_path / "pkg" / "app.py", tmp_path)
    assert sorted(path for path, _ in view.files) == [
        "pkg/__init__.py", "pkg/app.py", "pkg/words.txt"]
    assert dict(view.files)["pkg/words.txt"] == "alpha\n"


def _environment(root: Path, version: str = "python3.11") -> Path:
    """A virtual environment in ``root``'s ``.venv`` (its ``pyvenv.cfg`` and site-packages)."""
    site = root / ".venv" / "lib" / version / "site-packages"
    site.mkdir(parents=True)
    (root / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    return site


def test_pure_python_packages_of_the_workspace_s_environment_join_the_view(
        tmp_path: Path) -> None:
    """python-slugify's layout: its module imports ``text_unidecode``, installed in the
    workspace's ``.venv``, which reads ``data.bin`` beside it at import. Both join the view
    (before: "No module named 'text_unidecode'", the module did not load); a package with
    an extension module is left out and said so, and a link in site-packages to ``.env``
    is refused where it leads."""
    site = _environment(tmp_path)
    (site / "text_unidecode").mkdir()
    (site / "text_unidecode" / "__init__.py").write_text(
        "import pkgutil\n_REPLACES = pkgutil.get_data(__name__, 'data.bin')\n")
    (site / "text_unidecode" / "data.bin").write_text("a\0b\0c")
    (site / "fast").mkdir()
    (site / "fast" / "__init__.py").write_text("from ._speed import go\n")
    (site / "fast" / "_speed.cpython-311-x86_64-linux-gnu.so").write_bytes(b"\x7fELF")
    (tmp_path / ".env").write_text("TOKEN=sk-very-secret\n")
    os.symlink(tmp_path / ".env", site / "leak.py")
    os.symlink("/", site / "out")  # a package folder leading out: not even listed
    text = ("import text_unidecode\nimport fast\nimport leak\nimport out.etc\n"
            "def f(s):\n    return s\n")
    (tmp_path / "app.py").write_text(text)
    view = module_view(text, tmp_path / "app.py", tmp_path)
    assert view.roots == ("", ".venv/lib/python3.11/site-packages")
    assert sorted(p for p, _ in view.files) == [
        ".venv/lib/python3.11/site-packages/text_unidecode/__init__.py",
        ".venv/lib/python3.11/site-packages/text_unidecode/data.bin", "app.py"]
    assert all("sk-very-secret" not in t for _, t in view.files)
    assert any(n.startswith("`fast` of the workspace's environment left out") for n in view.notes)
    assert "`out` of the workspace's environment left out of the sandbox's view: it leads out " \
        "of the workspace" in view.notes
    assert any(n.startswith(".venv/lib/python3.11/site-packages/leak.py left out")
               and HIDDEN in n for n in view.notes)


def test_an_activated_environment_outside_the_workspace_gives_its_packages(
        tmp_path: Path) -> None:
    """Poetry's, Pipenv's and Hatch's environments live outside the project: the one the
    user activated (``VIRTUAL_ENV``, conda's ``CONDA_PREFIX``) gives its pure-Python
    packages, shown where a workspace's ``.venv`` would be, under the same rules where its
    links lead (a package linking to the workspace's ``.env`` or out of the environment is
    left out), and never when the workspace has an environment of its own or the variable
    names no environment."""
    project, env = tmp_path / "project", tmp_path / "cache" / "app-py3.11"
    project.mkdir()
    _environment(env.parent)
    (env.parent / ".venv").rename(env)
    site = env / "lib" / "python3.11" / "site-packages"
    (site / "attrs_like").mkdir()
    (site / "attrs_like" / "__init__.py").write_text("from .core import define\n")
    (site / "attrs_like" / "core.py").write_text("def define(c):\n    return c\n")
    (site / "fast").mkdir()
    (site / "fast" / "_speed.cpython-311-x86_64-linux-gnu.so").write_bytes(b"\x7fELF")
    (site / "fast" / "__init__.py").write_text("")
    (project / ".env").write_text("TOKEN=sk-very-secret\n")
    os.symlink(project / ".env", site / "leak.py")
    os.symlink("/etc", site / "out")
    text = ("import attrs_like\nimport fast\nimport leak\nimport out.passwd\n"
            "def f(s):\n    return s\n")
    (project / "app.py").write_text(text)
    activated = {"VIRTUAL_ENV": str(env)}
    view = module_view(text, project / "app.py", project, activated)
    root = ".venv/lib/python3.11/site-packages"
    assert view.roots == ("", root)
    assert sorted(p for p, _ in view.files) == [
        f"{root}/attrs_like/__init__.py", f"{root}/attrs_like/core.py", "app.py"]
    assert all("sk-very-secret" not in t for _, t in view.files)
    assert any(n.startswith("`fast` of the activated environment left out") and
               "native code" in n for n in view.notes)
    assert "`out` of the activated environment left out of the sandbox's view: it leads out " \
        "of the environment" in view.notes
    assert any(n.startswith(f"{root}/leak.py left out") for n in view.notes)
    # conda's variable (its environment has ``conda-meta``, no ``pyvenv.cfg``), a folder
    # that is no environment, the workspace's own first
    (env / "pyvenv.cfg").rename(env / "moved.cfg")
    assert module_view(text, project / "app.py", project, activated).roots == ("",)
    (env / "conda-meta").mkdir()
    assert module_view(text, project / "app.py", project,
                       {"CONDA_PREFIX": str(env)}).roots == ("", root)
    for value in ("", "relative/env", str(tmp_path), str(env) + "\0x"):
        assert module_view(text, project / "app.py", project, {"VIRTUAL_ENV": value}).roots \
            == ("",), value
    _environment(project)
    own = module_view(text, project / "app.py", project, activated)
    assert own.roots == ("", root) and not any("attrs_like" in p for p, _ in own.files)
    assert module_view(text, project / "app.py", project, {}).roots == ("", root)


def test_the_environment_s_packages_come_after_the_workspace_s_own_modules(
        tmp_path: Path) -> None:
    """A module of the workspace shadows a package of the same name installed in its
    environment, as on ``sys.path``; no ``pyvenv.cfg``, no environment; of several
    Pythons' site-packages the sandbox's own (else the newest)."""
    site = _environment(tmp_path)
    (site / "util.py").write_text("INSTALLED = 1\n")
    (tmp_path / "util.py").write_text("OWN = 1\n")
    text = "import util\n"
    view = module_view(text, tmp_path / "app.py", tmp_path)
    assert sorted(p for p, _ in view.files) == ["app.py", "util.py"]
    (tmp_path / ".venv" / "pyvenv.cfg").unlink()
    assert mv.environment_roots(tmp_path) == []
    (tmp_path / ".venv" / "pyvenv.cfg").write_text("")
    (tmp_path / ".venv" / "lib" / "python3.99" / "site-packages").mkdir(parents=True)
    own = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    expected = own if own == "python3.11" else "python3.99"
    assert mv.environment_roots(tmp_path) == [
        PurePosixPath(".venv", "lib", expected, "site-packages")]
