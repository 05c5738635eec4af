"""The portable sandbox's host process: runs one version in a WebAssembly guest.

Started by the runner as ``python -I -B host.py --compiled <cwasm> --runtime <dir>
--bundle <dir> <message-fd> [<grader-in> <grader-out>]`` with the ``run`` message on
stdin, in a fresh temporary folder. It gives the guest (``guest.py`` in CPython on WASI)
a fresh store and instance of the cached compiled interpreter, and nothing of the host:
read-only preopens of the standard library, the harness (its sources and, as
``/bundle``, its code compiled once by the guest's interpreter) and the module view
only, no sockets, an environment of its own, fixed argv, and a stdin the host feeds
(``wasi_io.py``). The store caps memory; a timer thread bumps the engine's epoch, and ends
any sleep, to stop the guest when a test overruns its budget. The guest's messages are
parsed here as the parent parses any child's and sent on the message descriptor; a test
that overran gets a ``Timeout`` outcome and the tests left run in a fresh instance
(without the rest of its series). The version's CPU budget is CPU time, as the strict
child's, read on the guest's thread at each epoch tick (``budget.py``); fuel bounds the
work only as a backstop, and measures each call's cost. Output floods end
the run (``output-limit``).

Check harnesses (``check(candidate)``) run as in the strict sandbox, beside the version and
never in it: a second guest, the *grader* (``guest.py --grader``), gets the harness
sources (from the runner's grader pipe, which the version's guest never sees) and runs
``grader.serve``; the host routes the grader's calls to the version's stdin and the
version's answers to the grader's, and writes the verdicts on the runner's verdict pipe.

The same ``Host`` serves every channel (``channel.py``): in this process for one version,
in ``--serve`` for every version of a run, and in the runner's own process, loaded by
``processes.py``, where the guests run on threads of one process of their own, the guest
server (``instance.py --serve``), and the messages and verdicts are handed over as calls.
One guest's store and instance are made in ``instance.py``, for this process and the guest
server alike.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
import threading
import time
import types
from collections.abc import Callable
from typing import Any, ClassVar

HERE = os.path.dirname(os.path.abspath(__file__))
HARNESS = os.path.dirname(HERE)
TICK_SECONDS = 0.01
#: The shortest a test's budget gets after tests before it overran (as the strict child's).
SHORTEST_TEST_SECONDS = 0.25
STDERR_KEEP = 4096
#: How long a version waits for its grader's guest to be ready.
READY_SECONDS = 20.0
#: How long a grader may take to leave once its version's guest has ended.
GRADER_GRACE_SECONDS = 2.0
#: Traps of a guest whose interpreter ran its C stack out: the stack is the first 512 KiB
#: of its memory, so running past it is an access out of bounds (wasmtime's own stack
#: limit is ``STACK_OVERFLOW``). Recursion through builtins (``sum`` over a generator that
#: recurses, ``sorted`` with a key that does) gets there about 100 levels deep.
STACK_TRAPS = ("MEMORY_OUT_OF_BOUNDS", "STACK_OVERFLOW")
STACK_MESSAGE = ("maximum recursion depth exceeded: the interpreter's C stack in the "
                 "portable sandbox ran out (recursion through builtins)")
#: A trap that ends a run, in words (by ``wasmtime.TrapCode`` name).
TRAP_WORDS = {
    "MEMORY_OUT_OF_BOUNDS": "an access out of bounds (the interpreter's C stack ran out)",
    "STACK_OVERFLOW": "the WebAssembly call stack ran out",
    "UNREACHABLE": "the interpreter aborted (an unreachable instruction)",
}


def _load(name: str, filename: str) -> Any:
    path = os.path.join(filename)
    module = types.ModuleType(name)
    module.__file__ = path
    sys.modules[name] = module
    with open(path, encoding="utf-8") as handle:
        exec(compile(handle.read(), path, "exec", dont_inherit=True), module.__dict__)
    return module


protocol: Any = _load("_cq_protocol", os.path.join(HARNESS, "protocol.py"))
in_module: Any = _load("_cq_in_module", os.path.join(HARNESS, "in_module.py"))
interpreter: Any = _load("_cq_interpreter", os.path.join(HERE, "interpreter.py"))
endings: Any = _load("_cq_endings", os.path.join(HERE, "endings.py"))
budget: Any = _load("_cq_budget", os.path.join(HERE, "budget.py"))
#: One guest's store and instance, and the guest server (``--serve``).
instance: Any = _load("_cq_instance", os.path.join(HERE, "instance.py"))
trap_name = instance.trap_name
fd_writer = instance.fd_writer
wasi_io: Any = _load("_cq_wasi_io", os.path.join(HERE, "wasi_io.py"))
warm: Any = _load("_cq_warm", os.path.join(HERE, "warm.py"))
#: Private temporary folders that do not outlive their process (``core/scratch.py``).
scratch: Any = _load("_cq_scratch", os.path.join(os.path.dirname(os.path.dirname(HARNESS)),
                                                 "core", "scratch.py"))
#: Frames between the version and the grader (``check_grader.py``), routed by the host.
TO_GRADER = ("check", "return", "raise")
TO_VERSION = ("call", "checked")


class Guest:
    """One instance's run: its messages as they come, and why it was stopped."""

    def __init__(self, host: Host, indices: list[int]) -> None:
        self.host = host
        self.indices = indices  # the guest's test i is the run's test indices[i]
        self.reader = protocol.FrameReader()
        self.running: int | None = None
        self.started_at = 0.0
        self.finished: set[int] = set()
        self.done: dict[str, Any] | None = None
        self.stop: str | None = None
        self.ended = False
        self.marks: dict[str, int] = {}  # fuel left at each ``meter`` mark of this test
        self.empty_call: int | None = None  # an empty call's instructions, marked the same way
        self.warm: Any = None  # the guest started ahead that runs these tests (``bind``)
        self.inbox: Any = None  # its stdin
        self.fuel_now: Any = None  # its store's fuel left, read between its writes
        self.grader: Grader | None = None

    def bind(self, guest: Any) -> None:
        """Run in ``guest`` (started ahead, waiting on its stdin): its output comes here."""
        self.warm = guest
        self.inbox = guest.inbox
        self.fuel_now = guest.fuel_left
        guest.attach(self.on_stdout, self.on_stderr)

    def on_stdout(self, data: bytes) -> None:
        """The guest's stdout: framed messages only (anything else is a violation)."""
        if self.stop is not None:
            return
        self.host.budget -= len(data)
        try:
            if self.host.budget < 0:
                raise protocol.ProtocolError("message flood")
            for message in self.reader.feed(bytes(data)):
                self.take(message)
        except protocol.ProtocolError as exc:
            self.host.send({"type": "protocol-error", "detail": (
                f"{exc} (on descriptor 1, the portable sandbox's message channel: a version "
                "writing there directly is read as messages)")})
            self.interrupt("protocol")

    def on_stderr(self, data: bytes) -> None:
        """Raw writes to fd 2 count against the output limit; the tail is kept."""
        self.host.stderr = (self.host.stderr + bytes(data))[-STDERR_KEEP:]
        self.host.output -= len(data)
        if self.host.output < 0 and self.stop is None:
            self.host.send({"type": protocol.MSG_OUTPUT_LIMIT})
            self.interrupt("output-limit")

    def take(self, message: dict[str, Any]) -> None:
        """Forward one message, its test index mapped to the run's."""
        kind = message.get("type")
        if kind in (protocol.MSG_TEST_START, protocol.MSG_TEST):
            index = message.get("index")
            if type(index) is not int or not 0 <= index < len(self.indices):
                raise protocol.ProtocolError("test index out of range")
            message = {**message, "index": self.indices[index]}
            if kind == protocol.MSG_TEST_START:
                self.running, self.started_at = index, time.monotonic()
                self.marks = {}
            else:
                self.running = None
                self.finished.add(index)
                message["outcome"] = self._metered(message.get("outcome"))
        elif kind == protocol.MSG_HELLO:
            if self.host.hello_sent:
                return
            self.host.hello_sent = True
            layers = message.get("layers")
            guest = [x for x in layers if x == "audit-hook"] if isinstance(layers, list) else []
            message = {**message, "layers": [*self.host.layers, *guest]}
        elif kind == protocol.MSG_MODULE:
            if self.host.module_sent:
                return
            self.host.module_sent = True
        elif kind == protocol.MSG_DONE:
            self.done = message
            return
        elif kind == "meter":
            self._mark(message.get("mark"))
            return
        elif kind in TO_GRADER and self.grader is not None:
            self.grader.warm.inbox.put(protocol.encode_frame(message))
            return
        self.host.send(message)

    def _mark(self, mark: Any) -> None:
        """A ``meter`` mark: the fuel left now (the empty calls' before any test, the
        last one kept; a metered call's while its test runs, once; others ignored)."""
        if mark in ("empty-start", "empty-end") and not self.finished and self.running is None:
            self.marks[mark] = self.fuel_now()
            if mark == "empty-end" and "empty-start" in self.marks:
                self.empty_call = self.marks.pop("empty-start") - self.marks.pop(mark)
        elif mark in ("start", "end") and self.running is not None:
            self.marks[mark] = self.fuel_now()

    def _metered(self, outcome: Any) -> Any:
        """The outcome with its fuel, measured here (a guest's own is replaced): the
        instructions of its metered call less an empty call's, None when it had none."""
        marks, self.marks = self.marks, {}
        if not isinstance(outcome, dict):
            return outcome
        used = None
        if len(marks) == 2 and self.empty_call is not None:
            used = max(0, marks["start"] - marks["end"] - self.empty_call)
        return {**outcome, "fuel": used}

    def interrupt(self, why: str) -> None:
        """Stop the guest at its next epoch check."""
        if self.stop is None:
            self.stop = why
            if self.warm is not None:
                self.warm.discard()
            if self.grader is not None:
                self.grader.end()
            self.host.shared.tick()


class Grader:
    """The check harnesses' guest beside one version's guest (``guest.py --grader``): its
    calls go to the version's fd 0, its verdicts to the runner's verdict pipe."""

    def __init__(self, host: Host, version: Guest, checks: dict[str, str]) -> None:
        self.host = host
        self.version = version
        self.payload = protocol.encode_frame({
            "type": "grade", "checks": checks, "entry": host.run.get("entry_point"),
            "max_open": host.run["limits"].get("max_open_files")})
        self.reader = protocol.FrameReader()
        self.budget = host.budget
        self.warm: Any = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        """Take a grader guest started ahead and hand it the check harnesses, once it is
        ready (a guest's process started on the spot maps the module first: not on the
        version's clock)."""
        host = self.host
        self.warm = host.shared.take(True, budget.backstop_fuel(host.cpu_seconds)
                                     + budget.STARTUP_FUEL, host.memory, host.cpu_seconds)
        self.warm.ready.wait(READY_SECONDS)
        self.warm.attach(self.on_stdout, lambda _data: None)
        self.warm.inbox.put(self.payload)
        self.thread.start()

    def _run(self) -> None:
        self.warm.ended.wait()
        error = self.warm.error
        if error is not None and not self.host.shared.trapped(error):
            # stopped (fuel, epoch, memory) is not worth a line: the checks it did not
            # answer fail; anything else is said on stderr
            self.host.note(f"portable sandbox: the grader ended: {error!r}")
        self.version.inbox.close()  # a version waiting on a call hears the grader left

    def on_stdout(self, data: bytes) -> None:
        """The grader's frames: calls and ``checked`` to the version, verdicts out."""
        self.budget -= len(data)
        try:
            if self.budget < 0:
                raise protocol.ProtocolError("message flood")
            for message in self.reader.feed(bytes(data)):
                kind = message.get("type")
                if kind in TO_VERSION:
                    self.version.inbox.put(protocol.encode_frame(message))
                elif kind == "verdict":
                    self._verdict(message)
        except protocol.ProtocolError:
            self.end()

    def _verdict(self, message: dict[str, Any]) -> None:
        index = message.get("index")
        if type(index) is not int or not 0 <= index < len(self.version.indices):
            return
        self.host.verdict({"type": "verdict", "index": self.version.indices[index],
                           "passed": message.get("passed") is True,
                           "exc_type": message.get("exc_type"),
                           "exc_message": message.get("exc_message")})

    def end(self) -> None:
        """Stop waiting for the version: the grader's fd 0 ends, and its sleeps."""
        if self.warm is not None:
            self.warm.wake.set()
            self.warm.inbox.drop()

    def join(self) -> None:
        """Wait for the grader to leave (an epoch tick stops one that does not)."""
        if self.warm is None:
            return
        self.end()
        self.thread.join(GRADER_GRACE_SECONDS)
        if self.thread.is_alive():
            self.warm.discard()
            self.host.shared.tick()
            self.thread.join()


class GuestSource:
    """What both ways of reaching guests share: the host's folder (the versions' views
    live in it) and the guests started ahead (``warm.Pool``), keyed by (grader, fuel,
    memory); a subclass makes one guest (``_make``)."""

    def __init__(self, waiting: int) -> None:
        self.folder = scratch.make("portable")
        self.pool = warm.Pool(self._make, waiting)

    def _make(self, key: tuple[Any, ...]) -> Any:
        raise NotImplementedError

    def view_for(self, grader: bool) -> str | None:
        """A new empty module view for a version's guest (a grader has none)."""
        return None if grader else tempfile.mkdtemp(prefix="view-", dir=self.folder)

    def take(self, grader: bool, fuel: int, memory: int, cpu: float,
             ahead: bool = True) -> Any:
        """A guest (the version's or a grader) started with this fuel, memory cap and CPU
        budget in seconds (``ahead``: its successors started ahead, see
        ``warm.Pool.take``)."""
        found: Any = self.pool.take((grader, fuel, memory, cpu), ahead)
        return found

    def close(self) -> None:
        """Discard the waiting guests and the host's folder."""
        self.pool.close()
        _remove(self.folder)


class Shared(GuestSource):
    """What every version a host runs shares: the engine, the compiled interpreter (both
    made once), the granted folders and the guests started ahead (``warm.py``). Each
    version still runs in stores and instances of its own."""

    def __init__(self, compiled: str, runtime: str, bundle: str, waiting: int = 0) -> None:
        import wasmtime

        self.wasmtime = wasmtime
        self.engine = interpreter.make_engine()
        self.module = wasmtime.Module.deserialize_file(self.engine, compiled)
        self.runtime = runtime
        self.bundle = bundle
        super().__init__(waiting)
        self.closed = threading.Event()
        threading.Thread(target=instance.ticking, args=(self.engine, self.closed),
                         daemon=True).start()

    def tick(self) -> None:
        """Bump the engine's epoch: a halted guest stops at it."""
        self.engine.increment_epoch()

    def close(self) -> None:
        self.closed.set()
        super().close()

    def trapped(self, error: BaseException) -> bool:
        """Whether a guest's error is its runtime stopping it (fuel, a trap, the epoch)."""
        return isinstance(error, (self.wasmtime.Trap, self.wasmtime.WasmtimeError))

    def _make(self, key: tuple[Any, ...]) -> Any:
        grader, fuel, memory, cpu = key
        view = self.view_for(grader)
        return warm.Warm(lambda guest: self._start(guest, grader, fuel, memory, cpu),
                         wasi_io.Inbox(self.folder), view)

    def _start(self, guest: Any, grader: bool, fuel: int, memory: int, cpu: float) -> None:
        """Run ``guest.py`` in a fresh store and instance until it ends (on its thread)."""
        config = instance.configure(self.wasmtime.WasiConfig(), grader, self.runtime,
                                    self.bundle, guest.view)
        guest.inbox.attach(config)
        config.stdout_custom = guest.stdout
        config.stderr_custom = guest.stderr
        instance.run_guest(self, config, (fuel, memory, cpu), guest,
                           {1: guest.stdout, 2: guest.stderr})


class Served(GuestSource):
    """What the versions of a run share where the guests run on threads of one process of
    their own (``instance.py --serve``, ``warm.GuestServer``), their stdins files it
    appends to: the granted folders, the guests started ahead, and that process (started
    again should it die). No engine here, nothing POSIX-only: every system has it."""

    #: The command that runs the guest server (a test may wrap it).
    launcher: ClassVar[list[str]] = [sys.executable, "-I", "-B",
                                     os.path.join(HERE, "instance.py")]
    #: The frame that ends a guest's stdin (``check_grader.END``, a test holds them equal).
    END = protocol.encode_frame({"type": "end"})

    def __init__(self, compiled: str, runtime: str, bundle: str, waiting: int = 0) -> None:
        self.args = [compiled, runtime, bundle]
        self.lock = threading.Lock()
        self.server: Any = None
        super().__init__(waiting)

    def tick(self) -> None:
        """Nothing to bump: the server ticks its own engine's epoch."""

    @staticmethod
    def trapped(error: BaseException) -> bool:
        """Whether a guest's error is its runtime stopping it (or its server ending)."""
        return isinstance(error, warm.Trapped)

    def _make(self, key: tuple[Any, ...]) -> Any:
        grader, fuel, memory, cpu = key
        view = self.view_for(grader)
        with self.lock:
            if self.server is None or not self.server.alive():
                self.server = warm.GuestServer(
                    [*self.launcher, "--serve", *self.args, self.folder], self.END)
            server = self.server
        return server.start(["grader" if grader else "version", str(fuel), str(memory),
                             repr(cpu), view or ""], view)

    def close(self) -> None:
        super().close()
        with self.lock:
            server, self.server = self.server, None
        if server is not None:
            server.close()


def _remove(path: str) -> None:
    """Remove a folder the host made, read-only views included (on Windows a read-only
    file cannot be removed either)."""
    for root, folders, files in os.walk(path):
        for name in folders + files:
            with contextlib.suppress(OSError):
                os.chmod(os.path.join(root, name), 0o700)
    shutil.rmtree(path, ignore_errors=True)


class Host:
    """Runs one version's tests in as many fresh instances as overruns need."""

    def __init__(self, shared: Shared | Served, run: dict[str, Any],
                 out: Callable[[bytes], object], checks: dict[str, str] | None = None,
                 verdicts: Callable[[bytes], object] | None = None) -> None:
        self.shared = shared
        self.run = run
        self.out = out  # the run's messages, framed
        self.checks = checks or {}
        self.verdicts = verdicts  # the checks' verdicts, framed (the version never holds it)
        limits = run["limits"]
        self.cpu_seconds = float(limits["cpu_seconds"])
        self.cpu_left = self.cpu_seconds  # CPU time: what ends the version, as in strict
        self.fuel = budget.backstop_fuel(self.cpu_seconds)  # a bound on its work only
        self.memory = int(limits["memory_mb"]) * 1024 * 1024
        self.output = int(limits["output_bytes"])
        self.test_seconds = limits.get("test_seconds")
        self.budget = protocol.MAX_FRAME + 512 * 1024 * len(run.get("tests") or [])
        self.layers = ["wasm", "no-preopens", "store-limits", "fuel", "epoch"]
        self.hello_sent = self.module_sent = False
        self.stderr = b""
        self.guest: Guest | None = None
        self.killed = self.finished = False

    def whole_budget(self) -> bool:
        """Whether the version still has its whole budget: its guests' key is every such
        version's, worth starting ahead; after an overrun the budget left is its own."""
        return self.cpu_left == self.cpu_seconds

    def note(self, line: str) -> None:
        """A line for the run's stderr (kept with the guest's tail, bounded)."""
        self.stderr = (self.stderr + line.encode("utf-8", "replace") + b"\n")[-STDERR_KEEP:]

    def kill(self) -> None:
        """Stop the version now (the runner's deadline or cancel): no instance after it."""
        self.killed = True
        guest = self.guest
        if guest is not None:
            guest.interrupt("killed")

    def send(self, message: dict[str, Any]) -> None:
        self.out(_framed(message))

    def verdict(self, message: dict[str, Any]) -> None:
        """A check's verdict, on the runner's verdict channel."""
        if self.verdicts is not None:
            self.verdicts(_framed(message))

    def main(self) -> int:
        """Run every test (restarting after an overrun); the run's exit code."""
        threading.Thread(target=self._watch, daemon=True).start()
        try:
            return self._main()
        finally:
            self.finished = True

    def _main(self) -> int:
        tests = list(self.run.get("tests") or [])
        todo = list(range(len(tests)))
        timeouts, memory_error = 0, False
        while not self.killed:
            guest = Guest(self, todo)
            checks = {str(k): self.checks[str(i)] for k, i in enumerate(todo)
                      if str(i) in self.checks}
            if checks:
                guest.grader = Grader(self, guest, checks)
            code = self._instance(guest, [{**tests[i], "name": tests[i].get("name")
                                           or f"test{i}"} for i in todo])
            if guest.done is not None:
                memory_error = memory_error or bool(guest.done.get("memory_error"))
                timeouts += int(guest.done.get("timeouts") or 0)
                self.send({**guest.done, "timeouts": timeouts, "memory_error": memory_error})
                return 0
            if guest.stop not in ("test", "stack") or guest.running is None:
                return code
            over = guest.running
            if guest.stop == "test":
                timeouts += 1
                self._timed_out(todo[over], tests[todo[over]])
                self._shorten()
                why = "timed out"
            else:
                self._out_of_stack(todo[over], tests[todo[over]])
                why = "ran out of stack"
            series = tests[todo[over]].get("series")
            rest = []
            for k in range(over + 1, len(todo)):
                if series is not None and tests[todo[k]].get("series") == series:
                    self._skipped(todo[k], tests[todo[k]],
                                  f"an earlier test of series {series!r} {why}")
                else:
                    rest.append(todo[k])
            todo = rest
            if todo and self.cpu_left <= 0:
                return int(endings.CPU)  # the strict child's next test meets its CPU limit
        return 0

    def _instance(self, guest: Guest, tests: list[dict[str, Any]]) -> int:
        """One fresh store and instance (a guest started ahead) running ``tests``."""
        started = self.shared.take(False, self.fuel + budget.STARTUP_FUEL, self.memory,
                                   self.cpu_left, self.whole_budget())
        if self.run.get("module") and started.view is not None:
            in_module.write_view(started.view, in_module.view_files(self.run["module"]))
        guest.bind(started)
        if guest.grader is not None:  # ready before the version, which is ready at once
            guest.grader.start()
        started.inbox.put(protocol.encode_frame({**self.run, "type": protocol.MSG_RUN,
                                                 "tests": tests}))
        if guest.grader is None:
            started.inbox.close()
        self.guest = guest
        guest.started_at = time.monotonic()
        if self.killed:
            guest.interrupt("killed")
        try:
            started.ended.wait()
            error = started.error
            if error is not None and self.shared.trapped(error):
                return self._trapped(guest, error, started)
            if error is not None:
                raise error
        finally:
            self.fuel = max(1, started.fuel_left() - budget.STARTUP_FUEL)
            self.cpu_left -= started.cpu_used()
            guest.ended = True
            started.inbox.drop()
            if guest.grader is not None:
                guest.grader.join()
            if started.view is not None:
                _remove(started.view)
        return 0

    def _trapped(self, guest: Guest, exc: Exception, started: Any) -> int:
        """The exit code of an instance its runtime stopped (0: the run goes on, or the
        host stopped it and said why), by ``budget.ending``."""
        name = trap_name(exc)
        elapsed = None if guest.running is None else started.ended_at - guest.started_at
        why = budget.ending(guest.stop, elapsed, self.test_seconds, started.cpu_used(),
                            self.cpu_left, name == "OUT_OF_FUEL" or "fuel" in str(exc))
        if why == budget.TEST:
            guest.stop = why  # that test's Timeout; the tests left run afresh
        if why == budget.CPU:
            return int(endings.CPU)
        if why == budget.FUEL:
            return int(endings.FUEL)
        if why != budget.TRAP:
            return 0
        if guest.running is not None and name in STACK_TRAPS:
            guest.stop = "stack"  # that test's outcome; the tests left run afresh
            return 0
        self.note(TRAP_WORDS.get(name or "", (name or "a fault").lower().replace("_", " ")))
        return int(endings.TRAP)

    def _out_of_stack(self, index: int, test: dict[str, Any]) -> None:
        """A test whose recursion ran the interpreter's C stack out: a RecursionError, as
        deeper recursion gives in the strict sandbox (the guest's C stack is smaller)."""
        self.send({"type": protocol.MSG_TEST, "index": index, "outcome": {
            "name": test.get("name") or f"test{index}",
            "passed": False if test.get("has_expected") or test.get("kind") == "check"
            else None,
            "output": None, "exc_type": "RecursionError", "exc_message": STACK_MESSAGE,
            "opcodes": None, "opcode_total": 0, "seconds": 0.0}})

    def _timed_out(self, index: int, test: dict[str, Any]) -> None:
        self.send({"type": protocol.MSG_TEST, "index": index, "outcome": {
            "name": test.get("name") or f"test{index}",
            "passed": False if test.get("has_expected") or test.get("kind") == "check"
            else None,
            "output": None, "exc_type": "Timeout",
            "exc_message": f"test ran longer than {float(self.test_seconds):g}s",
            "opcodes": None, "opcode_total": 0, "seconds": float(self.test_seconds)}})

    def _shorten(self) -> None:
        """After a test overran, the later ones get half its budget, down to
        :data:`SHORTEST_TEST_SECONDS`, as in the strict child (``child.py``'s ``_shorten``):
        the cheap inputs after a few that hang still run."""
        if self.test_seconds:
            seconds = float(self.test_seconds)
            self.test_seconds = max(min(seconds, SHORTEST_TEST_SECONDS), seconds / 2)

    def _skipped(self, index: int, test: dict[str, Any], why: str) -> None:
        self.send({"type": protocol.MSG_TEST, "index": index, "outcome": {
            "name": test.get("name") or f"test{index}",
            "passed": False if test.get("has_expected") else None,
            "output": None, "exc_type": "Skipped", "exc_message": f"not run: {why}",
            "opcodes": None, "opcode_total": 0, "seconds": 0.0}})

    def _watch(self) -> None:
        """The timer thread: stop the guest whose running test overran its budget."""
        while not self.finished:
            time.sleep(TICK_SECONDS)
            guest = self.guest
            if guest is None or guest.ended or guest.stop is not None or not self.test_seconds:
                continue
            if guest.running is not None and (
                    time.monotonic() - guest.started_at > float(self.test_seconds)):
                guest.interrupt("test")


def _framed(message: dict[str, Any]) -> bytes:
    """A message the host sends, framed (a guest's own ``v`` dropped)."""
    found: bytes = protocol.encode_frame({k: v for k, v in message.items() if k != "v"})
    return found


def _one_frame(fd: int, kind: str) -> dict[str, Any]:
    """The one ``kind`` message the runner writes on ``fd`` (read to EOF)."""
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    messages = protocol.FrameReader(max_frame=64 * 1024 * 1024).feed(b"".join(chunks))
    if len(messages) != 1 or messages[0].get("type") != kind:
        raise protocol.ProtocolError(f"expected exactly one {kind} message")
    found: dict[str, Any] = messages[0]
    return found


class Version:
    """One version a long-lived host serves, on a thread of its own, with the runner's
    descriptors (``serve.py``): its run message, stdout (unused: the guest's goes to the
    host), stderr, messages, and for check harnesses the grader's input and the verdicts.
    Every descriptor is closed when the version ends, which the runner sees as its end."""

    def __init__(self, shared: Shared, fds: list[int], on_exit: Any) -> None:
        self.shared = shared
        self.fds = fds
        self.on_exit = on_exit
        self.host: Host | None = None
        self.killed = False
        self.code = int(endings.HOST_ERROR)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        stdin, stdout, stderr, msg, *grading = self.fds
        os.close(stdout)
        tail = b""
        try:
            self.code, tail = run_version(self.shared, stdin, msg, grading, self)
        finally:
            with contextlib.suppress(OSError):
                view = memoryview(tail)
                while view:
                    view = view[os.write(stderr, view):]
            for fd in (stdin, stderr, msg, *grading):
                with contextlib.suppress(OSError):
                    os.close(fd)
            self.on_exit()

    def kill(self) -> None:
        """Stop the version (the runner's deadline or cancel)."""
        self.killed = True
        host = self.host
        if host is not None:
            host.kill()


def run_version(shared: Shared, run_fd: int, msg_fd: int, grading: list[int],
                holder: Version | None = None) -> tuple[int, bytes]:
    """Run the version whose ``run`` message is on ``run_fd`` (``grading``: the grader's
    input and the verdicts' descriptors, or none): its exit code and stderr."""
    try:
        run = _one_frame(run_fd, protocol.MSG_RUN)
        checks, verdicts = None, None
        if grading:
            grade = _one_frame(grading[0], "grade")
            checks = {str(k): str(v) for k, v in dict(grade.get("checks") or {}).items()}
            verdicts = grading[1]
        host = Host(shared, run, fd_writer(msg_fd), checks,
                    None if verdicts is None else fd_writer(verdicts))
        if holder is not None:
            holder.host = host
            if holder.killed:
                host.kill()
        code = host.main()
    except Exception as exc:  # a boundary: the parent hears why in stderr
        return int(endings.HOST_ERROR), f"portable sandbox: {type(exc).__name__}: {exc}\n".encode()
    return code, host.stderr


def main(argv: list[str]) -> int:
    """``host.py --compiled <cwasm> --runtime <the guest's /usr> --bundle <the compiled
    harness's folder> <message-fd> [<grader-in> <verdict-out>]``: one version, in this
    process; ``host.py --serve <socket> --compiled ... --runtime ... --bundle ...``: every
    version the runner sends, until it goes (``serve.py``)."""
    if argv[1:2] == ["--serve"]:
        instance.more_descriptors()
        serve: Any = _load("_cq_serve", os.path.join(HERE, "serve.py"))
        shared = Shared(argv[4], argv[6], argv[8], warm.WAITING)
        return int(serve.serve(argv[2], lambda fds, on_exit: Version(shared, fds, on_exit),
                               shared.close))
    try:
        shared = Shared(argv[2], argv[4], argv[6])
    except Exception as exc:  # a boundary: the parent hears why in stderr
        sys.stderr.write(f"portable sandbox: {type(exc).__name__}: {exc}\n")
        return int(endings.HOST_ERROR)
    extra = [int(fd) for fd in argv[8:10]] if len(argv) > 9 else []
    code, tail = run_version(shared, 0, int(argv[7]), extra)
    if tail:
        sys.stderr.buffer.write(tail)
        sys.stderr.flush()
    shared.close()
    return code


if __name__ == "__main__":
    sys.stdout.flush()
    os._exit(main(sys.argv))
