"""The portable sandbox's ``process`` channel (``channel.py``): the host's logic here, in
the runner's process, and the guests in one process of their own, the guest server.

The host's code (``host.py``: routing a version's and its grader's frames, metering fuel,
stopping a test that overruns and restarting the tests left in a fresh guest, the output
limit) runs on a thread per version, as in the long-lived host; only its guests differ:
``host.Served`` starts each ahead on a thread of the guest server (``instance.py
--serve``, ``warm.GuestServer``), its input a file that process appends to. The messages
and verdicts the host sends reach the runner as calls, not through descriptors, so this
channel needs no descriptor passing, no named pipe, no ``selectors`` on pipes and no
``os.wait4``. Nothing outlives the run: the guest server ends with the runner
(``shutdown``, also at exit) or when its stdin closes.
"""

from __future__ import annotations

import atexit
import importlib.util
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from codequorum.behaviour.sandbox.portable import endings

HOST_FILE = Path(__file__).with_name("host.py")
#: How long a stopped version's thread may take to end.
END_SECONDS = 8.0
_lock = threading.Lock()
_loaded: list[Any] = []
_shared: dict[tuple[str, ...], Any] = {}


def host_module() -> Any:
    """``host.py``, loaded once by path (as the host process loads it)."""
    with _lock:
        if not _loaded:
            spec = importlib.util.spec_from_file_location("_cq_host", HOST_FILE)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            _loaded.append(module)
        return _loaded[0]


def shared_for(host_args: list[str]) -> Any:
    """The guests' processes for ``host_args`` (``--compiled``, ``--runtime``,
    ``--bundle`` with their values), made on first use with guests started ahead."""
    host = host_module()
    key = tuple(host_args)
    with _lock:
        found = _shared.get(key)
        if found is None:
            found = _shared[key] = host.Served(host_args[1], host_args[3], host_args[5],
                                               host.warm.WAITING)
        return found


def shutdown() -> None:
    """End every waiting guest's process and remove their folders (also run at exit)."""
    with _lock:
        shared = list(_shared.values())
        _shared.clear()
    for one in shared:
        one.close()


atexit.register(shutdown)


class Version:
    """One version run by the host's logic on a thread of its own; what it sends goes to
    ``events(kind, frame)`` (kind ``msg`` or ``grader``), then ``events("exited", b"")``."""

    def __init__(self, host_args: list[str], run: dict[str, Any], checks: dict[str, str],
                 events: Callable[[str, bytes], None]) -> None:
        self.events = events
        self.code = int(endings.HOST_ERROR)
        self.stderr = b""
        self.host: Any = None
        self.killed = False
        self.thread = threading.Thread(target=self._run, args=(host_args, run, checks),
                                       daemon=True)
        self.thread.start()

    def _run(self, host_args: list[str], run: dict[str, Any], checks: dict[str, str]) -> None:
        try:
            module = host_module()
            self.host = module.Host(
                shared_for(host_args), run, lambda frame: self.events("msg", frame),
                checks or None, (lambda frame: self.events("grader", frame)) if checks else None)
            if self.killed:
                self.host.kill()
            self.code = int(self.host.main())
            self.stderr = bytes(self.host.stderr)
        except Exception as exc:  # a boundary: the runner hears why in stderr
            self.stderr = f"portable sandbox: {type(exc).__name__}: {exc}\n".encode()
        finally:
            self.events("exited", b"")

    def kill(self) -> None:
        """Stop the version (the runner's deadline or cancel): its guest's process ends."""
        self.killed = True
        host = self.host
        if host is not None:
            host.kill()

    def wait(self) -> tuple[int, bytes]:
        """Its exit code (``endings``) and stderr tail, once its thread has ended."""
        self.thread.join(END_SECONDS)
        if self.thread.is_alive():
            return int(endings.HOST_ERROR), b"portable sandbox: the version did not end\n"
        return self.code, self.stderr
