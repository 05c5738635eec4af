"""The portable sandbox's host process: runs one version in a WebAssembly guest.

Started by the runner as ``python -I -B host.py --compiled <cwasm> --runtime <dir>
--bundle <dir> <message-fd>`` with the ``run`` message on stdin, in a fresh temporary
folder. It gives the guest (``guest.py`` in CPython on WASI) a fresh store and instance of
the cached compiled interpreter, and nothing of the host: read-only preopens of the
standard library, the harness (its sources and, as ``/bundle``, its code compiled once by
the guest's interpreter) and the module view only, no sockets, an environment of its own,
fixed argv. The store caps memory; fuel bounds CPU (deterministic); a timer thread bumps
the engine's epoch to stop the guest when a test overruns its budget. The guest's messages
are parsed here as the parent parses any child's and sent on the message descriptor; a
test that overran gets a ``Timeout`` outcome and the tests left run in a fresh instance
(without the rest of its series). Output floods end the run (``output-limit``).
"""

from __future__ import annotations

import os
import sys
import threading
import time
import types
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
HARNESS = os.path.dirname(HERE)
GUEST_HARNESS = "/harness"
GUEST_SCRIPT = GUEST_HARNESS + "/portable/guest.py"
TICK_SECONDS = 0.01
#: Fuel per second of the CPU budget (a guest runs about 2e9 units a second here).
FUEL_PER_SECOND = 2_000_000_000
#: Fuel for the guest's own start (the interpreter and the harness: about 7e8), not
#: counted against the version's budget.
STARTUP_FUEL = 2_000_000_000
STDERR_KEEP = 4096


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
        self.fuel_now: Any = None  # the store's fuel left, read between guest writes
        self.fuel_at: int | None = None

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
            self.host.send({"type": "protocol-error", "detail": str(exc)})
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
                self.fuel_at = self.fuel_now()
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
        self.host.send(message)

    def _metered(self, outcome: Any) -> Any:
        """The outcome with the fuel its test used (measured here; a guest's own is
        replaced)."""
        if not isinstance(outcome, dict):
            return outcome
        used = None if self.fuel_at is None else max(0, self.fuel_at - self.fuel_now())
        self.fuel_at = None
        return {**outcome, "fuel": used}

    def interrupt(self, why: str) -> None:
        """Stop the guest at its next epoch check."""
        if self.stop is None:
            self.stop = why
            self.host.engine.increment_epoch()


class Host:
    """Runs the version's tests in as many fresh instances as overruns need."""

    def __init__(self, run: dict[str, Any], compiled: str, runtime: str, bundle: str,
                 fd: int) -> None:
        import wasmtime

        self.wasmtime = wasmtime
        self.run = run
        self.fd = fd
        self.runtime = runtime
        self.bundle = bundle
        self.engine = interpreter.make_engine()
        self.module = wasmtime.Module.deserialize_file(self.engine, compiled)
        self.linker = wasmtime.Linker(self.engine)
        self.linker.define_wasi()
        limits = run["limits"]
        self.fuel = int(float(limits["cpu_seconds"]) * FUEL_PER_SECOND)
        self.fresh_fuel = STARTUP_FUEL
        self.memory = int(limits["memory_mb"]) * 1024 * 1024
        self.output = int(limits["output_bytes"])
        self.test_seconds = limits.get("test_seconds")
        self.budget = protocol.MAX_FRAME + 512 * 1024 * len(run.get("tests") or [])
        self.layers = ["wasm", "no-preopens", "store-limits", "fuel", "epoch"]
        self.hello_sent = self.module_sent = False
        self.stderr = b""
        self.guest: Guest | None = None
        self.view: str | None = None

    def send(self, message: dict[str, Any]) -> None:
        data = memoryview(protocol.encode_frame({k: v for k, v in message.items() if k != "v"}))
        while data:
            data = data[os.write(self.fd, data):]

    def main(self) -> int:
        """Run every test (restarting after an overrun); the process's exit code."""
        if self.run.get("module"):
            self.view = os.path.abspath("view")
            in_module.write_view(self.view, in_module.view_files(self.run["module"]))
        tests = list(self.run.get("tests") or [])
        todo = [i for i, test in enumerate(tests) if test.get("kind") != "check"]
        for i in sorted(set(range(len(tests))) - set(todo)):
            self._skipped(i, tests[i], "check harnesses need the grader process, which the "
                          "portable sandbox does not have yet")
        timeouts, memory_error = 0, False
        threading.Thread(target=self._watch, daemon=True).start()
        while True:
            guest = Guest(self, todo)
            code = self._instance(guest, [{**tests[i], "name": tests[i].get("name")
                                           or f"test{i}"} for i in todo])
            if guest.done is not None:
                memory_error = memory_error or bool(guest.done.get("memory_error"))
                timeouts += int(guest.done.get("timeouts") or 0)
                self.send({**guest.done, "timeouts": timeouts, "memory_error": memory_error})
                return 0
            if guest.stop != "test" or guest.running is None:
                return code
            timeouts += 1
            over = guest.running
            self._timed_out(todo[over], tests[todo[over]])
            series = tests[todo[over]].get("series")
            rest = []
            for k in range(over + 1, len(todo)):
                if series is not None and tests[todo[k]].get("series") == series:
                    self._skipped(todo[k], tests[todo[k]],
                                  f"an earlier test of series {series!r} timed out")
                else:
                    rest.append(todo[k])
            todo = rest

    def _instance(self, guest: Guest, tests: list[dict[str, Any]]) -> int:
        """One fresh store and instance running ``guest.py`` on ``tests``."""
        wasmtime = self.wasmtime
        config = wasmtime.WasiConfig()
        config.argv = ("python", "-S", GUEST_SCRIPT)
        config.env = [list(pair) for pair in interpreter.GUEST_ENV]
        config.preopen_dir(self.runtime, "/usr", False)
        config.preopen_dir(HARNESS, GUEST_HARNESS, False)
        config.preopen_dir(self.bundle, "/bundle", False)
        if self.view is not None:
            config.preopen_dir(self.view, in_module.VIEW, False)
        stdin = os.path.abspath(f"run-{len(tests)}-{time.monotonic_ns()}")
        with open(stdin, "wb") as handle:
            handle.write(protocol.encode_frame({**self.run, "type": protocol.MSG_RUN,
                                                "tests": tests}))
        config.stdin_file = stdin
        config.stdout_custom = guest.on_stdout
        config.stderr_custom = guest.on_stderr
        store = wasmtime.Store(self.engine)
        store.set_limits(memory_size=self.memory)
        store.set_fuel(max(self.fuel, 1) + self.fresh_fuel)
        store.set_epoch_deadline(1)
        store.set_wasi(config)
        guest.fuel_now = store.get_fuel
        self.guest = guest
        guest.started_at = time.monotonic()
        try:
            instance = self.linker.instantiate(store, self.module)
            start = instance.exports(store)["_start"]
            assert isinstance(start, wasmtime.Func)
            start(store)
        except wasmtime.ExitTrap:
            pass
        except (wasmtime.Trap, wasmtime.WasmtimeError) as exc:
            return self._trapped(guest, exc)
        finally:
            self.fuel = max(0, store.get_fuel() - self.fresh_fuel)
            guest.ended = True
            os.unlink(stdin)
        return 0

    def _trapped(self, guest: Guest, exc: Exception) -> int:
        if guest.stop is not None:
            return 0
        if self.fuel <= 0 or "fuel" in str(exc):
            return int(endings.FUEL)
        sys.stderr.write(f"{str(exc)[:1000]}\n")
        return int(endings.TRAP)

    def _timed_out(self, index: int, test: dict[str, Any]) -> None:
        self.send({"type": protocol.MSG_TEST, "index": index, "outcome": {
            "name": test.get("name") or f"test{index}",
            "passed": False if test.get("has_expected") or test.get("kind") == "check"
            else None,
            "output": None, "exc_type": "Timeout",
            "exc_message": f"test ran longer than {float(self.test_seconds):g}s",
            "opcodes": None, "opcode_total": 0, "seconds": float(self.test_seconds)}})

    def _skipped(self, index: int, test: dict[str, Any], why: str) -> None:
        self.send({"type": protocol.MSG_TEST, "index": index, "outcome": {
            "name": test.get("name") or f"test{index}",
            "passed": False if test.get("has_expected") else None,
            "output": None, "exc_type": "Skipped", "exc_message": f"not run: {why}",
            "opcodes": None, "opcode_total": 0, "seconds": 0.0}})

    def _watch(self) -> None:
        """The timer thread: stop the guest whose running test overran its budget."""
        while True:
            time.sleep(TICK_SECONDS)
            guest = self.guest
            if guest is None or guest.ended or guest.stop is not None or not self.test_seconds:
                continue
            if guest.running is not None and (
                    time.monotonic() - guest.started_at > float(self.test_seconds)):
                guest.interrupt("test")


def main(argv: list[str]) -> int:
    """``host.py --compiled <cwasm> --runtime <the guest's /usr> --bundle <the compiled
    harness's folder> <message-fd>``."""
    try:
        compiled, runtime, bundle, fd = argv[2], argv[4], argv[6], int(argv[7])
        raw = sys.stdin.buffer.read()
        messages = protocol.FrameReader().feed(raw)
        if len(messages) != 1 or messages[0].get("type") != protocol.MSG_RUN:
            raise protocol.ProtocolError("expected exactly one run message on stdin")
        host = Host(messages[0], compiled, runtime, bundle, fd)
    except Exception as exc:  # a boundary: the parent hears why in stderr
        sys.stderr.write(f"portable sandbox: {type(exc).__name__}: {exc}\n")
        return int(endings.HOST_ERROR)
    code = host.main()
    if host.stderr:
        sys.stderr.buffer.write(host.stderr)
    return code


if __name__ == "__main__":
    sys.stdout.flush()
    os._exit(main(sys.argv))
