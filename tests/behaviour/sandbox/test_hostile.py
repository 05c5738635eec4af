"""The hostile corpus: every candidate ends with a status, nothing outside is touched."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from codequorum.behaviour.sandbox.limits import Limits
from codequorum.behaviour.sandbox.supervisor import run_candidates
from codequorum.core.model import TestCase as Case
from tests.behaviour.sandbox.conftest import snapshot

KEY = "CODEQUORUM_TEST_API_KEY"
TESTS = [
    Case("call", args=(3,), expected=9, has_expected=True, name="three"),
    Case("call", args=(4,), expected=16, has_expected=True, name="four"),
]


def _processes_under(root: Path) -> list[int]:
    """Pids of weak-sandbox candidate children (working directory under ``root``)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue
        if cwd.startswith(str(root)) and "/codequorum-sandbox-" in cwd:
            found.append(int(entry.name))
    return found


def _parents() -> dict[int, int]:
    """pid -> parent pid of every process."""
    out = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            out[int(entry.name)] = int(fields[1])
    return out


def _sandbox_descendants(pid: int) -> list[int]:
    """Descendants of ``pid`` that run the sandbox child script (server, candidates)."""
    parents = _parents()
    tree, todo = set(), [pid]
    while todo:
        here = todo.pop()
        for child, parent in parents.items():
            if parent == here and child not in tree:
                tree.add(child)
                todo.append(child)
    found = []
    for child in sorted(tree):
        try:
            if b"child.py" in Path(f"/proc/{child}/cmdline").read_bytes():
                found.append(child)
        except OSError:
            continue
    return found


def _alive(pids: list[int]) -> list[int]:
    alive = []
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.append(pid)
    return alive


def test_hostile_corpus(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, listener: socket.socket
) -> None:
    guarded = tmp_path / "guarded"
    guarded.mkdir()
    (guarded / "keep.txt").write_text("precious\n")
    (guarded / "sub").mkdir()
    (guarded / "sub" / "data.bin").write_bytes(b"\x00" * 100)
    outside = guarded / "written-by-candidate.txt"
    sandboxes = tmp_path / "sandboxes"
    sandboxes.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(sandboxes))
    monkeypatch.setenv(KEY, "sk-secret-value")
    port = listener.getsockname()[1]
    home = Path.home()
    home_before = {p.name for p in home.iterdir()}
    guarded_before = snapshot(guarded)

    corpus = {
        "fork_bomb": "import os\ndef f(n):\n    while True:\n        os.fork()\n",
        "busy_loop": "def f(n):\n    while True:\n        pass\n",
        "alloc_50gb": "def f(n):\n    return len(bytearray(50 * 1024 ** 3))\n",
        "os_system": (
            "import os\n"
            "def f(n):\n"
            "    try:\n"
            "        os.system('touch ~/owned')\n"
            "    except PermissionError:\n"
            "        pass\n"
            "    return os.path.exists(os.path.expanduser('~/owned'))\n"
        ),
        "write_outside": (
            f"def f(n):\n    with open({str(outside)!r}, 'w') as fh:\n        fh.write('x')\n"
        ),
        "connect": (
            "import socket\n"
            "def f(n):\n"
            f"    s = socket.create_connection(('127.0.0.1', {port}), timeout=1)\n"
            "    s.sendall(b'stolen')\n"
        ),
        "read_api_key": f"import os\ndef f(n):\n    return os.environ.get({KEY!r})\n",
        "sys_exit": (
            "import sys\ndef f(n):\n    if n == 4:\n        sys.exit(0)\n    return n * n\n"
        ),
        "os_exit": "import os\ndef f(n):\n    os._exit(3)\n",
        "ctypes_segfault": "import ctypes\ndef f(n):\n    return ctypes.string_at(0)\n",
        "faulthandler_segfault": "import faulthandler\ndef f(n):\n    faulthandler._sigsegv()\n",
        "recursion": "def f(n):\n    return f(n) + 1\n",
        "print_1gb": "def f(n):\n    for _ in range(1_000_000):\n        print('x' * 1000)\n",
        "raw_fd_flood": (
            "import os\ndef f(n):\n    while True:\n        os.write(1, b'y' * 65536)\n"
        ),
        "kill_parent": "import os, signal\ndef f(n):\n    os.kill(os.getppid(), signal.SIGKILL)\n",
        "delete_own_files": (
            "import os, shutil\n"
            "def f(n):\n"
            "    with open('scratch.txt', 'w') as fh:\n"
            "        fh.write('tmp')\n"
            "    os.makedirs('d/e', exist_ok=True)\n"
            "    os.remove('scratch.txt')\n"
            "    shutil.rmtree('d')\n"
            "    for name in os.listdir('.'):\n"
            "        os.remove(name)\n"
            "    return n * n\n"
        ),
        "fill_disk": (
            "def f(n):\n"
            "    for i in range(10_000):\n"
            "        with open(f'blob{i}', 'wb') as fh:\n"
            "            fh.write(b'z' * 1_000_000)\n"
        ),
        "good_square": "def f(n):\n    return n * n\n",
        "good_sum": (
            "def f(n):\n    total = 0\n    for _ in range(n):\n"
            "        total += n\n    return total\n"
        ),
    }
    names = list(corpus)
    progress: list[tuple[int, int]] = []
    results = run_candidates(
        [corpus[n] for n in names],
        TESTS,
        "f",
        Limits(wall_seconds=6.0, cpu_seconds=2.0, memory_mb=512, output_bytes=1_000_000),
        jobs=3,
        progress=lambda done, total: progress.append((done, total)),
    )
    by = dict(zip(names, results, strict=True))
    status = {n: r.status for n, r in by.items()}

    # Nothing lost: one result per candidate, in order, each with a status.
    assert [r.index for r in results] == list(range(len(names)))
    assert sorted(progress) == [(i, len(names)) for i in range(1, len(names) + 1)]

    assert status["fork_bomb"] == "forbidden: subprocess"
    assert status["busy_loop"] == "timeout"
    assert by["busy_loop"].tests[0].exc_type == "Timeout"
    assert status["alloc_50gb"] == "memory"
    assert by["alloc_50gb"].tests[0].exc_type == "MemoryError"
    assert status["os_system"] == "forbidden: subprocess"
    assert [t.output for t in by["os_system"].tests] == ["False", "False"]
    # the hook refuses, or (under /tmp, the version's own tmpfs) the path is not there
    assert status["write_outside"] in ("forbidden: write outside sandbox", "ok")
    assert by["write_outside"].tests[0].exc_type in ("PermissionError", "FileNotFoundError")
    assert status["connect"] == "forbidden: network"
    assert status["read_api_key"] == "ok"
    assert [t.output for t in by["read_api_key"].tests] == ["None", "None"]
    assert status["sys_exit"] == "exit"
    assert [(t.name, t.passed, t.exc_type) for t in by["sys_exit"].tests] == [
        ("three", True, None),
        ("four", False, "SystemExit"),
    ]
    assert status["os_exit"] == "exit"
    assert "3" in by["os_exit"].detail and by["os_exit"].returncode == 3
    # ctypes is refused by the audit hook before it can segfault ...
    assert status["ctypes_segfault"] == "forbidden: ctypes"
    # ... so a segfault comes from another route, and the parent survives it.
    assert status["faulthandler_segfault"] == "crashed: SIGSEGV"
    assert status["recursion"] == "ok"
    assert [t.exc_type for t in by["recursion"].tests] == ["RecursionError", "RecursionError"]
    assert status["print_1gb"] == "output-limit"
    assert status["raw_fd_flood"] == "output-limit"
    assert status["kill_parent"] == "forbidden: signal"
    # The sandbox directory is a size-capped tmpfs (where the kernel allows it): the
    # disk stays untouched and the candidate gets ENOSPC; else RLIMIT_FSIZE and the
    # deadline bound it.
    if "tmpfs" in by["fill_disk"].layers:
        assert status["fill_disk"] == "ok"
        assert by["fill_disk"].tests[0].exc_type == "OSError"
        assert "No space left" in (by["fill_disk"].tests[0].exc_message or "")
    else:
        assert status["fill_disk"] in ("ok", "timeout")
    assert status["delete_own_files"] == "ok"
    assert [t.passed for t in by["delete_own_files"].tests] == [True, True]

    for name in ("good_square", "good_sum"):
        assert status[name] == "ok"
        assert [(t.passed, t.output) for t in by[name].tests] == [(True, "9"), (True, "16")]
        assert all(t.opcode_total > 0 for t in by[name].tests)
    assert by["good_sum"].tests[1].opcode_total > by["good_sum"].tests[0].opcode_total

    # The listener never got a connection.
    with pytest.raises(TimeoutError):
        listener.accept()
    # Nothing outside the sandbox changed.
    assert not outside.exists()
    assert snapshot(guarded) == guarded_before
    assert not (home / "owned").exists()
    new_in_home = {p.name for p in home.iterdir()} - home_before
    assert not {n for n in new_in_home if not n.startswith(".")}
    # Sandbox directories are gone and no process is left in them.
    assert [p for p in sandboxes.iterdir() if p.name.startswith("codequorum-sandbox-")] == []
    assert _processes_under(sandboxes) == []
    # The parent is healthy and its environment untouched.
    assert os.environ[KEY] == "sk-secret-value"
    assert sum(range(10)) == 45


PARENT_SCRIPT = """
import sys
from codequorum.core.model import TestCase
from codequorum.behaviour.sandbox.limits import Limits
from codequorum.behaviour.sandbox.supervisor import run_candidate
print("started", flush=True)
run_candidate("import time\\ndef f():\\n    time.sleep(120)\\n", [TestCase("call")], "f",
              Limits(wall_seconds=120, cpu_seconds=120), start_method=sys.argv[1])
"""


@pytest.mark.parametrize("start_method", ["fork", "exec"])
def test_children_die_with_a_killed_parent(tmp_path: Path, start_method: str) -> None:
    """A parent killed outright (no cleanup runs) leaves no candidate running."""
    sandboxes = tmp_path / "sandboxes"
    sandboxes.mkdir()
    env = {**os.environ, "TMPDIR": str(sandboxes)}
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT_SCRIPT, start_method],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    running: list[int] = []
    try:
        assert parent.stdout is not None
        assert parent.stdout.readline().strip() == "started"
        deadline = time.monotonic() + 10
        # the candidate, its namespace's init and the process that waits outside
        while len(running) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
            running = _sandbox_descendants(parent.pid)
        assert len(running) >= 3, f"the candidate child never started: {running}"
    finally:
        parent.kill()
        parent.wait()
    deadline = time.monotonic() + 5
    while _alive(running) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _alive(running) == []


