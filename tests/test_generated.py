"""Every generated file is current: ``scripts/generate --check`` finds nothing to write,
and a file a generator would change is named."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[1]


def _script() -> ModuleType:
    path = REPO / "scripts" / "generate"
    loader = importlib.machinery.SourceFileLoader("generate_script", str(path))
    spec = importlib.util.spec_from_loader("generate_script", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    loader.exec_module(module)
    return module


def test_every_generated_file_is_current() -> None:
    # after changing a registry, a declaration or the command contract: scripts/generate
    assert _script().generate(REPO, check=True) == []


def test_a_file_out_of_date_is_named_and_written_back(tmp_path: Path) -> None:
    script = _script()
    paths = sorted({g.path for g in script.GENERATORS if isinstance(g, script.Generated)})
    for path in paths:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO / path, tmp_path / path)
    doc = tmp_path / "docs" / "metrics.md"
    doc.write_text(doc.read_text(encoding="utf-8").replace("| `jsd_struct` |", "| `jsd` |"),
                   encoding="utf-8")
    (tmp_path / "shared" / "metrics.json").write_text("{}\n", encoding="utf-8")
    python_only = [g for g in script.GENERATORS if isinstance(g, script.Generated)]
    script.GENERATORS = tuple(python_only)  # type: ignore[attr-defined]
    assert script.generate(tmp_path, check=True) == ["shared/metrics.json is not current",
                                                     "docs/metrics.md is not current"]
    assert script.generate(tmp_path) == []
    assert script.generate(tmp_path, check=True) == []
    for path in paths:
        assert (tmp_path / path).read_bytes() == (REPO / path).read_bytes(), path


@pytest.mark.skipif(shutil.which("node") is None, reason="no node: the extension's "
                    "generators are left out")
def test_the_extensions_generators_run_in_the_order_after_the_shared_files() -> None:
    script = _script()
    kinds = [isinstance(g, script.NodeGenerated) for g in script.GENERATORS]
    assert kinds == sorted(kinds)  # the server's files first: the extension's read them
