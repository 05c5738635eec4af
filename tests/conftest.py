"""Shared test fixtures: where the reference data lives."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("CODEQUORUM_SHARED", REPO.parent / "shared"))
REFERENCE = SHARED / "fixtures" / "reference"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The project's ../shared folder (reference data, real samples)."""
    if not SHARED.is_dir():
        pytest.fail(f"../shared not found at {SHARED}; set CODEQUORUM_SHARED")
    return SHARED


@pytest.fixture(scope="session")
def reference_dir(shared_dir: Path) -> Path:
    """../shared/fixtures/reference."""
    return shared_dir / "fixtures" / "reference"


@pytest.fixture(autouse=True)
def _own_user_config(tmp_path_factory: pytest.TempPathFactory,
                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test gets an empty user configuration folder: a developer's own
    ``~/.config/codequorum`` (configuration, approvals) never changes a result."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("xdg-config")))
