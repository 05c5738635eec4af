"""Python as Windows gives it, as far as codequorum can tell: put this folder on
``PYTHONPATH`` and every POSIX-only name codequorum might reach is gone before anything is
imported (``tests/test_portability.py``).

Taken away: the ``os`` flags and calls Windows lacks (``O_NOFOLLOW``, ``O_DIRECTORY``,
``O_NONBLOCK``, ``O_CLOEXEC``, ``getuid``, ``sched_getaffinity``, ``fork``, ``wait4``,
``killpg``, ``mkfifo``, ``fchmod``, folder descriptors ...), descriptor passing and
``AF_UNIX``, ``select.poll``, the signals Windows has not (``SIGALRM``, ``SIGKILL``,
``SIGHUP`` ...), and, for codequorum's own modules, the modules that do not import there
(``fcntl``, ``resource``, ``pwd``, ``grp``, ``termios``, and ``posix``: Windows' is
``nt``); ``selectors.DefaultSelector``
waits on sockets only, as Windows' does. Kept, because the standard library's own POSIX
code needs them on Linux (Windows takes other code): ``os.name``, ``posix`` for the
standard library,
``os.uname`` (numpy reads it), ``socketpair``, ``subprocess``'s internals (``Popen.kill``
sends the number itself, as Windows' ``TerminateProcess`` needs none), processes started
the Windows way (``multiprocessing``'s ``spawn``), and asyncio's loops waiting on pipes
and subprocesses (Windows' default loop, the proactor, does).
"""

import asyncio
import builtins
import multiprocessing
import os
import select
import selectors
import signal
import socket
import stat
import subprocess
import types
from collections.abc import Mapping, Sequence
from typing import Any

_KILL = signal.SIGKILL
_SELECTOR = selectors.DefaultSelector
_PAIR = socket.socketpair
_UNIX = socket.AF_UNIX
#: What each module loses (what Windows' CPython does not have).
TAKEN = (
    (os, ("O_NOFOLLOW", "O_DIRECTORY", "O_PATH", "O_NONBLOCK", "O_CLOEXEC", "O_NOCTTY",
          "getuid", "geteuid", "getgid", "getegid", "sched_getaffinity", "fork", "forkpty",
          "wait4", "waitid", "killpg", "mkfifo", "pipe2", "setsid", "getpgid", "setpgid",
          "pidfd_open", "fchmod", "fchown", "chown", "lchown", "sendfile", "getloadavg")),
    (socket, ("send_fds", "recv_fds", "AF_UNIX")),
    (select, ("poll", "epoll")),
    (signal, ("SIGALRM", "SIGKILL", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "alarm",
              "setitimer", "getitimer", "pthread_kill", "siginterrupt")),
)
#: Modules that do not exist on Windows: codequorum's own code cannot import them (the
#: libraries that choose by ``sys.platform``, such as the MCP SDK's ``fcntl``, keep theirs:
#: on Windows they take their other branch).
ABSENT = ("fcntl", "resource", "pwd", "grp", "termios", "tty", "pty", "posix")
_IMPORT = builtins.__import__


def _import(name: str, globals: Mapping[str, object] | None = None,
            locals: Mapping[str, object] | None = None,
            fromlist: Sequence[str] | None = (), level: int = 0) -> types.ModuleType:
    """``import`` as Windows answers codequorum's modules: no module of :data:`ABSENT`."""
    importer = str((globals or {}).get("__name__", ""))
    own = importer.startswith(("codequorum", "_cq_"))  # ``_cq_``: what host.py loads by path
    if level == 0 and name.partition(".")[0] in ABSENT and own:
        raise ModuleNotFoundError(f"No module named {name!r} (not on Windows)", name=name)
    return _IMPORT(name, globals, locals, fromlist, level)


class SocketsOnly(selectors.SelectSelector):
    """Windows' ``DefaultSelector``: ``select()``, which waits on sockets only (asyncio's
    own wake-up pair is one); a pipe or a file is refused as Windows refuses it."""

    def register(self, fileobj: Any, events: int,
                 data: object = None) -> selectors.SelectorKey:
        fd = fileobj if isinstance(fileobj, int) else fileobj.fileno()
        if not stat.S_ISSOCK(os.fstat(fd).st_mode):
            raise OSError(10038, "An operation was attempted on something that is not a socket")
        return super().register(fileobj, events, data)


def _socketpair(family: int | None = None, kind: int = socket.SOCK_STREAM,
                proto: int = 0) -> tuple[socket.socket, socket.socket]:
    """Windows' ``socketpair`` (a connected pair; there over loopback TCP)."""
    return _PAIR(_UNIX if family is None else family, kind, proto)


def _kill(self: "subprocess.Popen[bytes]") -> None:
    self.send_signal(_KILL)


class ProactorLike(asyncio.DefaultEventLoopPolicy):
    """asyncio's loops wait on pipes, as Windows' proactor loop (its default) does."""

    def new_event_loop(self) -> asyncio.AbstractEventLoop:
        return asyncio.SelectorEventLoop(_SELECTOR())


def strip() -> None:
    """Take away what :data:`TAKEN` and :data:`ABSENT` name."""
    for module, names in TAKEN:
        for name in names:
            if hasattr(module, name):
                delattr(module, name)
    os.supports_dir_fd = set()
    builtins.__import__ = _import
    selectors.DefaultSelector = SocketsOnly  # type: ignore[assignment, misc]
    socket.socketpair = _socketpair  # type: ignore[assignment]
    subprocess.Popen.kill = _kill  # type: ignore[assignment, method-assign]
    multiprocessing.set_start_method("spawn", force=True)
    asyncio.set_event_loop_policy(ProactorLike())


strip()
