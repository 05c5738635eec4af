"""The process's end: ``codequorum lsp`` exits 0 after ``shutdown`` and ``exit``, 1 after an
``exit`` that no ``shutdown`` came before (as the protocol asks), and says nothing on stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from .conftest import REPO


def frame(message: dict[str, Any]) -> bytes:
    """One JSON-RPC message with its ``Content-Length`` header."""
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def unframe(data: bytes) -> list[dict[str, Any]]:
    """The messages of a JSON-RPC stream."""
    out: list[dict[str, Any]] = []
    while data:
        head, _, rest = data.partition(b"\r\n\r\n")
        length = next(
            int(line.split(b":", 1)[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        out.append(json.loads(rest[:length]))
        data = rest[length:]
    return out


def run_server(
    messages: list[dict[str, Any]], tmp_path: Path
) -> subprocess.CompletedProcess[bytes]:
    """``codequorum lsp`` fed ``messages`` on stdin, until it ends."""
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO / "server"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }
    return subprocess.run(
        [sys.executable, "-m", "codequorum", "lsp"],
        input=b"".join(frame(m) for m in messages),
        capture_output=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
        check=False,
    )


START: list[dict[str, Any]] = [
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"processId": None, "rootUri": None, "capabilities": {}},
    },
    {"jsonrpc": "2.0", "method": "initialized", "params": {}},
]
EXIT = {"jsonrpc": "2.0", "method": "exit"}


def test_exit_after_shutdown_ends_with_0_and_a_quiet_stderr(tmp_path: Path) -> None:
    proc = run_server([*START, {"jsonrpc": "2.0", "id": 2, "method": "shutdown"}, EXIT], tmp_path)
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stderr.decode() == ""
    answers = {m["id"]: m for m in unframe(proc.stdout) if "id" in m}
    assert answers[2] == {"jsonrpc": "2.0", "id": 2, "result": None}


def test_exit_without_shutdown_ends_with_1(tmp_path: Path) -> None:
    proc = run_server([*START, EXIT], tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.decode() == ""
