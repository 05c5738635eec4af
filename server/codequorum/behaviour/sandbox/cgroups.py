"""A cgroup around a sandbox, where this process may write one: memory and process limits
that hold whatever the user inside is.

cgroup v2 (a writable ``/sys/fs/cgroup`` with the ``memory`` and ``pids`` controllers
delegated) or the v1 ``memory`` and ``pids`` hierarchies (writable as root). A group is
made under the hierarchy of this process's own group, limits are written, and the sandbox
is started *inside* it (the launcher writes its own pid to ``cgroup.procs`` before it runs
bubblewrap, so every process the sandbox ever makes is counted). Where nothing can be
written, :func:`make` returns None with the reason, and the per-candidate rlimits, PID
namespaces and the seccomp filter (no new processes) remain the limits.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
_names = itertools.count()


@dataclass
class Group:
    """One group (v2) or a pair of groups (v1 memory and pids) and how to enter them."""

    kind: str  # "cgroup2" or "cgroup1"
    dirs: list[Path]

    def launcher(self, argv: list[str]) -> list[str]:
        """``argv`` run from inside the group: ``sh`` enters it, then becomes ``argv[0]``."""
        procs = " ".join(f"'{d / 'cgroup.procs'}'" for d in self.dirs)
        enter = f'for f in {procs}; do echo $$ > "$f" || exit 125; done; exec "$@"'
        return ["/bin/sh", "-c", enter, "sh", *argv]

    def remove(self, wait: float = 1.0) -> None:
        """Remove the group once its processes are gone (they may take a moment to end
        after the sandbox's first process is reaped); a group still busy after ``wait``
        seconds is left for :func:`sweep`."""
        deadline = time.monotonic() + wait
        for d in self.dirs:
            while True:
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() >= deadline:
                        break
                    time.sleep(0.01)


def _own_path(controller: str) -> str:
    """This process's group path for ``controller`` (v1) or the v2 path (``""``)."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _id, controllers, path = line.split(":", 2)
            if controller in controllers.split(",") or (not controller and _id == "0"):
                return path
    return "/"


def _write(path: Path, value: str) -> None:
    path.write_text(value)


def make(memory_bytes: int, max_pids: int) -> tuple[Group | None, str]:
    """A new group with these limits, or (None, why not)."""
    name = f"codequorum-{os.getpid()}-{next(_names)}"
    v2 = ROOT / "cgroup.controllers"
    if v2.is_file():
        parent = ROOT / _own_path("").lstrip("/")
        try:
            wanted = {"memory", "pids"}
            if not wanted <= set((parent / "cgroup.controllers").read_text().split()):
                return None, "cgroup v2 without the memory and pids controllers here"
            group = parent / name
            group.mkdir()
            _write(group / "memory.max", str(memory_bytes))
            _write(group / "pids.max", str(max_pids))
            return Group("cgroup2", [group]), ""
        except OSError as exc:
            return None, f"cgroup v2 not writable: {exc.strerror or exc}"
    made: list[Path] = []
    try:
        for controller, limit_file, value in (
            ("memory", "memory.limit_in_bytes", memory_bytes),
            ("pids", "pids.max", max_pids),
        ):
            base = ROOT / controller
            if not base.is_dir():
                raise OSError(f"no {controller} hierarchy")
            group = base / _own_path(controller).lstrip("/") / name
            group.mkdir()
            made.append(group)
            _write(group / limit_file, str(value))
    except OSError as exc:
        Group("cgroup1", made).remove()
        return None, f"cgroup v1 memory/pids not writable: {exc.strerror or exc}"
    return Group("cgroup1", made), ""


def sweep() -> list[Path]:
    """Remove groups left by codequorum processes that have ended; returns what went.

    Only empty groups named ``codequorum-<pid>-<n>`` whose process is gone: ``rmdir``
    removes nothing else (a group with processes in it cannot be removed).
    """
    removed: list[Path] = []
    bases = [ROOT / _own_path("").lstrip("/")] if (ROOT / "cgroup.controllers").is_file() else [
        ROOT / c / _own_path(c).lstrip("/") for c in ("memory", "pids")
    ]
    for base in bases:
        with contextlib.suppress(OSError):
            for entry in base.iterdir():
                parts = entry.name.split("-")
                if len(parts) != 3 or parts[0] != "codequorum" or not parts[1].isdigit():
                    continue
                if int(parts[1]) == os.getpid() or Path(f"/proc/{parts[1]}").exists():
                    continue  # ours, or its process still runs
                with contextlib.suppress(OSError):
                    entry.rmdir()
                    removed.append(entry)
    return removed
