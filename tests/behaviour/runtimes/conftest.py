"""Node tests need a supported Node and the strict sandbox; they are skipped without."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from codequorum.behaviour.runtimes import node_sandbox


@pytest.fixture(scope="session")
def node_sandboxed() -> node_sandbox.NodeBinary:
    """The Node that runs versions, its sandbox shown to hold (else the test is skipped)."""
    found = node_sandbox.find_node()
    if found is None:
        pytest.skip("no supported Node here")
    held, why, _layers = node_sandbox.probe()
    if not held:
        pytest.skip(why)
    return found


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A TCP listener on 127.0.0.1 that versions try to reach."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(5)
    sock.settimeout(0.5)
    yield sock
    sock.close()
