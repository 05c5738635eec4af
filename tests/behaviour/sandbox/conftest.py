"""Fixtures for the sandbox tests: other interpreters on this machine, a loopback listener
that hostile versions try to reach."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
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


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A TCP listener on 127.0.0.1 that candidates try to reach."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(5)
    sock.settimeout(0.5)
    yield sock
    sock.close()


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """Every path under ``root`` with its size and mtime (to show nothing changed)."""
    out = {}
    for path in sorted(root.rglob("*")):
        st = path.lstat()
        out[str(path.relative_to(root))] = (st.st_size, st.st_mtime_ns)
    return out
