"""Private temporary folders that do not outlive their process.

A language server its editor kills, a worker a test runner kills or a CLI stopped with
SIGKILL never runs its exit handlers: the folders it made under the temporary directory
(a fork server's socket, a portable host's views, Hypothesis' cache) stayed there, one per
process, for good. Each folder's name now carries the id of the process that made it
(``codequorum-<kind>-<pid>-<random>``); making one removes those of its kind whose process
is gone. Only real folders owned by this user are removed, never through a link; on a
system without process ids to ask about (Windows) nothing is swept.

The standard library only: the portable host, a script of its own, loads this file by path.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
import threading

PREFIX = "codequorum-"
_swept: set[tuple[str, str]] = set()
_lock = threading.Lock()


def make(kind: str, base: str | None = None) -> str:
    """A new private folder ``codequorum-<kind>-<pid>-*`` under ``base`` (default: the
    temporary directory); the first of its kind there in this process sweeps those of
    dead processes first."""
    root = base or tempfile.gettempdir()
    with _lock:
        first = (kind, root) not in _swept
        _swept.add((kind, root))
    if first:
        sweep(kind, root)
    return tempfile.mkdtemp(prefix=f"{PREFIX}{kind}-{os.getpid()}-", dir=root)


def owner(name: str, kind: str) -> int | None:
    """The process id in a folder name of ``kind`` (None if the name is not one)."""
    start = f"{PREFIX}{kind}-"
    if not name.startswith(start):
        return None
    pid, dash, _rest = name[len(start):].partition("-")
    if not dash or not pid.isdigit() or len(pid) > 10:
        return None
    return int(pid)


def alive(pid: int) -> bool:
    """Whether a process with this id exists (another user's counts as alive)."""
    if pid <= 0:
        return True  # never ask about a process group
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it exists but is not ours to signal
    return True


def sweep(kind: str, base: str | None = None) -> list[str]:
    """Remove the ``kind`` folders under ``base`` whose process is gone; returns them."""
    getuid = getattr(os, "getuid", None)  # not ``os_features``: see the module's note
    if os.name != "posix" or getuid is None:
        return []  # ``os.kill(pid, 0)`` would end the process on Windows
    root = base or tempfile.gettempdir()
    uid = getuid()
    removed: list[str] = []
    try:
        entries = list(os.scandir(root))
    except OSError:
        return removed
    for entry in entries:
        pid = owner(entry.name, kind)
        if pid is None or pid == os.getpid() or alive(pid):
            continue
        with contextlib.suppress(OSError):
            st = entry.stat(follow_symlinks=False)
            if stat.S_ISDIR(st.st_mode) and st.st_uid == uid:
                shutil.rmtree(entry.path, ignore_errors=True)
                removed.append(entry.path)
    return removed
