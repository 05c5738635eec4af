"""A long-lived portable host: every version of a run, each on a thread of its own.

Stdlib only; ``host.py --serve`` loads this file by path. It speaks the fork server's
protocol (``child.py``'s ``serve_forks``, ``forkserver.py`` on the runner's side), so the
runner drives a version here as it drives a forked child: per connection on the AF_UNIX
SOCK_SEQPACKET socket, ``spawn`` with the version's descriptors attached -> ``spawned``
(a serial number in place of a pid); when the version has ended -> ``exited``; ``kill``
stops it; ``reap`` -> ``reaped`` (its exit code as a wait status). A closed connection
stops its version; EOF on fd 0 (the runner is gone) ends the host.

Versions run concurrently on threads: each has its own wasmtime stores, and wasmtime
runs WebAssembly without Python's lock, so two versions use two cores.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import selectors
import socket
import sys
import threading
from collections.abc import Callable
from typing import Any

#: How long a reaped version may take to end once stopped.
REAP_SECONDS = 8.0


def _protocol() -> Any:
    found = sys.modules.get("_cq_protocol")
    if found is None:
        raise RuntimeError("host.py loads protocol.py first")
    return found


def serve(path: str, start: Callable[[list[int], Callable[[], None]], Any],
          close: Callable[[], None]) -> int:
    """Serve versions on ``path`` until fd 0 ends; ``start(fds, on_exit)`` runs one."""
    protocol = _protocol()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(path)
    listener.listen(64)
    sel = selectors.DefaultSelector()
    sel.register(listener, selectors.EVENT_READ, ("accept", None))
    sel.register(0, selectors.EVENT_READ, ("parent", None))
    versions: dict[int, Any] = {}  # id(conn) -> the version it started
    serial = itertools.count(1)

    def send(conn: socket.socket, **fields: Any) -> None:
        with contextlib.suppress(OSError):
            conn.send(protocol.encode_frame(fields)[protocol.HEADER.size:])

    def reap(conn: socket.socket, version: Any) -> None:
        version.thread.join(REAP_SECONDS)
        send(conn, type="reaped", status=(version.code & 0xFF) << 8, cpu=0.0)

    def drop(conn: socket.socket) -> None:
        version = versions.pop(id(conn), None)
        if version is not None:
            version.kill()
        with contextlib.suppress(KeyError, ValueError):
            sel.unregister(conn)
        conn.close()

    with contextlib.suppress(OSError):
        os.write(1, b"ready\n")
    while True:
        for key, _mask in sel.select():
            kind, conn = key.data
            if kind == "parent":
                if not os.read(0, 4096):
                    for version in versions.values():
                        version.kill()
                    close()
                    with contextlib.suppress(OSError):
                        os.unlink(path)
                    return 0
            elif kind == "accept":
                new, _addr = listener.accept()
                sel.register(new, selectors.EVENT_READ, ("conn", new))
            else:
                try:
                    data, fds, _flags, _addr = socket.recv_fds(conn, 1 << 20, 8)
                except OSError:
                    data, fds = b"", []
                try:
                    request = protocol.decode_body(data) if data else {"type": ""}
                except protocol.ProtocolError:
                    request = {"type": "?"}
                kind = request.get("type")
                if kind == "spawn" and len(fds) in (4, 6) and id(conn) not in versions:
                    send(conn, type="spawned", pid=next(serial))
                    versions[id(conn)] = start(list(fds), _exited(send, conn))
                    continue
                for fd in fds:
                    os.close(fd)
                if kind == "kill" and id(conn) in versions:
                    versions[id(conn)].kill()
                elif kind == "reap" and id(conn) in versions:
                    threading.Thread(target=reap, args=(conn, versions.pop(id(conn))),
                                     daemon=True).start()
                elif not data or id(conn) not in versions:
                    drop(conn)


def _exited(send: Callable[..., None], conn: socket.socket) -> Callable[[], None]:
    """What a version calls when it has ended: ``exited`` on its connection."""
    def said() -> None:
        send(conn, type="exited")
    return said
