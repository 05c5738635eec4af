"""A call the client cancels stops its work: the sandboxed versions are killed, no further
request goes to the endpoint, and the server goes on answering."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import anyio
from mcp import ClientSession

from tests.agents.conftest import CLOSE, call, mcp_session, store_versions
from tests.support.chat_server import ChatServer, RecordedTask, code_answer, slow

SPIN = "def spin(x: int) -> int:\n    while True:\n        x += 1\n"
TWO = ["def f(x):\n    return x\n", "def f(x):\n    return x + 0\n"]


def _server_pid(root: Path) -> int:
    """The ``codequorum mcp ROOT`` process serving ``root``."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"mcp" in argv and str(root).encode() in argv:
            return int(entry.name)
    raise AssertionError(f"no codequorum mcp process for {root}")


def _tree() -> dict[int, int]:
    """Every live process and its parent."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if fields[0] != "Z":
                parents[int(entry.name)] = int(fields[1])
    return parents


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _sandboxed(pid: int) -> set[int]:
    """The processes below the sandbox's fork server under the server ``pid``: the versions
    it runs, and a spare it may keep ready."""
    parents = _tree()
    below: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier}
        below |= frontier
    servers = {p for p in below if parents[p] not in below or b"--fork-server" not in
               _cmdline(parents[p])}
    return {p for p in below - servers if b"--fork-server" in _cmdline(p)}


def _cpu_seconds(pids: set[int]) -> dict[int, float]:
    """CPU time (user + system) each of ``pids`` has used so far."""
    used: dict[int, float] = {}
    for p in pids:
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        used[p] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return used


async def _busy(pid: int, window: float = 1.0) -> float:
    """The share of ``window`` seconds of CPU the sandboxed processes used in it (a process
    that started in the window counts whole)."""
    before = _cpu_seconds(_sandboxed(pid))
    await anyio.sleep(window)
    after = _cpu_seconds(_sandboxed(pid))
    return sum(used - before.get(p, 0.0) for p, used in after.items()) / window


async def _wait(predicate: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        await anyio.sleep(0.1)
    return False


async def test_cancelling_a_dynamic_check_kills_the_versions(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / ".git").mkdir(parents=True)
    (root / "spin.py").write_text(SPIN, encoding="utf-8")
    store_versions(root, root / "spin.py", "spin", [SPIN, SPIN.replace("x += 1", "x -= 1")])
    async with mcp_session(root, "--timeout", "120") as session:
        pid = _server_pid(root)
        assert _sandboxed(pid) == set()
        async with anyio.create_task_group() as group:
            group.start_soon(call, session, "check_function",
                             {"path": "spin.py", "function": "spin", "dynamic": True})
            deadline = time.monotonic() + 60
            while await _busy(pid) < 0.3:
                assert time.monotonic() < deadline, "no version started"
            group.cancel_scope.cancel()
        deadline = time.monotonic() + 15
        while await _busy(pid) > 0.1:
            assert time.monotonic() < deadline, "the versions still run"
        after = await call(session, "compare_versions", {"versions": TWO})
    assert not after.is_error


async def _sample(session: ClientSession) -> None:
    await call(session, "sample_versions",
               {"path": "src/close.py", "function": "has_close_elements", "count": 3})


async def test_cancelling_sampling_sends_no_further_request(close_ws: Path,
                                                            shared_dir: Path) -> None:
    task = RecordedTask.load("HumanEval/0", shared_dir / "data" /
                             "humaneval_codegen16b_t0.8.jsonl")
    with ChatServer(script=[slow(2.0, code_answer(task.codes[0]))], default=task) as server:
        flags = ["--base-url", server.base_url, "--api-key-env", "", "--model", "m",
                 "--concurrency", "1"]
        async with mcp_session(close_ws, *flags) as session:
            async with anyio.create_task_group() as group:
                group.start_soon(_sample, session)
                assert await _wait(lambda: len(server.chat_requests) == 1, 30)
                group.cancel_scope.cancel()
            await anyio.sleep(3.5)  # the first answer would have come, and two more requests
            assert len(server.chat_requests) == 1
            after = await call(session, "compare_versions", {"versions": TWO})
    assert not after.is_error
    assert (close_ws / "src" / "close.py").read_text(encoding="utf-8") == CLOSE

