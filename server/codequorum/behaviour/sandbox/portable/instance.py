"""One guest's store and instance, and the guest server that holds a run's guests.

Stdlib and ``wasmtime`` only: ``host.py`` loads this file by path, and the ``process``
channel starts it as the guest server (``instance.py --serve ...``, ``warm.GuestServer``).
That process loads only this file and what a guest needs (``wasi_io.py``, ``budget.py``,
``warm.py``'s records, ``interpreter.py``'s engine and environment, ``in_module.py``'s
view), never the host's routing: what it compiles and imports at its start is paid again
whenever a run (or a fault of wasmtime) starts a guest server.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
import threading
import types
from collections.abc import Callable
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
HARNESS = os.path.dirname(HERE)
GUEST_HARNESS = "/harness"
#: ``guest.py``, started from its compiled code (``boot.py``).
GUEST_SCRIPT = GUEST_HARNESS + "/portable/boot.py"
#: The flag of a guest whose input is a file the host appends to, in the folder granted as
#: ``GUEST_INBOX`` (``guest.INBOX_FLAG``, ``guest.INBOX``): WASI's stdin from a file ends
#: at its first end and never reads what is appended after.
INBOX_FLAG = "--inbox"
GUEST_INBOX = "/inbox"
INBOX_FILE = "in"
#: How a guest of the guest server names its trap's code, first in what it reports.
TRAP_LINE = "trap code: "
#: What a guest's process reports of a failure (its first bytes).
REPORT_KEEP = 4096


def _load(name: str, path: str) -> Any:
    """A file of the harness as a module (``sys.modules[name]``), loaded once a process,
    from its cached bytecode where the install wrote it (a guest's process writes none)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


in_module: Any = _load("_cq_in_module", os.path.join(HARNESS, "in_module.py"))
interpreter: Any = _load("_cq_interpreter", os.path.join(HERE, "interpreter.py"))
wasi_io: Any = _load("_cq_wasi_io", os.path.join(HERE, "wasi_io.py"))
budget: Any = _load("_cq_budget", os.path.join(HERE, "budget.py"))
warm: Any = _load("_cq_warm", os.path.join(HERE, "warm.py"))


def trap_name(exc: BaseException) -> str | None:
    """The ``wasmtime.TrapCode`` name of a guest's trap: from the trap itself, or from the
    first line a guest of the guest server reported (``TRAP_LINE``); None for another
    error."""
    code = getattr(exc, "trap_code", None)
    if code is not None:
        return str(getattr(code, "name", "")) or None
    text = str(exc)
    if text.startswith(TRAP_LINE):
        return text[len(TRAP_LINE):].partition("\n")[0] or None
    return None


def configure(config: Any, grader: bool, runtime: str, bundle: str, view: str | None,
              inbox: str | None = None) -> Any:
    """``config`` for a guest: fixed argv, an environment of its own, read-only preopens of
    the standard library, the harness, its compiled bundle and the module view only
    (``inbox``: a folder whose file ``in`` the host appends to, its input in place of
    stdin, granted read-only as ``/inbox``: ``guest.INBOX``)."""
    config.argv = ("python", "-S", GUEST_SCRIPT, *(("--grader",) if grader else ()),
                   *((INBOX_FLAG, str(inbox_fd(view))) if inbox is not None else ()))
    config.env = [list(pair) for pair in interpreter.GUEST_ENV]
    config.preopen_dir(runtime, "/usr", False)
    config.preopen_dir(HARNESS, GUEST_HARNESS, False)
    config.preopen_dir(bundle, "/bundle", False)
    if view is not None:
        config.preopen_dir(view, in_module.VIEW, False)
    if inbox is not None:
        config.preopen_dir(inbox, GUEST_INBOX, False)
    return config


def inbox_fd(view: str | None) -> int:
    """The descriptor of a guest's ``/inbox``: WASI numbers the granted folders from 3 in
    the order ``configure`` grants them (``/usr``, ``/harness``, ``/bundle``, the view)."""
    return 6 if view is None else 7


def ticking(engine: Any, closed: threading.Event) -> None:
    """Bump ``engine``'s epoch every ``budget.TICK_SECONDS`` until ``closed``: at each tick
    every running guest reads its CPU clock (``run_guest``)."""
    while not closed.wait(budget.TICK_SECONDS):
        engine.increment_epoch()


def run_guest(shared: Any, config: Any, limits: tuple[int, int, float], guest: Any,
              outputs: dict[int, Callable[[bytes], None]],
              ready: Callable[[], None] = lambda: None,
              inbox: tuple[int, threading.Event] | None = None) -> None:
    """Run ``guest.py`` in a fresh store and instance of ``shared``'s module until it ends:
    ``limits`` its fuel (a backstop), memory cap and CPU seconds; stopped at an epoch tick
    once ``guest.halt`` or its CPU time (``guest.meter``, read on this thread) is spent;
    its writes on fd 1 and 2 handed to ``outputs`` in bounded pieces (``wasi_io``: never
    a write whole); ``ready()`` just before its interpreter starts; ``inbox``: see
    ``wasi_io.linker``."""
    fuel, memory, cpu = limits
    wasmtime = shared.wasmtime
    store = wasmtime.Store(shared.engine)
    store.set_limits(memory_size=memory)
    store.set_fuel(fuel)
    store.set_epoch_deadline(1)
    meter = guest.meter = budget.CpuMeter(cpu)
    wasi_io.on_epoch(wasmtime, store, lambda: guest.halt or meter.spent())
    store.set_wasi(config)
    guest.stores.append(store)
    linker = wasi_io.linker(wasmtime, shared.engine, store, guest.wake, outputs, inbox)
    start = linker.instantiate(store, shared.module).exports(store)["_start"]
    assert isinstance(start, wasmtime.Func)
    ready()
    meter.start()
    try:
        with contextlib.suppress(wasmtime.ExitTrap):
            start(store)
    finally:
        meter.read()


def fd_writer(fd: int) -> Callable[[bytes], None]:
    """Write whole frames on ``fd``."""
    def write(data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    return write


class Server:
    """``instance.py --serve <cwasm> <the guest's /usr> <bundle> <folder>``: the guests of
    a run on threads of this one process (``warm.GuestServer``), each in a fresh store and
    instance, its input a file in ``folder`` that this process appends to as the runner
    sends (``configure``'s ``inbox``). Commands come on stdin (``warm.COMMAND``:
    start a guest, its input, stop it), records go out on stdout tagged with the guest's
    number (``warm.SERVED``). One process for every guest of a run, as the long-lived host,
    so a guest costs no process start; a fault of wasmtime ends them all (the runner then
    starts another). Nothing but files, threads and pipes: every system has them."""

    def __init__(self, argv: list[str]) -> None:
        import wasmtime

        compiled, self.runtime, self.bundle, self.folder = argv[2:6]
        self.wasmtime = wasmtime
        self.engine = interpreter.make_engine()
        self.module = wasmtime.Module.deserialize_file(self.engine, compiled)
        self.lock = threading.Lock()
        self.guests: dict[int, Any] = {}
        threading.Thread(target=ticking, args=(self.engine, threading.Event()),
                         daemon=True).start()

    def serve(self) -> int:
        """Take commands until the runner's end of stdin closes; then stop every guest."""
        stream = sys.stdin.buffer
        while (head := stream.read(warm.COMMAND.size)) and len(head) == warm.COMMAND.size:
            kind, ident, size = warm.COMMAND.unpack(head)
            data = stream.read(size) if size else b""
            if kind == warm.START:
                self._start(ident, data.decode("utf-8").split("\0"))
            elif (guest := self.guests.get(ident)) is not None:
                self._put(guest, data) if kind == warm.PUT else self._stop(guest)
        for guest in list(self.guests.values()):
            self._stop(guest)
        return 0

    def _start(self, ident: int, fields: list[str]) -> None:
        role, fuel, memory, cpu, view = fields
        inbox = os.path.join(self.folder, f"inbox-{os.getpid()}-{ident}")
        os.mkdir(inbox, 0o700)
        open(os.path.join(inbox, INBOX_FILE), "wb").close()
        guest = types.SimpleNamespace(
            ident=ident, halt=False, wake=threading.Event(), more=threading.Event(),
            stores=[], meter=None, inbox=inbox)
        self.guests[ident] = guest
        limits = (int(fuel), int(memory), float(cpu))
        threading.Thread(target=self._run, args=(guest, role == "grader", limits, view),
                         daemon=True).start()

    def _run(self, guest: Any, grader: bool, limits: tuple[int, int, float], view: str) -> None:
        wasmtime = self.wasmtime
        kind, text = warm.ENDED, ""
        try:
            config = configure(wasmtime.WasiConfig(), grader, self.runtime, self.bundle,
                               view or None, guest.inbox)
            run_guest(self, config, limits, guest, {
                1: lambda data: self._record(guest, warm.STDOUT, data),
                2: lambda data: self._record(guest, warm.STDERR, data)},
                lambda: self._record(guest, warm.READY, b""),
                (inbox_fd(view or None), guest.more))
        except (wasmtime.Trap, wasmtime.WasmtimeError) as exc:
            name = trap_name(exc)
            kind, text = warm.TRAPPED, (f"{TRAP_LINE}{name}\n" if name else "") + str(exc)
        except Exception as exc:  # a boundary: the runner hears why
            kind, text = warm.FAILED, f"{type(exc).__name__}: {exc}"
        self.guests.pop(guest.ident, None)
        with contextlib.suppress(OSError):
            os.remove(os.path.join(guest.inbox, INBOX_FILE))
            os.rmdir(guest.inbox)
        self._record(guest, kind, text.encode("utf-8", "replace")[:REPORT_KEEP])
        for store in guest.stores:
            store.close()

    @staticmethod
    def _put(guest: Any, data: bytes) -> None:
        with open(os.path.join(guest.inbox, INBOX_FILE), "ab") as handle:
            handle.write(data)
        guest.more.set()

    @staticmethod
    def _stop(guest: Any) -> None:
        guest.halt = True
        guest.wake.set()
        guest.more.set()

    def _record(self, guest: Any, kind: int, data: bytes) -> None:
        """One record on stdout, tagged with the guest's number (see ``_record``)."""
        fuel = int(guest.stores[0].get_fuel()) if guest.stores else 0
        cpu = float(guest.meter.read()) if guest.meter is not None else 0.0
        with self.lock:
            fd_writer(1)(warm.SERVED.pack(kind, guest.ident, fuel, cpu, len(data)) + data)


def more_descriptors() -> None:
    """Raise this process's descriptor limit to its hard one: the guests it holds share it
    (WASI has none of its own; each guest's harness stops its version at
    ``max_open_files``, a layer a version could undo), so it keeps room for the
    guests beside one that holds many files."""
    try:
        import resource

        _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    except (ImportError, ValueError, OSError):
        pass  # the limit stays as it was


def main(argv: list[str]) -> int:
    """``--serve``: every guest of a run, in this process."""
    if argv[1:2] == ["--serve"]:
        try:
            server = Server(argv)
        except Exception as exc:  # a boundary: the runner hears why (guest number 0)
            text = f"{type(exc).__name__}: {exc}".encode()[:REPORT_KEEP]
            fd_writer(1)(warm.SERVED.pack(warm.FAILED, 0, 0, 0.0, len(text)) + text)
            return 0
        more_descriptors()
        return server.serve()
    return 2


if __name__ == "__main__":
    sys.stdout.flush()
    os._exit(main(sys.argv))
