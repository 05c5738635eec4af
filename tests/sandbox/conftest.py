"""Fixtures for the sandbox tests: other interpreters on this machine."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

PY312 = os.environ.get("CODEQUORUM_PY312", "/root/.pyenv/versions/3.12.1/bin/python3.12")
PY313 = os.environ.get("CODEQUORUM_PY313", "/root/.pyenv/versions/3.13.0/bin/python3.13")


@pytest.fixture(scope="session")
def python312() -> str:
    """A CPython 3.12 interpreter (the test is skipped without one)."""
    if not Path(PY312).is_file():
        pytest.skip(f"no Python 3.12 at {PY312}; set CODEQUORUM_PY312")
    return PY312


@pytest.fixture(scope="session")
def python313() -> str:
    """A CPython 3.13 interpreter (the test is skipped without one)."""
    if not Path(PY313).is_file():
        pytest.skip(f"no Python 3.13 at {PY313}; set CODEQUORUM_PY313")
    return PY313
