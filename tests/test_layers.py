"""The layers of the package: every import points down the flow.

The contracts live in ``pyproject.toml`` (``[tool.importlinter]``) and ``lint-imports`` checks
the same ones: a folder imports only the folders below it (``lsp`` and ``agents`` not each
other), metrics and verdicts stay pure (no I/O, protocol or network package, not even
through another module), and nothing in ``lsp/`` imports the language server itself (its
handlers see it through ``lsp/host.py``). Imports inside functions and under
``TYPE_CHECKING`` count.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from importlinter.cli import lint_imports

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = REPO / "pyproject.toml"
PACKAGE = REPO / "server" / "codequorum"


def _layers() -> list[str]:
    config = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["importlinter"]
    (contract,) = [c for c in config["contracts"] if c["type"] == "layers"]
    return [name.strip() for layer in contract["layers"] for name in layer.split("|")]


def test_every_import_points_down_the_layers(capsys: pytest.CaptureFixture[str]) -> None:
    status = lint_imports(config_filename=str(PYPROJECT), no_cache=True, no_logo=True)
    report = capsys.readouterr().out
    assert status == 0, report


def test_every_folder_of_the_package_is_a_layer() -> None:
    """A new folder outside the layer list would escape the contract."""
    folders = {f"codequorum.{p.parent.name}" for p in PACKAGE.glob("*/__init__.py")}
    assert folders == set(_layers())
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert top == ["__init__.py", "__main__.py"]
