"""Parent side of the fork server: one pre-imported interpreter that forks the children.

Starting a fresh interpreter per candidate costs tens of milliseconds of imports; the
fork server (``child.py --fork-server``) imports the harness once and forks per
candidate, after which the child isolates itself exactly as a fresh one would. It never
runs candidate code itself. One server per interpreter path, started on first use; it
ends when this process closes its stdin (or exits).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import selectors
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codequorum.behaviour.sandbox import bwrap, cgroups, protocol, startup
from codequorum.core import scratch

CHILD_SCRIPT = Path(__file__).with_name("child.py")
#: The portable level's host (``host.py --serve``: one per run, versions on threads).
PORTABLE_HOST = Path(__file__).with_name("portable") / "host.py"
PORTABLE = "portable:"
START_TIMEOUT = 20.0
REPLY_TIMEOUT = 10.0
MAX_BASE_LENGTH = 60
#: Bounds of the whole strict sandbox (every candidate of the server together), where a
#: cgroup can be made: they hold even when the user is root. Each candidate also has its
#: own rlimits.
SERVER_MEMORY_BYTES = 8 * 1024**3
SERVER_PIDS = 512


class ForkServerError(Exception):
    """The fork server could not be started or did not answer."""


@dataclass
class Spawned:
    """A child forked by the server: its pid and the connection that owns it."""

    pid: int
    conn: socket.socket


class ForkServer:
    """A running ``child.py --fork-server`` and its socket.

    ``strict``: the server runs inside bubblewrap (``bwrap.py``), leaves root, and
    confines each child in namespaces of its own; its socket directory is the only host
    directory the sandbox can write, and candidates cannot see it.
    """

    def __init__(self, interpreter: str, strict: bool = True,
                 host_args: list[str] | None = None) -> None:
        self.interpreter = interpreter
        self.strict = strict
        self.group: cgroups.Group | None = None
        self.group_note = "no cgroup for the weak sandbox"
        # AF_UNIX paths are limited to 107 bytes: a long TMPDIR falls back to /tmp.
        base = tempfile.gettempdir()
        if len(base) > MAX_BASE_LENGTH:
            base = "/tmp"
        self.directory = scratch.make("forkserver", base)
        self.path = os.path.join(self.directory, "socket")
        env = startup.environment("/usr/local/bin:/usr/bin:/bin", self.directory)
        argv = [self.interpreter, *startup.FLAGS, str(CHILD_SCRIPT), "--fork-server", self.path]
        if host_args is not None:  # the host needs wasmtime: this process's interpreter
            argv = [sys.executable, "-I", "-B", str(PORTABLE_HOST), "--serve", self.path,
                    *host_args]
        try:
            if strict:
                tool = bwrap.find_bwrap()
                if tool is None:
                    raise OSError("bubblewrap is not available")
                layout = bwrap.interpreter_layout(interpreter)
                inner = f"{bwrap.RUN_MOUNT}/socket"
                argv = bwrap.command(tool, layout, ["--fork-server", inner, "--strict"],
                                     run_dir=self.directory)
                self.group, self.group_note = cgroups.make(SERVER_MEMORY_BYTES, SERVER_PIDS)
                if self.group is not None:
                    argv = self.group.launcher(argv)
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                cwd=self.directory,
                env=env,
                start_new_session=True,
                close_fds=True,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            shutil.rmtree(self.directory, ignore_errors=True)
            raise ForkServerError(f"cannot start the fork server: {exc}") from exc
        assert self.proc.stdout is not None
        with selectors.DefaultSelector() as sel:
            sel.register(self.proc.stdout, selectors.EVENT_READ)
            ready = sel.select(timeout=START_TIMEOUT) and self.proc.stdout.readline() == b"ready\n"
        if not ready:
            self.close()
            raise ForkServerError("the fork server did not start")

    def alive(self) -> bool:
        """Whether the server process is still running."""
        return self.proc.poll() is None

    def spawn(self, cwd: str, env: dict[str, str], fds: list[int]) -> Spawned:
        """Fork a child with ``fds`` as its stdin, stdout, stderr and message pipe."""
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            conn.settimeout(REPLY_TIMEOUT)
            conn.connect(self.path)
            body = protocol.encode_frame({"type": "spawn", "cwd": cwd, "env": env})
            socket.send_fds(conn, [body[protocol.HEADER.size :]], fds)
            reply = _receive(conn)
            if reply.get("type") != "spawned":
                raise ForkServerError(f"unexpected reply {reply.get('type')!r}")
            return Spawned(int(reply["pid"]), conn)
        except (OSError, protocol.ProtocolError, ForkServerError) as exc:
            conn.close()
            raise ForkServerError(f"spawn failed: {exc}") from exc

    def close(self) -> None:
        """Stop the server (its children are killed) and remove its directory."""
        with contextlib.suppress(OSError):
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        if self.group is not None:
            self.group.remove()
        shutil.rmtree(self.directory, ignore_errors=True)


def read_event(conn: socket.socket) -> dict[str, Any] | None:
    """One message from the server on ``conn`` (None when the server is gone)."""
    try:
        return _receive(conn)
    except (OSError, protocol.ProtocolError):
        return None


def kill(spawned: Spawned) -> None:
    """Ask the server to SIGKILL the child's process group (its pids are the server's)."""
    with contextlib.suppress(OSError):
        spawned.conn.send(protocol.encode_frame({"type": "kill"})[protocol.HEADER.size :])


def reap(spawned: Spawned) -> tuple[int, float] | None:
    """Ask the server to reap the (killed or exited) child: (wait status, CPU seconds)."""
    try:
        spawned.conn.settimeout(REPLY_TIMEOUT)
        spawned.conn.send(protocol.encode_frame({"type": "reap"})[protocol.HEADER.size :])
        while True:
            reply = _receive(spawned.conn)
            if reply.get("type") == "reaped":
                return int(reply["status"]), float(reply["cpu"])
    except (OSError, protocol.ProtocolError, KeyError, ValueError):
        return None
    finally:
        spawned.conn.close()


def _receive(conn: socket.socket) -> dict[str, Any]:
    data = conn.recv(1 << 16)
    if not data:
        raise ProtocolErrorEOF("the fork server closed the connection")
    return protocol.decode_body(data)


class ProtocolErrorEOF(protocol.ProtocolError):
    """The connection ended."""


_servers: dict[tuple[str, bool], ForkServer] = {}
_failed: set[tuple[str, bool]] = set()
_lock = threading.Lock()


def server_for(interpreter: str, strict: bool = True) -> ForkServer | None:
    """The running server for ``interpreter``, started if needed (None if it cannot run)."""
    return _running((interpreter, strict), hasattr(os, "pidfd_open"),
                    lambda: ForkServer(interpreter, strict))


def portable_server(host_args: list[str]) -> ForkServer | None:
    """The running portable host for ``host_args`` (the compiled interpreter, the
    standard library, the harness's bundle), started if needed (None if it cannot run:
    the runner then starts a host per version)."""
    key = (PORTABLE + "\0".join(host_args), False)
    return _running(key, hasattr(socket, "send_fds"),
                    lambda: ForkServer(key[0], False, host_args))


def _running(key: tuple[str, bool], possible: bool,
             start: Callable[[], ForkServer]) -> ForkServer | None:
    """The live server under ``key``, else one ``start`` makes (a dead one is closed first);
    None where it is not ``possible`` or once it failed to start."""
    with _lock:
        server = _servers.get(key)
        if server is not None and server.alive():
            return server
        if server is not None:
            server.close()
            del _servers[key]
        if key in _failed or not possible:
            return None
        try:
            server = start()
        except ForkServerError:
            _failed.add(key)
            return None
        _servers[key] = server
        return server


def retire(server: ForkServer, permanently: bool = False) -> None:
    """Stop ``server`` after a failure; ``permanently``: use fresh interpreters from now on."""
    key = (server.interpreter, server.strict)
    with _lock:
        if _servers.get(key) is server:
            del _servers[key]
        if permanently:
            _failed.add(key)
    server.close()


def shutdown() -> None:
    """Stop every fork server (also run at exit)."""
    with _lock:
        for server in _servers.values():
            server.close()
        _servers.clear()


atexit.register(shutdown)
