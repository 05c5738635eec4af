"""cgroups around the strict sandbox: limits that hold even for root, where writable."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from codequorum.behaviour.sandbox import cgroups, forkserver


def _group(memory: int = 256 * 1024**2, pids: int = 8) -> cgroups.Group:
    group, why = cgroups.make(memory, pids)
    if group is None:
        pytest.skip(f"no writable cgroup here: {why}")
    return group


def test_a_group_has_its_limits_and_the_launcher_enters_it() -> None:
    group = _group(pids=8)
    try:
        limits = {p.name: p.read_text().strip() for d in group.dirs for p in d.iterdir()
                  if p.name in ("pids.max", "memory.max", "memory.limit_in_bytes")}
        assert limits["pids.max"] == "8"
        assert limits.get("memory.max", limits.get("memory.limit_in_bytes")) == str(256 * 1024**2)
        out = subprocess.run(group.launcher(["cat", "/proc/self/cgroup"]),
                             capture_output=True, text=True, check=True).stdout
        assert all(d.name in out for d in group.dirs)
    finally:
        group.remove()
    assert not any(d.exists() for d in group.dirs)


def test_the_process_limit_holds_for_root() -> None:
    group = _group(pids=6)
    script = (
        "import os, time\n"
        "made = 0\n"
        "for _ in range(20):\n"
        "    try:\n"
        "        if os.fork() == 0:\n"
        "            time.sleep(2); os._exit(0)\n"
        "        made += 1\n"
        "    except OSError:\n"
        "        break\n"
        "print(made)\n"
    )
    try:
        out = subprocess.run(group.launcher([sys.executable, "-c", script]),
                             capture_output=True, text=True, timeout=30).stdout
        assert int(out.strip()) < 6
    finally:
        subprocess.run(["sleep", "2.5"])
        group.remove()


def test_the_strict_fork_server_runs_inside_its_group() -> None:
    server = forkserver.ForkServer(sys.executable, strict=True)
    try:
        if server.group is None:
            pytest.skip(f"no writable cgroup here: {server.group_note}")
        membership = Path(f"/proc/{server.proc.pid}/cgroup").read_text()
        assert all(d.name in membership for d in server.group.dirs)
    finally:
        server.close()
    assert server.group is not None and not any(d.exists() for d in server.group.dirs)


def test_groups_of_ended_processes_are_swept() -> None:
    group = _group()
    stale = [d.with_name(f"codequorum-{_ended_pid()}-0") for d in group.dirs]
    group.remove()
    for d in stale:
        d.mkdir()
    removed = cgroups.sweep()
    assert set(stale) <= set(removed)
    assert not any(d.exists() for d in stale)


def _ended_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid
