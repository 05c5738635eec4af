"""Private temporary folders: named by their process, swept once it is gone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from codequorum.core import scratch

pytestmark = pytest.mark.skipif(os.name != "posix", reason="process ids are asked about on POSIX")

KILLED = """
import os, signal, sys
from codequorum.core import scratch
folder = scratch.make("kind", sys.argv[1])
open(os.path.join(folder, "socket"), "w").write("x")
print(folder, flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def _dead_pid() -> int:
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    return int(proc.stdout)


def test_a_killed_process_folder_is_removed_by_the_next_one(tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-c", KILLED, str(tmp_path)],
                            stdout=subprocess.PIPE, text=True)
    out, _ = proc.communicate()
    assert proc.returncode == -signal.SIGKILL
    left = Path(out.strip())
    assert left.parent == tmp_path and (left / "socket").read_text() == "x"
    assert left.name.startswith(f"codequorum-kind-{proc.pid}-")

    mine = scratch.make("kind", str(tmp_path))
    assert not left.exists()
    assert Path(mine).is_dir() and Path(mine).name.startswith(f"codequorum-kind-{os.getpid()}-")
    assert scratch.sweep("kind", str(tmp_path)) == []  # its own folder stays
    assert Path(mine).is_dir()


def test_only_own_real_folders_of_dead_processes_and_the_kind_are_swept(tmp_path: Path) -> None:
    dead = _dead_pid()
    gone = tmp_path / f"codequorum-kind-{dead}-abc"
    (gone / "inner").mkdir(parents=True)
    (gone / "inner" / "file").write_text("x")
    living = tmp_path / f"codequorum-kind-{os.getppid()}-abc"
    living.mkdir()
    other_kind = tmp_path / f"codequorum-other-{dead}-abc"
    other_kind.mkdir()
    old_style = tmp_path / "codequorum-kind-abcdefgh"
    old_style.mkdir()
    a_file = tmp_path / f"codequorum-kind-{dead}-file"
    a_file.write_text("")
    target = tmp_path / "target"
    target.mkdir()
    (target / "keep").write_text("x")
    link = tmp_path / f"codequorum-kind-{dead}-link"
    link.symlink_to(target)
    foreign = tmp_path / f"codequorum-kind-{dead}-foreign"
    foreign.mkdir()
    if os.getuid() == 0:
        os.chown(foreign, 65534, 65534)

    removed = scratch.sweep("kind", str(tmp_path))

    expected = [gone] if os.getuid() == 0 else [gone, foreign]
    assert sorted(removed) == sorted(str(p) for p in expected)
    for kept in (living, other_kind, old_style, a_file, link, target / "keep"):
        assert kept.exists(), kept
    assert foreign.exists() == (os.getuid() == 0)
    assert scratch.sweep("kind", str(tmp_path / "missing")) == []


@pytest.mark.parametrize(("name", "pid"), [
    ("codequorum-kind-123-x", 123),
    ("codequorum-kind-123", None),
    ("codequorum-kind--x", None),
    ("codequorum-kind-12a-x", None),
    ("codequorum-kind-12345678901-x", None),
    ("codequorum-kinder-1-x", None),
    ("other-kind-1-x", None),
])
def test_owner_reads_the_pid_from_the_name(name: str, pid: int | None) -> None:
    assert scratch.owner(name, "kind") == pid


def test_alive_answers_for_this_process_a_dead_one_and_never_a_group() -> None:
    assert scratch.alive(os.getpid())
    assert not scratch.alive(_dead_pid())
    assert scratch.alive(0) and scratch.alive(-1)
