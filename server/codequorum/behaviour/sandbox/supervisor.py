"""Parent side of the sandbox: start children, enforce the deadline, classify the end.

Candidate code never runs in this process: it is sent to a child interpreter
(``child.py``) that applies the limits and the audit hook before compiling it.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import queue
import selectors
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from codequorum.behaviour.sandbox import (
    bwrap,
    cgroups,
    forkserver,
    outcome_grading,
    protocol,
    seccomp_filter,
    startup,
)
from codequorum.behaviour.sandbox.limits import Limits
from codequorum.behaviour.sandbox.pool import run_pool
from codequorum.behaviour.sandbox.portable import channel, endings, processes
from codequorum.behaviour.sandbox.portable import interpreter as wasm
from codequorum.behaviour.sandbox.tracer import MODES as TRACE_MODES
from codequorum.core import scratch
from codequorum.core.model import ModuleContext, TestCase

log = logging.getLogger(__name__)

CHILD_SCRIPT = Path(__file__).with_name("child.py")
STRICT_ARG = "--strict"
#: The cgroup of one candidate started with ``exec`` (bubblewrap per candidate): its own
#: memory limit plus room for bubblewrap and the interpreter, and a few processes.
EXEC_GROUP_SLACK_MB = 256
EXEC_GROUP_PIDS = 64
#: ``strict``: bubblewrap, namespaces per candidate, seccomp (the default); ``weak``: a
#: child process with rlimits and the audit hook only, for machines without namespaces.
SANDBOX_LEVELS = ("strict", "weak", "portable")
#: The portable level's host process (it runs the WebAssembly guest).
PORTABLE_HOST = forkserver.PORTABLE_HOST
STDERR_TAIL = 4096
_READ_CHUNK = 65536
_POLL_SECONDS = 0.05
_KILL_GRACE_SECONDS = 2.0
MAX_MESSAGE_BYTES = 16 * 1024 * 1024
PER_TEST_MESSAGE_BYTES = 512 * 1024
#: Messages a child may send, beyond a few per test: a harness sends a hello, a module, a
#: few refusals, a start and an outcome per test and an end. Past them the run is a flood:
#: each message is held until the run ends, and tiny ones within the byte budget made
#: hundreds of megabytes of the runner's memory.
MAX_MESSAGES = 1024
PER_TEST_MESSAGES = 4


@dataclass
class TestOutcome:
    """One test of one candidate.

    ``output`` is the canonical repr of the return value (``call``), the printed text
    (``stdio``) or None (``check``); ``passed`` is None when the test has no expected
    value. ``opcodes`` are the traced counts of the candidate's own code during the test;
    ``cpu_ns``: for a test of a series (the scaling series), the CPU nanoseconds one call
    takes untraced (``timing.py``), None when not timed. ``fuel`` (the portable sandbox
    only): the WebAssembly instructions the test executed, metered by the host, a cost that
    does not depend on the machine or its load and sees the work inside builtins; None
    elsewhere.
    """

    name: str
    passed: bool | None
    output: str | None
    exc_type: str | None
    exc_message: str | None
    opcodes: dict[str, int] | None
    opcode_total: int
    seconds: float
    cpu_ns: int | None = None
    fuel: int | None = None

    @classmethod
    def from_message(cls, data: Any) -> TestOutcome:
        """Build from the child's ``test`` payload; any malformation is a ProtocolError."""
        if not isinstance(data, dict):
            raise protocol.ProtocolError("test outcome is not an object")
        opcodes = data.get("opcodes")
        if opcodes is not None and not (
            isinstance(opcodes, dict)
            and len(opcodes) <= MAX_OPCODE_NAMES
            and all(isinstance(k, str) and _is_count(v) for k, v in opcodes.items())
        ):
            raise protocol.ProtocolError("opcode counts are malformed")
        total = data.get("opcode_total", 0)
        seconds = data.get("seconds", 0.0)
        passed = data.get("passed")
        cpu_ns = data.get("cpu_ns")
        if cpu_ns is not None and not _is_count(cpu_ns):
            raise protocol.ProtocolError("cpu_ns is not a count")
        fuel = data.get("fuel")
        if not _is_count(total) or not isinstance(seconds, (int, float)) or isinstance(
            seconds, bool
        ) or not (passed is None or isinstance(passed, bool)) or not (
            fuel is None or _is_count(fuel)
        ):
            raise protocol.ProtocolError("test outcome fields have the wrong types")
        return cls(
            name=_text_field(data, "name") or "",
            passed=passed,
            output=_text_field(data, "output"),
            exc_type=_text_field(data, "exc_type"),
            exc_message=_text_field(data, "exc_message"),
            opcodes=dict(opcodes) if opcodes is not None else None,
            opcode_total=int(total),
            seconds=float(seconds),
            cpu_ns=cpu_ns,
            fuel=None if fuel is None else int(fuel),
        )


MAX_OPCODE_NAMES = 1024
MAX_TEXT_FIELD = 1 << 20


#: What the strict and weak levels' parent needs of the system (POSIX: a child in a session
#: of its own, reaped with its CPU time, its pipes waited on with ``selectors``).
NATIVE_NEEDS = ("wait4", "waitid", "killpg", "getuid", "set_blocking")


def native_lacks(os_name: str = os.name, names: Sequence[str] | None = None) -> list[str]:
    """What this system lacks of what the strict and weak levels need (empty: nothing):
    a POSIX system (``os.name``) with every call of :data:`NATIVE_NEEDS`. Windows has
    neither; there only the portable level runs (over its ``process`` channel)."""
    lacking = [] if os_name == "posix" else [f"a POSIX system (this is {os_name!r})"]
    present = set(dir(os)) if names is None else set(names)
    return lacking + [f"os.{name}" for name in NATIVE_NEEDS if name not in present]


#: How a level that needs POSIX says it cannot run (``isolation.missing`` reads its head).
NATIVE_MISSING = "this system cannot start the {level} sandbox's child"


def native_refusal(level: str) -> str | None:
    """Why the ``level`` (strict or weak) cannot start a child here, None when it can."""
    lacking = native_lacks()
    if not lacking:
        return None
    instead = ("JavaScript and TypeScript versions do not run here" if level == "Node"
               else "the portable sandbox runs Python versions here")
    return NATIVE_MISSING.format(level=level) + f" (it lacks {', '.join(lacking)}); {instead}"


def _is_count(value: Any) -> bool:
    return type(value) is int and 0 <= value < 1 << 62


def _text_field(data: dict[str, Any], key: str) -> str | None:
    """A string field (or None) of a child's message, bounded."""
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > MAX_TEXT_FIELD:
        raise protocol.ProtocolError(f"field {key!r} is not a bounded string")
    return value


@dataclass
class ModuleLoad:
    """How a candidate's module loaded in its child, before any of the candidate's code ran.

    ``loaded``: the module's top level finished; ``detail``: why it did not (it raised, ran
    too long, or the run ended while it loaded); ``ran_alone``: it did not load and the
    candidate's tests ran without it; ``refused``: what the audit hook refused while the
    module's top level ran (the module's doing, not the candidate's).
    """

    loaded: bool
    detail: str = ""
    ran_alone: bool = False
    refused: list[str] = field(default_factory=list)


@dataclass
class CandidateResult:
    """How one candidate's run ended, and its tests.

    ``status``: ``ok``, ``timeout``, ``memory``, ``crashed: <SIGNAL>``, ``exit``,
    ``syntax-error``, ``output-limit``, ``forbidden: <what>``, ``protocol-violation``
    (the child sent something malformed or forged), ``cancelled`` or ``error``.
    ``tests`` holds every test that finished, plus the one that was running when the
    child ended abnormally. ``layers`` are the isolation layers that held;
    ``start_method`` says how the child was started (``fork``, ``exec``, or ``process``:
    the portable level over its guests' own process); ``module`` how the candidate's module
    loaded (None when it ran without one, or never got that far: a syntax error, a sandbox
    that could not start).
    """

    index: int
    status: str
    detail: str
    tests: list[TestOutcome] = field(default_factory=list)
    layers: list[str] = field(default_factory=list)
    python: str = ""
    returncode: int | None = None
    start_method: str = ""
    module: ModuleLoad | None = None


def _scrubbed_env(home: str) -> dict[str, str]:
    """The child's whole environment: nothing inherited from the parent."""
    return startup.environment("/usr/local/bin:/usr/bin:/bin", home, home)


SECRET_NAMES = (
    ".ssh",
    ".aws",
    ".azure",
    ".gnupg",
    ".netrc",
    ".git-credentials",
    ".pypirc",
    ".npmrc",
    ".docker",
    ".kube",
    ".config",
    ".local/share/keyrings",
)


def secret_paths() -> list[str]:
    """Paths the child may not even read: credentials under the parent's home."""
    home = os.path.expanduser("~")
    if not home or home == "/":
        return []
    return [os.path.join(home, name) for name in SECRET_NAMES]


def encode_test(test: TestCase, series: str | None = None) -> dict[str, Any]:
    """A TestCase -> the run message's JSON form (raises TypeError for non-literals).

    The expected value stays here: the parent grades (``outcome_grading.py``).
    """
    encoded = {
        "series": series,
        "kind": test.kind,
        "name": test.name,
        "args": protocol.encode_value(tuple(test.args)),
        "kwargs": protocol.encode_value(dict(test.kwargs)),
        "stdin": test.stdin,
        "has_expected": test.has_expected,
        "source": None,  # a check harness goes to the grader only (check_grader.py)
    }
    if test.kind == "example":  # a docstring example runs its own code (doctest_run.py)
        encoded["source"] = test.source
        encoded["setup"] = list(test.setup)
    if test.receiver is not None:
        r = test.receiver
        encoded["receiver"] = {"name": r.name, "args": protocol.encode_value(tuple(r.args)),
                               "kwargs": protocol.encode_value(dict(r.kwargs)), "call": r.call,
                               "source": r.source}
    return encoded


def encode_module(module: ModuleContext) -> dict[str, Any]:
    """A module context -> the run message's JSON form."""
    return {
        "name": module.name,
        "path": module.path,
        "qualified_name": module.qualified_name,
        "files": [[path, text] for path, text in module.files],
        "roots": list(module.roots),
    }


def _not_started(returncode: int, stderr: str) -> str:
    """Why a sandbox whose child never said hello did not start: what its launcher said,
    else the usual cause of a launcher that exits without a word."""
    said = stderr.strip()[-300:]
    return (f"the sandbox did not start: it exited with status {returncode} before the "
            "version's process ran" + (f": {said}" if said else
                                         ", saying nothing (a kernel or a container that "
                                         "refuses new namespaces does this; `codequorum "
                                         "doctor` shows what this machine gives)"))


def _signal_name(num: int) -> str:
    try:
        return signal.Signals(num).name
    except ValueError:
        return f"signal {num}"


class _Killable(Protocol):
    """What the runner stops: a child, or a version on the ``process`` channel."""

    def kill(self) -> None: ...


@dataclass
class _Child:
    """A started child: pid and the parent's ends of its pipes."""

    pid: int
    stdin: int
    stdout: int
    stderr: int
    msg: int
    proc: subprocess.Popen[bytes] | None = None
    spawned: forkserver.Spawned | None = None
    exited: bool = False
    stdin_closed: bool = False
    grader_in: int | None = None  # harness sources to the grader (written, then closed)
    grader_out: int | None = None  # the grader's verdicts

    def has_exited(self) -> bool:
        """Whether the child has exited (it stays a zombie until :meth:`reap`)."""
        if self.spawned is not None:
            return self.exited
        flags = os.WEXITED | os.WNOHANG | os.WNOWAIT
        return os.waitid(os.P_PID, self.pid, flags) is not None

    def reap(self) -> tuple[int, float]:
        """Wait status and CPU seconds of the (exited or killed) child."""
        if self.spawned is not None:
            got = forkserver.reap(self.spawned)
            return got if got is not None else (int(signal.SIGKILL), 0.0)
        _pid, status, usage = os.wait4(self.pid, 0)
        if self.proc is not None:
            self.proc.returncode = os.waitstatus_to_exitcode(status)
        return status, usage.ru_utime + usage.ru_stime

    def kill(self) -> None:
        """SIGKILL the child's process group: through its fork server (whose pids are
        those of the server's PID namespace), else directly."""
        if self.spawned is not None:
            forkserver.kill(self.spawned)
        else:
            _kill_group(self.pid)

    def close_stdin(self) -> None:
        """Close our end of the child's stdin (the run message is written)."""
        if not self.stdin_closed:
            self.stdin_closed = True
            if self.proc is not None and self.proc.stdin is not None:
                with contextlib.suppress(OSError):
                    self.proc.stdin.close()
            else:
                with contextlib.suppress(OSError):
                    os.close(self.stdin)

    def close(self) -> None:
        """Close every pipe end we hold."""
        self.close_stdin()
        if self.proc is not None:
            for stream in (self.proc.stdout, self.proc.stderr):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
            fds = [self.msg]
        else:
            fds = [self.stdout, self.stderr, self.msg]
        fds += [fd for fd in (self.grader_in, self.grader_out) if fd is not None]
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)


@dataclass
class _Reported:
    """What the child's messages say, checked field by field (they are hostile input).

    Only the first ``hello`` counts (candidate code runs after it and could send more); a
    second outcome for one test is a forged one (the harness sends one per test).
    Any malformed message raises :class:`protocol.ProtocolError`.
    """

    hello: tuple[list[str], str] | None = None
    outcomes: dict[int, TestOutcome] = field(default_factory=dict)
    values: dict[int, Any] = field(default_factory=dict)
    running: int | None = None
    forbidden: list[str] = field(default_factory=list)
    done: dict[str, Any] | None = None
    exit_code: Any = None
    exited: bool = False
    syntax: str | None = None
    error: str | None = None
    violation: str | None = None
    expects_module: bool = False
    module: tuple[bool, str, bool] | None = None
    module_refused: list[str] = field(default_factory=list)
    tests_started: bool = False

    @classmethod
    def parse(cls, messages: list[dict[str, Any]], n_tests: int,
              expects_module: bool = False) -> _Reported:
        """``expects_module``: the candidate runs in its module, so the child sends one
        ``module`` message before any candidate code runs; refusals before it are the
        module's, and only that first one counts (a later one would be the candidate's)."""
        seen = cls(expects_module=expects_module)
        for message in messages:
            seen._take(message, n_tests)
        return seen

    def _take_module(self, message: dict[str, Any]) -> None:
        if not self.expects_module or self.module is not None or self.tests_started:
            return
        loaded = message.get("loaded")
        if not isinstance(loaded, bool):
            raise protocol.ProtocolError("module: loaded is not a boolean")
        alone = message.get("ran_alone", not loaded)
        if not isinstance(alone, bool):
            raise protocol.ProtocolError("module: ran_alone is not a boolean")
        self.module = (loaded, (_text_field(message, "detail") or "")[:2000], alone)

    def _take(self, message: dict[str, Any], n_tests: int) -> None:
        kind = message.get("type")
        if kind == protocol.MSG_HELLO:
            if self.hello is None:
                layers = message.get("layers")
                if not isinstance(layers, list) or not all(isinstance(x, str) for x in layers):
                    raise protocol.ProtocolError("hello: layers are malformed")
                self.hello = (layers[:64], str(_text_field(message, "python") or "")[:32])
        elif kind == protocol.MSG_TEST_START:
            self.running = _index(message, n_tests)
            self.tests_started = True
        elif kind == protocol.MSG_MODULE:
            self._take_module(message)
        elif kind == protocol.MSG_TEST:
            index = _index(message, n_tests)
            if index in self.outcomes:  # the harness sends one; a second is forged
                raise protocol.ProtocolError(f"a second outcome for test {index}")
            data = message.get("outcome")
            if data is not None:
                self.outcomes[index] = TestOutcome.from_message(data)
                if isinstance(data, dict) and "value" in data:
                    self.values[index] = protocol.decode_untrusted(data["value"])
            self.running = None
        elif kind == protocol.MSG_FORBIDDEN:
            what = (_text_field(message, "what") or "?")[:100]
            if self.expects_module and self.module is None and not self.tests_started:
                self.module_refused.append(what)
            else:
                self.forbidden.append(what)
        elif kind == protocol.MSG_EXIT:
            code = message.get("code")
            if not (code is None or type(code) is int):
                raise protocol.ProtocolError("exit: code is not an integer")
            self.exited, self.exit_code = True, code
        elif kind == protocol.MSG_SYNTAX_ERROR:
            self.syntax = _text_field(message, "detail") or ""
        elif kind == protocol.MSG_ERROR:
            self.error = _text_field(message, "detail") or ""
        elif kind == "protocol-error":
            raise protocol.ProtocolError(str(message.get("detail", "")))
        elif kind == protocol.MSG_DONE:
            timeouts = message.get("timeouts", 0)
            if not (timeouts is None or _is_count(timeouts)) or not isinstance(
                message.get("memory_error", False), bool
            ):
                raise protocol.ProtocolError("done: fields have the wrong types")
            self.done = message
        elif kind != protocol.MSG_OUTPUT_LIMIT:
            raise protocol.ProtocolError(f"unknown message type {str(kind)[:40]!r}")


def _index(message: dict[str, Any], n_tests: int) -> int:
    index = message.get("index")
    if type(index) is not int or not 0 <= index < n_tests:
        raise protocol.ProtocolError("test index out of range")
    return index


class _ChildRun:
    """Drives one child from start to exit; never raises for anything the child does."""

    def __init__(
        self,
        code: str,
        tests: Sequence[TestCase],
        entry_point: str | None,
        limits: Limits,
        trace: bool,
        index: int,
        interpreter: str | None,
        trace_mode: str,
        cancel: threading.Event | None,
        probe: bool = False,
        start_method: str = "fork",
        series: Sequence[str | None] | None = None,
        strict: bool = True,
        audit_hook: bool = True,
        module: ModuleContext | None = None,
        portable: bool = False,
    ) -> None:
        self.module = module
        self.strict = strict and not portable
        self.portable = portable
        self.host_args: list[str] = []
        self.audit_hook = audit_hook
        self.code = code
        self.tests = list(tests)
        self.series = list(series) if series is not None else [None] * len(self.tests)
        self.entry_point = entry_point
        self.limits = limits
        self.trace = trace
        self.index = index
        self.interpreter = interpreter or sys.executable
        self.trace_mode = trace_mode
        self.cancel = cancel
        self.probe = probe
        self.start_method = start_method
        self.messages: list[dict[str, Any]] = []
        self.stdout_bytes = 0
        self.stderr_tail = b""
        self.killed_for: str | None = None
        self.message_budget = MAX_MESSAGE_BYTES
        self.messages_left = MAX_MESSAGES
        self.via_bwrap_exec = False
        self.in_cgroup = False
        self.group: cgroups.Group | None = None
        self.checks = {str(i): t.source or "" for i, t in enumerate(self.tests)
                       if t.kind == "check"}
        self.verdicts: dict[int, dict[str, Any]] = {}

    # ----------------------------------------------------------------------------
    def run(self) -> CandidateResult:
        """Run the child and classify how it ended."""
        try:
            encoded = [encode_test(t, s) for t, s in zip(self.tests, self.series, strict=True)]
        except TypeError as exc:
            return CandidateResult(self.index, "error", f"test values: {exc}")
        run_message = {
            "type": protocol.MSG_RUN,
            "code": self.code,
            "tests": encoded,
            "entry_point": self.entry_point,
            "limits": self.limits.to_dict(),
            "trace": self.trace,
            "trace_mode": self.trace_mode,
            "probe": self.probe,
            "secrets": secret_paths(),
            "parent_pid": os.getpid(),
            "seccomp": "" if self.portable else seccomp_filter.candidate_filter().program.hex(),
            "audit_hook": self.audit_hook,
            "grader": bool(self.checks),
        }
        if self.module is not None:
            run_message["module"] = encode_module(self.module)
        if self.portable:
            refused = self._prepare_portable(run_message)
            if refused is not None:
                return CandidateResult(self.index, "error", refused)
        if self.portable and channel.current() == channel.PROCESS:
            return self._run_in_processes(run_message)
        refused_here = None if self.portable else native_refusal(
            "strict" if self.strict else "weak")
        if refused_here is not None:
            return CandidateResult(self.index, "error", refused_here)
        payload = protocol.encode_frame(run_message)
        _sweep_once()
        if self.strict:
            return self._run_in(bwrap.WORKDIR, payload)
        sandbox = scratch.make("sandbox")
        try:
            return self._run_in(sandbox, payload)
        finally:
            _remove_tree(sandbox)

    def _prepare_portable(self, run_message: dict[str, Any]) -> str | None:
        """The host's arguments (the interpreter compiled into the cache first), or why the
        portable level cannot run this candidate."""
        try:
            compiled = wasm.compiled_module(progress=_log_progress)
            runtime = wasm.stdlib_root(compiled)
            bundle = wasm.harness_bundle(compiled)
        except (wasm.PortableUnavailable, OSError) as exc:
            return f"the portable sandbox cannot run here: {exc}"
        self.host_args = ["--compiled", str(compiled), "--runtime", str(runtime),
                          "--bundle", str(bundle)]
        return None

    def _start(self, sandbox: str) -> _Child | str:
        """Start the child (fork server, else a fresh interpreter); an error text if neither."""
        env = _scrubbed_env(sandbox)
        grading = [os.pipe(), os.pipe()] if self.checks else []
        try:
            child = self._start_with(sandbox, env, [g[0] for g in grading[:1]]
                                     + [g[1] for g in grading[1:]])
        finally:
            if grading:  # the child's ends: the grader's input reader, output writer
                os.close(grading[0][0])
                os.close(grading[1][1])
        if isinstance(child, str):
            for fd in (grading[0][1], grading[1][0]) if grading else ():
                os.close(fd)
            return child
        if grading:
            child.grader_in, child.grader_out = grading[0][1], grading[1][0]
        return child

    def _start_with(self, sandbox: str, env: dict[str, str], extra: list[int]) -> _Child | str:
        """Start the child with ``extra`` descriptors as its fds 4 and 5 (the grader's)."""
        forks = self.start_method == "fork"
        for attempt in range(2 if forks else 0):
            server = (forkserver.portable_server(self.host_args) if self.portable
                      else forkserver.server_for(self.interpreter, self.strict))
            if server is None:
                break
            pipes = [os.pipe() for _ in range(4)]  # stdin, stdout, stderr, messages
            child_ends = [pipes[0][0], pipes[1][1], pipes[2][1], pipes[3][1]]
            ours = [pipes[0][1], pipes[1][0], pipes[2][0], pipes[3][0]]
            try:
                spawned = server.spawn(sandbox, env, child_ends + extra)
            except forkserver.ForkServerError:
                for fd in ours:
                    os.close(fd)
                if server.alive():
                    break  # busy or confused, but serving others: start this one afresh
                # A server that died is restarted once; if that fails too, no more servers.
                forkserver.retire(server, permanently=attempt == 1)
            else:
                stdin_w, stdout_r, stderr_r, msg_r = ours
                self.in_cgroup = server.group is not None
                return _Child(spawned.pid, stdin_w, stdout_r, stderr_r, msg_r, spawned=spawned)
            finally:
                for fd in child_ends:
                    os.close(fd)
        return self._exec(sandbox, env, extra)

    def _exec(self, sandbox: str, env: dict[str, str], extra: list[int]) -> _Child | str:
        """Start a fresh child (:meth:`_argv`'s command) with its message pipe and ``extra``
        descriptors; an error text when it cannot start."""
        msg_r, msg_w = os.pipe()
        try:
            argv = self._argv(msg_w, extra)
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd="/" if self.strict else sandbox,
                env=env,
                start_new_session=True,
                close_fds=True,
                pass_fds=(msg_w, *extra),
            )
        except (OSError, subprocess.SubprocessError) as exc:
            os.close(msg_r)
            return f"cannot start the child: {exc}"
        finally:
            os.close(msg_w)
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        return _Child(
            proc.pid, proc.stdin.fileno(), proc.stdout.fileno(), proc.stderr.fileno(), msg_r, proc
        )

    def _argv(self, msg_w: int, extra: list[int]) -> list[str]:
        """The command line of a fresh child (the interpreter and the child script, in
        bubblewrap when strict, in the portable host when portable); OSError when the
        sandbox it needs is missing."""
        fd_args = [str(msg_w), *(str(fd) for fd in extra)]
        if self.portable:  # the host needs wasmtime: this process's own interpreter
            return [sys.executable, "-I", "-B", str(PORTABLE_HOST), *self.host_args,
                    *fd_args]
        if not self.strict:
            return [self.interpreter, *startup.FLAGS, str(CHILD_SCRIPT), *fd_args]
        tool = bwrap.find_bwrap()
        if tool is None:
            raise OSError("bubblewrap is not available")
        layout = bwrap.interpreter_layout(self.interpreter)
        return self._grouped(bwrap.command(tool, layout, [STRICT_ARG, *fd_args]))

    def _grouped(self, argv: list[str]) -> list[str]:
        """A bubblewrap command line started in a cgroup of its own where one can be made
        (memory and process bounds of the whole sandbox)."""
        self.via_bwrap_exec = True
        memory = (self.limits.memory_mb + EXEC_GROUP_SLACK_MB) * 1024 * 1024
        self.group, _why = cgroups.make(memory, EXEC_GROUP_PIDS)
        if self.group is not None:
            argv = self.group.launcher(argv)
            self.in_cgroup = True
        return argv

    def _run_in(self, sandbox: str, payload: bytes) -> CandidateResult:
        started = time.monotonic()
        child = self._start(sandbox)
        if isinstance(child, str):
            return CandidateResult(self.index, "error", child)
        try:
            self._drive(child, payload, started)
        finally:
            # The child is not reaped yet (at most a zombie), so its pid and process
            # group id cannot have been reused: killing the group here is safe.
            child.kill()
            status, cpu = child.reap()
            child.close()
            if self.group is not None:
                self.group.remove()
        result = self._classify(status, cpu)
        result.start_method = "fork" if child.spawned is not None else "exec"
        return result

    def _run_in_processes(self, run_message: dict[str, Any]) -> CandidateResult:
        """The portable level over the ``process`` channel: the host's logic on a thread
        here, each guest in a process of its own; nothing POSIX-only on the way."""
        started = time.monotonic()
        events: queue.Queue[tuple[str, bytes]] = queue.Queue()
        version = processes.Version(self.host_args, run_message, self.checks,
                                    lambda kind, data: events.put((kind, data)))
        try:
            self._pump(version, events, started)
        finally:
            version.kill()
            code, tail = version.wait()
        self.stderr_tail = tail[-STDERR_TAIL:]
        result = self._classify((code & 0xFF) << 8, 0.0)
        result.start_method = "process"
        return result

    def _pump(self, version: processes.Version, events: queue.Queue[tuple[str, bytes]],
              started: float) -> None:
        """Take what the version sends until it has ended, its deadline and cancel kept."""
        deadline = started + self.limits.wall_seconds
        reader = protocol.FrameReader(max_frame=MAX_MESSAGE_BYTES)
        grader_reader = protocol.FrameReader(max_frame=PER_TEST_MESSAGE_BYTES)
        self._budget_messages()
        killed_at: float | None = None
        while True:
            now = time.monotonic()
            self._keep_deadline(version, deadline, now)
            if self.killed_for is not None:
                killed_at = now if killed_at is None else killed_at
                if now - killed_at > _KILL_GRACE_SECONDS:
                    return
            try:
                kind, data = events.get(timeout=_POLL_SECONDS)
            except queue.Empty:
                continue
            if kind == "exited":
                return
            if kind == "msg":
                self._on_messages(version, reader, data)
            else:
                self._on_verdicts(grader_reader, data)

    def _keep_deadline(self, proc: _Killable, deadline: float, now: float) -> None:
        """Kill for a cancel or the wall-clock deadline, once."""
        if self.killed_for is None:
            if self.cancel is not None and self.cancel.is_set():
                self._kill(proc, "cancelled")
            elif now >= deadline:
                self._kill(proc, "timeout")

    def _drive(self, child: _Child, payload: bytes, started: float) -> None:
        """Pump the pipes until the child has exited (without reaping it)."""
        deadline = started + self.limits.wall_seconds
        reader = protocol.FrameReader(max_frame=MAX_MESSAGE_BYTES)
        sel = selectors.DefaultSelector()
        writes = {child.stdin: memoryview(payload)}
        if child.grader_in is not None:
            grade = {"type": "grade", "checks": self.checks}
            writes[child.grader_in] = memoryview(protocol.encode_frame(grade))
        for fd in writes:
            os.set_blocking(fd, False)
            sel.register(fd, selectors.EVENT_WRITE, "write")
        sel.register(child.msg, selectors.EVENT_READ, "msg")
        sel.register(child.stdout, selectors.EVENT_READ, "stdout")
        sel.register(child.stderr, selectors.EVENT_READ, "stderr")
        open_reads = 3
        if child.grader_out is not None:
            sel.register(child.grader_out, selectors.EVENT_READ, "grader")
            open_reads += 1
        if child.spawned is not None:
            sel.register(child.spawned.conn, selectors.EVENT_READ, "server")
        grader_reader = protocol.FrameReader(max_frame=PER_TEST_MESSAGE_BYTES)
        killed_at: float | None = None
        exit_poll = 0.0005  # the exit follows the pipes closing closely: poll fast first
        self._budget_messages()
        try:
            while True:
                now = time.monotonic()
                self._keep_deadline(child, deadline, now)
                if self.killed_for is not None:
                    killed_at = now if killed_at is None else killed_at
                    if now - killed_at > _KILL_GRACE_SECONDS:
                        return  # something outside the group holds the pipes: stop here
                if open_reads == 0 and not writes:
                    if child.has_exited():
                        return
                    if child.spawned is None:
                        time.sleep(exit_poll)
                        exit_poll = min(_POLL_SECONDS, exit_poll * 2)
                        continue
                for key, _mask in sel.select(timeout=_POLL_SECONDS):
                    kind = key.data
                    if kind == "server":
                        event = forkserver.read_event(key.fileobj)  # type: ignore[arg-type]
                        if event is None or event.get("type") == "exited":
                            child.exited = True
                            sel.unregister(key.fileobj)
                        continue
                    if kind == "write":
                        self._write_some(child, key.fd, writes, sel)
                        continue
                    fd = key.fd
                    try:
                        data = os.read(fd, _READ_CHUNK)
                    except OSError:
                        data = b""
                    if not data:
                        sel.unregister(fd)
                        open_reads -= 1
                        continue
                    if kind == "msg":
                        self._on_messages(child, reader, data)
                    elif kind == "grader":
                        self._on_verdicts(grader_reader, data)
                    else:
                        self._on_output(child, kind, data)
        finally:
            sel.close()

    @staticmethod
    def _write_some(
        child: _Child, fd: int, writes: dict[int, memoryview], sel: selectors.BaseSelector
    ) -> None:
        """Write what the pipe takes of ``writes[fd]``; close the pipe once all is written."""
        pending = writes[fd]
        try:
            pending = pending[os.write(fd, pending[:_READ_CHUNK]) :]
        except BlockingIOError:
            return
        except OSError:
            pending = pending[:0]
        writes[fd] = pending
        if pending:
            return
        del writes[fd]
        sel.unregister(fd)
        if fd == child.stdin:
            child.close_stdin()
        else:
            with contextlib.suppress(OSError):
                os.close(fd)
            child.grader_in = None

    def _on_verdicts(self, reader: protocol.FrameReader, data: bytes) -> None:
        """The grader's verdicts: the first per test counts; anything malformed, none."""
        try:
            messages = reader.feed(data)
        except protocol.ProtocolError:
            return
        for message in messages:
            index = message.get("index")
            if message.get("type") != "verdict" or type(index) is not int:
                continue
            if isinstance(message.get("passed"), bool) and index not in self.verdicts:
                self.verdicts[index] = message

    def _budget_messages(self) -> None:
        """What the child may send in all: bytes and messages, a share per test."""
        self.message_budget = MAX_MESSAGE_BYTES + len(self.tests) * PER_TEST_MESSAGE_BYTES
        self.messages_left = MAX_MESSAGES + len(self.tests) * PER_TEST_MESSAGES

    def _flood(self, proc: _Killable) -> None:
        """More than the child may send: said once, and the child ended."""
        if self.killed_for is None:
            self.messages.append({"type": "protocol-error", "detail": "message flood"})
        self._kill(proc, "protocol")

    def _on_messages(self, proc: _Killable, reader: protocol.FrameReader, data: bytes) -> None:
        self.message_budget -= len(data)
        if self.message_budget < 0 or self.messages_left < 0:
            self._flood(proc)
            return
        try:
            new = reader.feed(data)
        except protocol.ProtocolError as exc:
            self.messages.append({"type": "protocol-error", "detail": str(exc)})
            self._kill(proc, "protocol")
            return
        self.messages_left -= len(new)
        if self.messages_left < 0:
            self._flood(proc)
            return
        self.messages.extend(new)
        for message in new:
            if message["type"] == protocol.MSG_OUTPUT_LIMIT:
                self._kill(proc, "output-limit")

    def _on_output(self, proc: _Killable, kind: str, data: bytes) -> None:
        self.stdout_bytes += len(data)
        if kind == "stderr":
            self.stderr_tail = (self.stderr_tail + data)[-STDERR_TAIL:]
        if self.stdout_bytes > self.limits.output_bytes:
            self._kill(proc, "output-limit")

    def _kill(self, proc: _Killable, reason: str) -> None:
        if self.killed_for is None:
            self.killed_for = reason
        proc.kill()

    # ----------------------------------------------------------------------------
    def _classify(self, wait_status: int, cpu: float) -> CandidateResult:
        """The result: the child's messages checked, the end classified, tests graded."""
        returncode = os.waitstatus_to_exitcode(wait_status)
        if self.via_bwrap_exec and returncode > 128:
            returncode = -(returncode - 128)  # bubblewrap reports a child's signal as 128 + n
        result = CandidateResult(self.index, "error", "", returncode=returncode)
        try:
            seen = _Reported.parse(self.messages, len(self.tests), self.module is not None)
        except protocol.ProtocolError as exc:
            seen = _Reported(violation=str(exc))
        if seen.hello is not None:
            result.layers = [*seen.hello[0], *self.parent_layers(), "deadline"]
            result.python = seen.hello[1]
        stderr = self.stderr_tail.decode("utf-8", "replace").strip()
        status, detail = self._end(seen, returncode, cpu, stderr)
        if seen.forbidden and status != "syntax-error":
            detail = f"refused: {', '.join(dict.fromkeys(seen.forbidden))}; run ended: {status}" + (
                f" ({detail})" if detail else ""
            )
            status = f"forbidden: {seen.forbidden[0]}"
        result.status, result.detail = status, detail
        outcomes = seen.outcomes
        if seen.running is not None:
            outcomes[seen.running] = self._interrupted(seen.running, status)
        result.tests = [self._graded(i, outcomes[i], seen.values.get(i)) for i in sorted(outcomes)]
        if not self.portable:  # only the portable host meters fuel; a child cannot
            for outcome in result.tests:
                outcome.fuel = None
        if not result.layers:
            result.layers = ["deadline"]
        result.module = self._module_load(seen, status, detail)
        return result

    def _module_load(self, seen: _Reported, status: str, detail: str) -> ModuleLoad | None:
        """How the module loaded: as the child said, or, when the run ended after ``hello``
        without saying (the module's top level crashed, hung or printed too much), not."""
        if self.module is None or seen.syntax is not None or seen.hello is None:
            return None
        if seen.module is not None:
            loaded, why, alone = seen.module
            return ModuleLoad(loaded, why, alone, list(seen.module_refused))
        if seen.error is not None or status == "cancelled":
            return None
        why = f"the run ended while its top level ran: {status}" + (f" ({detail})" if detail
                                                                    else "")
        return ModuleLoad(False, why[:2000], refused=list(seen.module_refused))

    def _end(self, seen: _Reported, returncode: int, cpu: float, stderr: str) -> tuple[str, str]:
        """How the run ended: (status, detail), first matching rule wins."""
        signum = -returncode if returncode < 0 else None
        if seen.violation is not None:
            return "protocol-violation", seen.violation
        if self.killed_for is not None and self.killed_for not in ("error", "protocol"):
            return self.killed_for, {
                "timeout": f"wall-clock limit of {self.limits.wall_seconds:g}s",
                "cancelled": "cancelled",
                "output-limit": f"printed more than {self.limits.output_bytes} bytes",
            }[self.killed_for]
        if seen.syntax is not None:
            return "syntax-error", seen.syntax
        if seen.error is not None:
            return "error", seen.error
        if seen.done is not None:
            return self._finished(seen)
        if self.portable and returncode in endings.STATUSES:
            status, detail = endings.STATUSES[returncode]
            return status, (detail.format(cpu=self.limits.cpu_seconds) + (
                f": {stderr[-500:]}" if stderr else ""))
        if seen.exited:
            return "exit", f"SystemExit({seen.exit_code!r}) during a test"
        if signum is not None:  # POSIX only: a child ended by a signal
            if signum == getattr(signal, "SIGSYS", None):
                return "forbidden: system call", "killed by the seccomp filter (SIGSYS)"
            if signum == getattr(signal, "SIGXCPU", None) or (
                signum == getattr(signal, "SIGKILL", None) and cpu >= self.limits.cpu_seconds
            ):
                return "timeout", f"CPU limit of {self.limits.cpu_seconds:g}s"
            return f"crashed: {_signal_name(signum)}", stderr[-500:]
        if "MemoryError" in stderr:
            return "memory", "MemoryError outside a test"
        if seen.hello is None and returncode > 0:
            return "exit", _not_started(returncode, stderr)
        return "exit", f"the child stopped reporting; exit code {returncode}"

    def _finished(self, seen: _Reported) -> tuple[str, str]:
        """Every test ran: ``ok``, or ``memory`` / ``timeout`` if one of them hit a limit."""
        assert seen.done is not None
        memory = bool(seen.done.get("memory_error")) or any(
            o.exc_type == "MemoryError" for o in seen.outcomes.values()
        )
        timeouts = int(seen.done.get("timeouts") or 0)
        if memory:
            return "memory", "MemoryError raised"
        if timeouts:
            return "timeout", (
                f"per-test limit of {self.limits.test_seconds:g}s"
                f" on {timeouts} of {len(self.tests)} tests"
            )
        return "ok", ""

    def parent_layers(self) -> list[str]:
        """Layers this side put in place (the child cannot claim or remove them)."""
        return (["bwrap"] if self.strict else []) + (["cgroup"] if self.in_cgroup else [])

    def _graded(self, index: int, outcome: TestOutcome, value: Any) -> TestOutcome:
        """``passed`` decided here from the expected value the child never saw."""
        test = self.tests[index]
        raised = outcome.exc_type is not None
        if test.kind == "check":
            verdict = self.verdicts.get(index)
            outcome.passed = bool(verdict and verdict["passed"]) and not raised
            if verdict is not None and not verdict["passed"] and not raised:
                outcome.exc_type = _text_field(verdict, "exc_type")
                outcome.exc_message = _text_field(verdict, "exc_message")
            return outcome
        printed = outcome.output if test.kind in ("stdio", "example") else None
        exception = (outcome.exc_type or "", outcome.exc_message or "") if raised else None
        outcome.passed = outcome_grading.grade(test, value, printed, raised, exception)
        return outcome

    def _interrupted(self, index: int, status: str) -> TestOutcome:
        """An outcome for the test that was running when the child ended."""
        test = self.tests[index]
        exc_type = {
            "timeout": "Timeout",
            "memory": "MemoryError",
            "exit": "SystemExit",
            "output-limit": "OutputLimitExceeded",
            "cancelled": "Cancelled",
        }.get(status, "Crash" if status.startswith("crashed") else "SandboxError")
        return TestOutcome(
            name=test.name or f"test{index}",
            passed=False if test.has_expected or test.kind == "check" else None,
            output=None,
            exc_type=exc_type,
            exc_message=status,
            opcodes=None,
            opcode_total=0,
            seconds=0.0,
        )


_swept = threading.Lock()
_sweep_done = False


def _sweep_once() -> None:
    """:func:`cgroups.sweep` on the first run of this process."""
    global _sweep_done
    if _sweep_done:
        return
    with _swept:
        if not _sweep_done:
            _sweep_done = True
            cgroups.sweep()


def _log_progress(line: str) -> None:
    """The portable sandbox's one-time compile, said where the user sees it (a warning
    reaches standard error without ``-v``)."""
    log.warning("portable sandbox: %s", line)


def _kill_group(pid: int) -> None:
    """SIGKILL the child's whole process group (its session leader's pid), and the child."""
    for kill in (os.killpg, os.kill):
        try:
            kill(pid, signal.SIGKILL)
        except OSError as exc:
            if exc.errno not in (errno.ESRCH, errno.EPERM):
                raise


def _remove_tree(path: str) -> None:
    """Remove a sandbox directory even if the candidate changed permissions inside."""

    def fix(func: Callable[..., Any], target: str, _exc: BaseException) -> None:
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(target) or target, 0o700)
            os.chmod(target, 0o700)
        with contextlib.suppress(OSError):
            func(target)

    if sys.version_info >= (3, 12):
        shutil.rmtree(path, onexc=fix)
    else:  # pragma: no cover - 3.11
        shutil.rmtree(path, onerror=lambda f, p, e: fix(f, p, e[1]))


# -------------------------------------------------------------------------------- API
def run_candidate(
    code: str,
    tests: Sequence[TestCase],
    entry_point: str | None,
    limits: Limits = Limits(),  # noqa: B008 - frozen dataclass
    trace: bool = True,
    index: int = 0,
    *,
    interpreter: str | None = None,
    trace_mode: str = "auto",
    cancel: threading.Event | None = None,
    start_method: str = "fork",
    series: Sequence[str | None] | None = None,
    sandbox: str = "strict",
    audit_hook: bool = True,
    module: ModuleContext | None = None,
) -> CandidateResult:
    """Run one candidate's tests in a fresh sandbox child.

    ``interpreter`` defaults to ``sys.executable``; ``trace_mode`` is ``auto`` or one of
    ``tracer.MODES``: ``monitoring`` (3.12+), ``counters`` (3.11), ``settrace`` or
    ``settrace-opcodes``.
    ``start_method``: ``fork`` (forked by the interpreter's fork server, falling back to
    ``exec`` when it cannot run) or ``exec`` (a fresh interpreter per candidate).
    ``series`` names a series per test (or None): once a test overruns
    ``limits.test_seconds``, the later tests of its series are not run and get outcome
    ``Skipped``. ``sandbox``: ``strict`` (kernel isolation) or
    ``weak`` (see ``SANDBOX_LEVELS``). ``audit_hook=False`` leaves out the layer that
    explains refusals (strict only): the tests use it to show that the kernel layers
    hold by themselves against native code. ``module``: the function's module, which the
    candidate then runs in (``in_module.py``); the result's ``module`` says how it loaded.
    """
    if series is not None and len(series) != len(tests):
        raise ValueError("series needs one entry per test")
    if trace_mode != "auto" and trace_mode not in TRACE_MODES:
        raise ValueError(f"unknown trace mode {trace_mode!r}")
    if start_method not in ("fork", "exec"):
        raise ValueError(f"unknown start method {start_method!r}")
    if sandbox not in SANDBOX_LEVELS:
        raise ValueError(f"unknown sandbox level {sandbox!r}")
    if cancel is not None and cancel.is_set():
        return CandidateResult(index, "cancelled", "cancelled before start")
    child = _ChildRun(
        code,
        tests,
        entry_point,
        limits,
        trace,
        index,
        interpreter,
        trace_mode,
        cancel,
        start_method=start_method,
        series=series,
        strict=sandbox == "strict",
        audit_hook=audit_hook or sandbox != "strict",
        module=module,
        portable=sandbox == "portable",
    )
    return child.run()


def run_candidates(
    codes: Sequence[str],
    tests: Sequence[TestCase],
    entry_point: str | None,
    limits: Limits = Limits(),  # noqa: B008 - frozen dataclass
    trace: bool = True,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
    cancel: threading.Event | None = None,
    *,
    interpreter: str | None = None,
    trace_mode: str = "auto",
    start_method: str = "fork",
    series: Sequence[str | None] | None = None,
    sandbox: str = "strict",
    audit_hook: bool = True,
    module: ModuleContext | None = None,
) -> list[CandidateResult]:
    """Run every candidate (up to ``jobs`` children at once), results in input order.

    ``progress(done, total)`` is called after each candidate (from the thread that ran
    it when ``jobs`` > 1). Setting ``cancel`` kills the running children; candidates
    not finished get status ``cancelled``. ``series``, ``sandbox``, ``audit_hook``,
    ``module``: as for :func:`run_candidate`.
    """
    def one(i: int) -> CandidateResult:
        return run_candidate(
            codes[i],
            tests,
            entry_point,
            limits,
            trace,
            i,
            interpreter=interpreter,
            trace_mode=trace_mode,
            cancel=cancel,
            start_method=start_method,
            series=series,
            sandbox=sandbox,
            audit_hook=audit_hook,
            module=module,
        )

    return run_pool(range(len(codes)), one, jobs, progress, "sandbox")
