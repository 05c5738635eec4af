"""A repository's Python files are never imported by codequorum's own processes.

``python -m codequorum`` puts the current folder first on ``sys.path``: run inside a
repository (as the editor starts the language server, with the workspace folder as its
current folder), the repository's ``numpy.py`` or ``json.py`` would be imported by the
CLI, the language server or the MCP server with the user's rights. Each module here writes
the marker when imported; none may run.
"""

from __future__ import annotations

from typing import Any, cast

import pytest
from lsprotocol import types

from codequorum.lsp.progress import WorkProgress
from tests.hostile.conftest import Hostile

#: Modules codequorum imports once it runs (not those the interpreter loads before
#: ``codequorum/__main__.py`` runs, which only ``python -P`` keeps out).
SHADOWED = ("numpy", "json", "tomllib", "rich", "sqlite3", "tree_sitter", "httpx",
            "pygls", "lsprotocol", "mcp", "sitecustomize", "usercustomize", "logging",
            "argparse", "dataclasses", "hashlib")


def _plant(hostile: Hostile, folder: str = "") -> None:
    for name in SHADOWED:
        hostile.write(f"{folder}{name}.py",
                      f"open({str(hostile.marker)!r}, 'a').write('{folder}{name}\\n')\n"
                      "raise SystemExit(99)\n")


@pytest.mark.parametrize("args", [
    ("score", "samples.jsonl"),
    ("check", "src"),
    ("export", "-o", "-"),
    ("demo",),
    ("doctor",),
])
def test_modules_in_the_current_folder_are_not_imported(hostile: Hostile,
                                                        args: tuple[str, ...]) -> None:
    _plant(hostile)
    _plant(hostile, "src/")
    result = hostile.run(*args)
    assert not hostile.marker.exists(), hostile.marker.read_text()
    assert result.returncode in (0, 1), result.stderr
    assert "Traceback" not in result.stderr, result.stderr


async def test_the_servers_compile_of_the_portable_sandbox_imports_no_package_of_the_folder(
        hostile: Hostile, monkeypatch: pytest.MonkeyPatch) -> None:
    """The language server compiles the portable interpreter in a child, ``python -m
    codequorum doctor --prepare``; run in the workspace folder (where editors start the
    server: ``cmd = { "codequorum", "lsp" }`` has no ``-P``), ``-m`` put that folder first
    and imported the repository's own ``codequorum/`` package with the user's rights."""
    from codequorum.lsp import prepare

    hostile.write("codequorum/__init__.py",
                  f"open({str(hostile.marker)!r}, 'a').write('codequorum\\n')\n"
                  "raise SystemExit(99)\n")
    hostile.write("codequorum/__main__.py", "")
    blocked = hostile.home / "not-a-folder"
    blocked.write_text("", encoding="utf-8")  # a cache below a file: the compile fails at once
    monkeypatch.setenv("CODEQUORUM_WASM_CACHE", str(blocked / "wasm"))
    monkeypatch.delenv("PYTHONSAFEPATH", raising=False)
    monkeypatch.chdir(hostile.repo)
    warned: list[str] = []
    def no_bar(title: str) -> WorkProgress:  # a client that draws no progress bars
        return WorkProgress(cast(Any, None), types.ClientCapabilities(), title)

    assert not await prepare.prepare_portable(no_bar, warned.append)
    assert not hostile.marker.exists(), hostile.marker.read_text()
    assert len(warned) == 1 and "not-a-folder" in warned[0], warned

