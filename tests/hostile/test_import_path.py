"""A repository's Python files are never imported by codequorum's own processes.

``python -m codequorum`` puts the current folder first on ``sys.path``: run inside a
repository (as the editor starts the language server, with the workspace folder as its
current folder), the repository's ``numpy.py`` or ``json.py`` would be imported by the
CLI, the language server or the MCP server with the user's rights. Each module here writes
the marker when imported; none may run.
"""

from __future__ import annotations

import pytest

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
