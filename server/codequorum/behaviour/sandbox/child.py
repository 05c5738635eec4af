"""The sandbox child: runs one candidate's tests and reports over a pipe.

Stdlib only; started as ``python -s -S -B child.py <message-fd>`` by the parent
(``startup.py``), in a private temporary working directory, a new session and a scrubbed
environment that fixes the string-hash seed.

Order matters and is fixed: read the ``run`` message from stdin (then stdin becomes
/dev/null), isolate the network namespace where the kernel allows it, set resource
limits, install the audit hook, and only then compile and run the candidate.
"""

from __future__ import annotations

import builtins
import io
import os
import posix
import sys
import time
import types

# Startup time matters (one child per candidate; the portable guest loads this file at
# every start): typing, importlib.util, hashlib, pathlib, inspect, ast and contextlib are
# imported only when needed.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_HERE = os.path.dirname(os.path.abspath(__file__))
# ``python child.py`` puts this folder first on ``sys.path`` (``-I`` would not, but it would
# also ignore the hash seed, see startup.py): candidates import the standard library only.
sys.path[:] = [p for p in sys.path if os.path.realpath(p or os.curdir) != os.path.realpath(_HERE)]
CANDIDATE_FILENAME = "<candidate>"
MAX_OUTPUT_CHARS = 65536
MAX_MESSAGE_CHARS = 2000
#: The interpreter's recursion limit before any version ran (restored after each call).
RECURSION_LIMIT = sys.getrecursionlimit()


def _load(name: str, filename: str, private_builtins: bool = False) -> types.ModuleType:
    """Import a sibling module by path (the package itself is not importable here).

    ``private_builtins``: the module gets its own copy of the builtins, which candidate
    code cannot reach to rebind.
    """
    path = os.path.join(_HERE, filename)
    module = types.ModuleType(name)
    module.__file__ = path
    if private_builtins:
        module.__dict__["__builtins__"] = dict(builtins.__dict__)
    with open(path, encoding="utf-8") as handle:
        source = handle.read()
    exec(compile(source, path, "exec", dont_inherit=True), module.__dict__)
    return module


protocol: Any = _load("_codequorum_protocol", "protocol.py")
tracer_mod: Any = _load("_codequorum_tracer", "tracer.py")
blocks_mod: Any = _load("_codequorum_block_counts", "block_counts.py")
confine: Any = _load("_codequorum_confine", "confine.py")
audit: Any = _load("_codequorum_audit_hook", "audit_hook.py", private_builtins=True)
grader: Any = _load("_codequorum_grader", "check_grader.py")
in_module: Any = _load("_codequorum_in_module", "in_module.py")
doctest_run: Any = _load("_codequorum_doctest_run", "doctest_run.py")
timing: Any = _load("_codequorum_timing", "timing.py", private_builtins=True)
fixed_world: Any = _load("_codequorum_fixed_world", "fixed_world.py")

#: Where a strict child works and what it hides (see bwrap.py, which mounts them).
WORKDIR = "/work"
RUN_MOUNT = "/run/codequorum"
#: Layers a strict run must have before any candidate code runs.
STRICT_LAYERS = (
    "userns", "pidns", "mountns", "netns", "ipcns", "utsns", "tmpfs",
    "no-capabilities", "no-new-privs", "seccomp", "rlimits",
)  # fmt: skip
#: The layer a strict run in a module needs as well: the workspace view is read-only.
VIEW_LAYER = "ro-view"


class OutputLimitExceeded(BaseException):
    """The candidate printed more than its output budget."""


class Timeout(BaseException):
    """Raised inside a test that ran past its budget (``Limits.test_seconds``)."""


SKIPPED = "Skipped"
#: How often a version's first metered call is made (the host keeps the last): by then the
#: version's code is specialised, as it is for its later calls.
WARM_CALLS = 8
TIMER_REPEAT_SECONDS = 0.1
#: The shortest a test's budget gets after tests before it overran (``Harness._shorten``).
SHORTEST_TEST_SECONDS = 0.25


# --------------------------------------------------------------------------- messages
class Channel:
    """Length-prefixed JSON messages to the parent on a dedicated descriptor."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._write = posix.write
        self._encode = protocol.encode_frame

    def send(self, type_: str, **fields: Any) -> None:
        """Send one message; a vanished parent is ignored."""
        data = self._encode({"type": type_, **fields})
        view = memoryview(data)
        try:
            while view:
                n = self._write(self._fd, view)
                view = view[n:]
        except OSError:
            pass


def _read_run_message() -> dict[str, Any]:
    """The ``run`` message from stdin; afterwards fd 0 reads /dev/null."""
    raw = sys.stdin.buffer.read()
    null = posix.open(os.devnull, os.O_RDONLY)
    posix.dup2(null, 0)
    posix.close(null)
    reader = protocol.FrameReader()
    messages = reader.feed(raw)
    if len(messages) != 1 or messages[0]["type"] != protocol.MSG_RUN:
        raise protocol.ProtocolError("expected exactly one run message on stdin")
    result: dict[str, Any] = messages[0]
    return result


# --------------------------------------------------------------------------- isolation
CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 2, 4, 8, 16384, 1 << 18
PR_SET_PDEATHSIG = 1
signal_kill = 9


def _isolate(sandbox: str, tmpfs_bytes: int, parent_pid: int) -> tuple[list[str], list[str]]:
    """Private network and mount namespaces where the kernel allows them.

    In a new mount namespace the sandbox directory becomes a size-capped tmpfs (so a
    candidate cannot fill the disk) that vanishes with the child. Uses libc through
    ``ctypes`` (``os`` has no ``mount``), before the audit hook; ``ctypes`` is dropped
    from ``sys.modules`` before candidate code runs. Returns (layers, notes on what was
    not granted).
    """
    layers: list[str] = []
    notes: list[str] = []
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        # Die with the parent: a parent killed outright leaves no running candidate.
        if libc.prctl(PR_SET_PDEATHSIG, signal_kill, 0, 0, 0) == 0:
            if parent_pid and posix.getppid() != parent_pid:
                posix._exit(71)  # the parent is already gone
            layers.append("parent-death")
        else:
            notes.append(f"prctl(PR_SET_PDEATHSIG): {os.strerror(ctypes.get_errno())}")
        granted = 0
        for flags in (
            CLONE_NEWNET | CLONE_NEWNS,
            CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWNS,
            CLONE_NEWNET,
            CLONE_NEWNS,
        ):
            if libc.unshare(ctypes.c_int(flags)) == 0:
                granted = flags
                break
            notes.append(f"unshare({flags:#x}): {os.strerror(ctypes.get_errno())}")
        if granted & CLONE_NEWNET:
            layers.append("netns")
        if granted & CLONE_NEWNS:
            path = sandbox.encode()
            options = f"size={tmpfs_bytes},mode=0700".encode()
            flags = MS_NOSUID | MS_NODEV | MS_NOEXEC
            if libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) != 0:
                notes.append(f"private mounts: {os.strerror(ctypes.get_errno())}")
            elif libc.mount(b"tmpfs", path, b"tmpfs", flags, options) != 0:
                notes.append(f"tmpfs: {os.strerror(ctypes.get_errno())}")
            else:
                os.chdir(sandbox)  # the old cwd is the directory under the mount
                layers.append("tmpfs")
    except Exception as exc:
        notes.append(f"{type(exc).__name__}: {exc}")
    return layers, notes  # ctypes is forgotten before any candidate code (run_child)


def _forget_ctypes() -> None:
    """Drop ctypes from ``sys.modules``: a candidate's own import must raise its event."""
    for name in [m for m in sys.modules if m == "ctypes" or m.startswith(("ctypes.", "_ctypes"))]:
        del sys.modules[name]


THREAD_LIMIT = 64


def _set_limits(limits: dict[str, Any]) -> None:
    """RLIMIT_* from the run message (soft = hard, so nothing can raise them)."""
    import resource

    def setl(which: int, value: int) -> None:
        hard = resource.getrlimit(which)[1]
        if hard != resource.RLIM_INFINITY and value > hard:
            value = hard
        resource.setrlimit(which, (value, value))

    cpu = max(1, int(limits["cpu_seconds"] + 0.999))
    # Soft limit -> SIGXCPU; the hard limit one second later -> SIGKILL if it is ignored.
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    setl(resource.RLIMIT_AS, int(limits["memory_mb"]) * 1024 * 1024)
    setl(resource.RLIMIT_FSIZE, int(limits["file_size_bytes"]))
    setl(resource.RLIMIT_NOFILE, int(limits["max_open_files"]))
    # New processes are refused by seccomp (strict); this bounds threads. It holds
    # because candidates never run as root.
    setl(resource.RLIMIT_NPROC, THREAD_LIMIT)
    setl(resource.RLIMIT_CORE, 0)




# --------------------------------------------------------------------------- output capture
class Budget:
    """Bytes the candidate may still print, shared by every stream and test."""

    def __init__(self, total: int, channel: Channel) -> None:
        self.remaining = total
        self.exceeded = False
        self._channel = channel

    def spend(self, n: int) -> None:
        """Take ``n`` bytes or raise :class:`OutputLimitExceeded`."""
        if self.exceeded or n > self.remaining:
            if not self.exceeded:
                self.exceeded = True
                self._channel.send(protocol.MSG_OUTPUT_LIMIT)
            raise OutputLimitExceeded("output limit exceeded")
        self.remaining -= n


class _CappedBinary(io.RawIOBase):
    """``sys.stdout.buffer``: bytes go into the owning text stream."""

    def __init__(self, owner: CappedText) -> None:
        self._owner = owner

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:  # type: ignore[override]
        raw = bytes(data)
        self._owner.write(raw.decode("utf-8", "replace"))
        return len(raw)


class CappedText(io.TextIOBase):
    """A text stream that keeps what is written (if asked) within a byte budget."""

    def __init__(self, budget: Budget, keep: bool) -> None:
        self._budget = budget
        self._keep = keep
        self._parts: list[str] = []
        self.buffer = _CappedBinary(self)

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def write(self, s: str) -> int:
        if not isinstance(s, str):
            raise TypeError(f"write() argument must be str, not {type(s).__name__}")
        self._budget.spend(len(s.encode("utf-8", "surrogatepass")))
        if self._keep:
            self._parts.append(s)
        return len(s)

    def getvalue(self) -> str:
        """Everything kept so far."""
        return "".join(self._parts)


# --------------------------------------------------------------------------- values
#: Exact types whose ``repr`` is the same text in every process (an int past the digit
#: limit raises ``ValueError``, and is then shown by :func:`canonical_repr`'s own rule).
_LEAVES = frozenset({int, float, complex, str, bytes, bool, type(None)})
_CONTAINERS = frozenset({list, tuple, dict, set, frozenset})


def _leaves_repr(value: Any, t: type) -> str | None:
    """The canonical text of a container holding leaves only, made by the interpreter's
    own ``repr`` (and, for a set, ``sorted``) at C speed; None when it holds anything else.
    A version's large result (a million numbers) is then shown in a fraction of the time
    the element-by-element rule takes, which matters most in the portable guest."""
    try:
        if t is dict:
            if not (set(map(type, value)) <= _LEAVES
                    and set(map(type, value.values())) <= _LEAVES):
                return None
            return repr(value)
        if not set(map(type, value)) <= _LEAVES:
            return None
        if t is set or t is frozenset:
            body = "{" + ", ".join(sorted(map(repr, value))) + "}"
            return body if t is set else f"frozenset({body})"
        return repr(value)
    except ValueError:
        return None


def canonical_repr(value: Any, depth: int = 0, objects: bool = False) -> str:
    """``repr`` with sets sorted, so equal results print alike in every process.

    ``objects`` (a version run in its module, whose results are often the module's own
    objects): an object with the default ``repr`` shows its class and attributes instead
    of its address, so that equal objects print alike in every process.
    """
    if depth > 50:
        return repr(value)
    t = type(value)
    if t in _CONTAINERS and len(value) > 1:
        fast = _leaves_repr(value, t)
        if fast is not None:
            return fast
    if t is doctest_run.Returned:  # a returned function, as what its probe calls gave
        return str(value.text(lambda v: canonical_repr(v, depth + 1, objects)))
    if objects and t.__repr__ is object.__repr__:  # type: ignore[comparison-overlap]
        state = getattr(value, "__dict__", None)
        name = f"{t.__module__}.{t.__qualname__}"
        if type(state) is dict:
            return f"<{name} {canonical_repr(state, depth + 1, objects)}>"
        return f"<{name} object>"
    if t is set or t is frozenset:
        items = sorted(canonical_repr(v, depth + 1, objects) for v in value)
        if not items:
            return "set()" if t is set else "frozenset()"
        body = "{" + ", ".join(items) + "}"
        return body if t is set else f"frozenset({body})"
    if t is list:
        return "[" + ", ".join(canonical_repr(v, depth + 1, objects) for v in value) + "]"
    if t is tuple:
        inner = ", ".join(canonical_repr(v, depth + 1, objects) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if t is dict:
        pairs = (
            f"{canonical_repr(k, depth + 1, objects)}: {canonical_repr(v, depth + 1, objects)}"
            for k, v in value.items()
        )
        return "{" + ", ".join(pairs) + "}"
    if t is int:
        try:
            return repr(value)
        except ValueError:
            old = sys.get_int_max_str_digits()
            sys.set_int_max_str_digits(0)
            try:
                return repr(value)
            finally:
                sys.set_int_max_str_digits(old)
    return repr(value)


def made_function(source: str) -> Any:
    """A function an input passes (``lambda x: x * 2 + 1``), made from its text here, in
    the sandbox, with the builtins only; its code is the input's, never counted as the
    version's (``<input>``). It writes down its calls while a returned function is
    probed (:func:`doctest_run.recording`)."""
    made = eval(compile(source, "<input>", "eval", dont_inherit=True), {"__builtins__": builtins})
    return doctest_run.recording(made)


def clip(text: str, limit: int = MAX_OUTPUT_CHARS) -> str:
    """``text`` cut to ``limit`` characters, with a digest of the whole when cut."""
    if len(text) <= limit:
        return text
    import hashlib

    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{text[:limit]}...<{len(text)} chars, sha256 {digest}>"


def safe_repr(value: Any, objects: bool = False) -> str:
    """Canonical repr, or a note saying why there is none (whatever ``__repr__`` raises,
    short of the output limit: the remaining tests must still run)."""
    try:
        return clip(canonical_repr(value, 0, objects))
    except RecursionError:
        return "<repr failed: RecursionError>"
    except OutputLimitExceeded:
        raise
    except BaseException as exc:
        return f"<repr failed: {type(exc).__name__}>"


def plain_value(value: Any, shown: str) -> Any:
    """The return value as bounded plain data for the parent to grade (never compared
    here); ``shown`` (its repr, already taken) stands for anything that is not plain."""
    try:
        return protocol.encode_plain(value, fallback=shown)
    except RecursionError:
        return {"$": "repr", "v": "<repr failed: RecursionError>"}


def reference_output(result: Any, stdout: str) -> str:
    """What a ``solve`` result prints as (the reference pipeline's rule)."""
    if result is None:
        return stdout
    if isinstance(result, (list, tuple)):
        return " ".join(map(str, result))
    return str(result)


# --------------------------------------------------------------------------- running
class Harness:
    """Runs the candidate's tests one by one and reports each."""

    def __init__(self, run: dict[str, Any], channel: Channel) -> None:
        self.run = run
        self.channel = channel
        self.limits = run["limits"]
        self.entry_point: str | None = run.get("entry_point")
        self.budget = Budget(int(self.limits["output_bytes"]), channel)
        self.tracer: Any = None
        if run.get("trace", True):
            mode = run.get("trace_mode") or None
            self.tracer = tracer_mod.OpcodeTracer(None if mode == "auto" else mode, blocks_mod)
        self.code: types.CodeType | None = None
        self.module: dict[str, Any] | None = None
        # The version's module (run["module"]): the view's root, the module once loaded,
        # and the version put in its place (see in_module.py).
        self.context: dict[str, Any] | None = run.get("module") or None
        self.view_root = in_module.VIEW
        self.context_module: types.ModuleType | None = None
        self.placed: Any = None
        self.solve_defined: bool | None = None
        self.module_error: BaseException | None = None
        self.grader_link: Any = None
        self.index = 0
        self.memory_error = False
        self.trace_broken = False
        self.timeouts = 0
        self.test_seconds: float | None = None
        self.armed = False
        self.fired = False
        # a series is timed here, except in the portable guest (WASI), whose host meters
        # each test's instructions (fuel): a cost that needs no repetition
        self.timed = sys.platform != "wasi"
        #: The portable guest's mark writer (``guest.py``): a series' call is then metered
        #: by the host between two marks (``metered_call``).
        self.meter: Any = None
        self.meter_warm = False
        self._setitimer: Any = None

    def install_timer(self) -> None:
        """SIGALRM handler for the per-test budget (before any candidate code runs).

        A candidate may replace the handler, block the signal or catch :class:`Timeout`;
        the parent's whole-run deadline still ends such a run.
        """
        seconds = self.limits.get("test_seconds")
        if not seconds:
            return
        import signal

        self.test_seconds = float(seconds)
        self._setitimer = signal.setitimer
        signal.signal(signal.SIGALRM, self._on_alarm)

    def _on_alarm(self, _signum: int, _frame: Any) -> None:
        if self.armed:
            self.fired = True
            raise Timeout(f"test ran longer than {self.test_seconds:g}s")

    def _shorten(self) -> None:
        """After a test overran, the later ones get half its budget (down to
        :data:`SHORTEST_TEST_SECONDS`): four that hang take under twice the first budget
        together (the run's overrun allowance, by default), and the cheap inputs after
        them still run (a version slow on a huge number is still heard on 13)."""
        if self.test_seconds is not None:
            seconds = self.test_seconds
            self.test_seconds = max(min(seconds, SHORTEST_TEST_SECONDS), seconds / 2)

    def _arm(self) -> None:
        """Start the test's clock; it fires again every 0.1 s until disarmed."""
        self.fired = False
        if self.test_seconds is not None:
            self.armed = True
            self._setitimer(0, self.test_seconds, TIMER_REPEAT_SECONDS)  # ITIMER_REAL

    def _disarm(self) -> None:
        """Stop the clock; a Timeout raised while stopping it is already in ``fired``."""
        if self.test_seconds is None:
            return
        while True:
            try:
                self.armed = False
                self._setitimer(0, 0)
                return
            except Timeout:
                continue

    def compile(self) -> bool:
        """Compile the candidate; report a syntax error and return False if it has one.

        In a module, the version as placed there is counted too (registered when it is
        placed); the text compiled here runs only if the module does not load.
        """
        try:
            self.code = compile(self.run["code"], CANDIDATE_FILENAME, "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as exc:
            self.channel.send(protocol.MSG_SYNTAX_ERROR, detail=f"{type(exc).__name__}: {exc}")
            return False
        if self.tracer is not None:
            self.code = self.tracer.register(self.code)
        return True

    def load_context(self) -> None:
        """Import the version's module (no version code has run yet) and say how it went
        in one ``module`` message; if it does not load, the version runs on its own.

        Its top level has the per-test budget; what it prints is discarded (and counts
        towards the output limit, which ends the run).
        """
        if self.context is None:
            return
        self._streams("", False)
        error: BaseException | None = None
        try:
            try:
                self._arm()
                self.context_module = in_module.import_module(self.context, self.view_root)
            finally:
                self._disarm()
        except OutputLimitExceeded:
            raise
        except BaseException as exc:
            error = exc
        sys.stdin, sys.stdout, sys.stderr = sys.__stdin__, sys.__stdout__, sys.__stderr__
        if error is None:
            self.channel.send(protocol.MSG_MODULE, loaded=True, detail="")
            return
        self.context_module = None
        if isinstance(error, Timeout) or self.fired:
            detail = f"its top level ran longer than {self.test_seconds:g}s"
        else:
            detail = f"its top level raised {type(error).__name__}: {_safe_str(error)}"
        self.channel.send(protocol.MSG_MODULE, loaded=False, detail=clip(detail, MAX_MESSAGE_CHARS))

    def _streams(self, stdin: str, keep: bool) -> tuple[CappedText, CappedText]:
        out = CappedText(self.budget, keep)
        err = CappedText(self.budget, False)
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode("utf-8")), encoding="utf-8")
        sys.stdout = out
        sys.stderr = err
        return out, err

    def _load_module(self, fresh: bool = False) -> None:
        """Execute the candidate module: once, or afresh (``solve`` tests, like the reference).

        A fresh load runs with the test's streams already in place, so what the module
        reads or prints at import belongs to the test.
        """
        if fresh:
            self.module = None
            self.module_error = None
        elif self.module is not None or self.module_error is not None:
            return
        else:
            self._streams("", False)
        assert self.code is not None
        try:
            if self.context_module is not None and not fresh:
                self._place()
            else:
                namespace = {"__name__": "__candidate__", "__builtins__": builtins}
                exec(self.code, namespace)
                self.module = namespace
        except (SystemExit, OutputLimitExceeded):
            raise
        except BaseException as exc:
            if isinstance(exc, MemoryError):
                self.memory_error = True
            self.module_error = exc

    def _place(self) -> None:
        """Put the version in its module in place of the function (runs its top level)."""
        assert self.context is not None and self.context_module is not None
        context, module = self.context, self.context_module
        # the tracer registers each code object before it runs (and may give a copy to run)
        _codes, self.placed = in_module.place(
            module, self.run["code"], _module_source(context),
            str(context.get("qualified_name") or self.entry_point or ""), CANDIDATE_FILENAME,
            self.tracer.register if self.tracer is not None else None)
        self.module = module.__dict__

    def _defines_solve(self) -> bool:
        """Whether the candidate defines ``solve`` at top level (parsed, not executed)."""
        if self.solve_defined is None:
            import ast

            tree = ast.parse(self.run["code"])
            self.solve_defined = any(
                isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "solve"
                for node in tree.body
            )
        return self.solve_defined

    def run_test(self, index: int, test: dict[str, Any]) -> dict[str, Any]:
        """Run one test; return its outcome (raises SystemExit / OutputLimitExceeded)."""
        self.index = index
        kind = test["kind"]
        has_expected = bool(test.get("has_expected"))
        outcome: dict[str, Any] = {
            "name": test.get("name") or f"test{index}",
            "passed": None,
            "output": None,
            "exc_type": None,
            "exc_message": None,
            "opcodes": None,
            "opcode_total": 0,
            "seconds": 0.0,
        }
        program_mode = kind == "stdio" and not self._defines_solve()
        stdin = test.get("stdin") or ""
        started = time.perf_counter()
        result: Any = None
        raised: BaseException | None = None
        out: CappedText | None = None
        try:
            try:
                self._arm()  # the first test also pays for loading the module
                if kind != "stdio":
                    self._load_module()
                out = self._streams(stdin, True)[0]
                fixed_world.reset(index)
                started = time.perf_counter()
                if kind == "stdio" and not program_mode:
                    self._load_module(fresh=True)
                if program_mode:
                    assert self.code is not None
                    namespace = {"__name__": "__main__", "__builtins__": builtins}
                    self._trace(True)
                    try:
                        exec(self.code, namespace)
                    except SystemExit as exc:
                        if exc.code not in (None, 0):
                            raised = exc
                    finally:
                        self._trace(False)
                else:
                    if self.module_error is not None:
                        raise self.module_error
                    assert self.module is not None
                    call, args, kwargs = self._target(kind, test)
                    self._trace(True)
                    try:
                        result = call(*args, **kwargs)
                    finally:
                        self._trace(False)
            finally:
                self._disarm()
        except (SystemExit, OutputLimitExceeded) as exc:
            self._disarm()
            outcome["seconds"] = time.perf_counter() - started
            self._finish_counts(outcome)
            outcome["exc_type"] = type(exc).__name__
            outcome["exc_message"] = clip(str(exc), MAX_MESSAGE_CHARS)
            if has_expected:
                outcome["passed"] = False
            exc.outcome = outcome  # type: ignore[union-attr]
            raise
        except BaseException as exc:
            self._disarm()
            raised = exc
        outcome["seconds"] = time.perf_counter() - started
        self._finish_counts(outcome)
        # the harness shows the result under the interpreter's own limit: a version that
        # raised it and returned a value nested past the C stack would crash the showing
        sys.setrecursionlimit(RECURSION_LIMIT)
        sys.stdin, sys.stdout, sys.stderr = sys.__stdin__, sys.__stdout__, sys.__stderr__
        if self.fired or isinstance(raised, Timeout):
            # also when the candidate caught the Timeout and went on: it overran
            self.timeouts += 1
            if not isinstance(raised, Timeout):
                raised = Timeout(f"test ran longer than {self.test_seconds:g}s")
            self._shorten()
        if raised is not None:
            if isinstance(raised, MemoryError):
                self.memory_error = True
            outcome["exc_type"] = type(raised).__name__
            outcome["exc_message"] = clip(_safe_str(raised), MAX_MESSAGE_CHARS)
            if has_expected or kind == "check":
                outcome["passed"] = False
            if kind == "stdio" and out is not None:
                outcome["output"] = clip(out.getvalue())
            return outcome
        if kind == "check":
            outcome["passed"] = None  # the grader's verdict, sent to the parent directly
        elif kind == "stdio":
            assert out is not None
            text = out.getvalue() if program_mode else reference_output(result, out.getvalue())
            outcome["output"] = clip(text)
        elif kind == "example":  # what the example shows is its value
            assert out is not None
            outcome["output"] = clip(out.getvalue())
            outcome["value"] = plain_value(outcome["output"], outcome["output"])
        else:
            # the module's objects, or a whole class's run alone: shown by their state
            own = self.context is not None or "." in (self.entry_point or "")
            outcome["output"] = safe_repr(result, objects=own)
            outcome["value"] = plain_value(result, outcome["output"])
            if test.get("series") is not None and not self.timed and self.meter is not None:
                # the first metered calls of a version pay for its code's first runs
                # (3.11 specialises a code object after 8 calls, about 13,000 instructions
                # less per call): the first is made WARM_CALLS times, the host keeps the
                # last (a timed series is timed once it ends: _run_tests)
                first, self.meter_warm = not self.meter_warm, True
                for _ in range(WARM_CALLS if first else 1):
                    self.metered_call(lambda: self._target("call", test))
        return outcome

    def to_time(self, test: dict[str, Any], outcome: dict[str, Any]) -> bool:
        """Whether a test's cost is timed: a call of a series that returned."""
        return (self.timed and test.get("series") is not None and test["kind"] == "call"
                and outcome["exc_type"] is None)

    def cpu_costs(self, tests: list[dict[str, Any]]) -> list[int | None]:
        """CPU nanoseconds a call on each input of a series takes untraced
        (``timing.cpu_costs``: the sizes timed in turns, what the growth of a series rests
        on), each call on arguments and a receiver of its own, its output dropped, under the
        test's budget; None where a repeated call raised, all None when the timing overran
        (the traced outcomes stand either way)."""
        sink = CappedText(Budget(1 << 62, self.channel), False)
        try:
            try:
                self._arm()
                sys.stdout = sys.stderr = sink
                makers = [timing.reusing(lambda t=test: self._target("call", t),
                                         shareable=test.get("receiver") is None)
                          for test in tests]
                # the series shares one test's budget: the sizes' timing and their empty
                # calls' fit in two thirds of it
                share = timing.SECONDS if self.test_seconds is None else min(
                    timing.SECONDS, self.test_seconds / (3 * len(tests)))
                costs: list[int | None] = timing.cpu_costs(makers, share, self.empty_call())
                return costs
            finally:
                self._disarm()
                self.fired = False
                sys.stdin, sys.stdout, sys.stderr = sys.__stdin__, sys.__stdout__, sys.__stderr__
        except BaseException:
            return [None] * len(tests)

    @staticmethod
    def empty_call() -> Any:
        """The call whose CPU time is taken off a timed one: a function doing nothing,
        wrapped as a test's call is (:meth:`_target`), so that the wrapper's fixed cost per
        call is taken off too (left in, it flattens every growth slope). The portable
        sandbox's fuel takes off a bare empty call's instead: there the meter's own marks
        cost far more than the wrapper, and vary by more between calls."""
        return doctest_run.consuming(timing.nothing)

    def metered_call(self, make_call: Any, prefix: str = "") -> None:
        """One untraced call (``make_call()``: callable, args, kwargs of its own), its
        output dropped, between the marks ``start`` and ``end`` (the portable host counts
        the instructions between them; a traced outcome stands either way). The collector
        is off meanwhile, as for a timed call (``timing.py``): a collection of what earlier
        calls left would be counted as this call's."""
        import gc

        sink = CappedText(Budget(1 << 62, self.channel), False)
        collecting = gc.isenabled()
        try:
            call, args, kwargs = make_call()
            sys.stdout = sys.stderr = sink
            gc.disable()
            self.meter(prefix + "start")
            try:
                call(*args, **kwargs)
            finally:
                self.meter(prefix + "end")
        except BaseException:
            pass
        finally:
            if collecting:
                gc.enable()
            sys.stdin, sys.stdout, sys.stderr = sys.__stdin__, sys.__stdout__, sys.__stderr__

    def _target(
        self, kind: str, test: dict[str, Any]
    ) -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
        """The callable a test runs and its arguments."""
        assert self.module is not None
        if kind == "stdio":
            solve = self.module.get("solve")
            if not callable(solve):
                raise NameError("the candidate defines no callable solve")
            lines = (test.get("stdin") or "").splitlines()
            return _solve_call(solve), (lines,), {}
        if kind == "example":  # the function is called by the example's own code
            discard = CappedText(self.budget, False)
            shown = lambda value: safe_repr(value, objects=True)  # noqa: E731
            return doctest_run.prepare(self.module, test, discard, shown), (), {}
        entry = self._entry(test.get("receiver"))
        if kind == "call":
            args = protocol.decode_value(test.get("args") or {"$": "tuple", "v": []},
                                         made_function)
            kwargs = protocol.decode_value(test.get("kwargs") or {"$": "dict", "v": []},
                                           made_function)
            return doctest_run.consuming(entry), tuple(args), dict(kwargs)
        if kind == "check":
            # The harness runs in the grader process: here, only its calls are answered.
            if self.grader_link is None:
                raise NameError("no grader for a check test")
            link, index = self.grader_link, self.index
            return (lambda: grader.answer_calls(link, index, entry, protocol)), (), {}
        raise ValueError(f"unknown test kind {kind!r}")

    def _entry(self, receiver: dict[str, Any] | None = None) -> Any:
        assert self.module is not None
        if self.placed is not None and self.context_module is not None:
            return in_module.target(self.placed, vars(self.context_module), receiver,
                                    protocol.decode_value)
        if not self.entry_point:
            raise NameError("no entry point given for a call/check test")
        if "." in self.entry_point:  # a method of a class the version (a whole class) defines
            return in_module.target(in_module.owned(self.module, self.entry_point),
                                    self.module, receiver, protocol.decode_value)
        fn = self.module.get(self.entry_point)
        if not callable(fn):
            raise NameError(f"the candidate defines no callable {self.entry_point!r}")
        return fn

    def _trace(self, on: bool) -> None:
        """Start or stop counting; a stop notes whether tracing stayed intact."""
        if self.tracer is None:
            return
        if on:
            self.tracer.start()
        elif not self.tracer.stop():
            self.trace_broken = True

    def _finish_counts(self, outcome: dict[str, Any]) -> None:
        """Counts of this test, or None when tracing was switched off during it
        (an error inside the trace function, e.g. a RecursionError, unsets it)."""
        if self.tracer is not None:
            self._trace(False)
            counts = self.tracer.take()
            if self.trace_broken:
                self.trace_broken = False
                return
            outcome["opcodes"] = counts
            outcome["opcode_total"] = sum(counts.values())


def _skipped(index: int, test: dict[str, Any]) -> dict[str, Any]:
    """The outcome of a test not run because an earlier test of its series timed out."""
    return {
        "name": test.get("name") or f"test{index}",
        "passed": False if test.get("has_expected") or test.get("kind") == "check" else None,
        "output": None,
        "exc_type": SKIPPED,
        "exc_message": f"not run: an earlier test of series {test.get('series')!r} timed out",
        "opcodes": None,
        "opcode_total": 0,
        "seconds": 0.0,
    }


def _module_source(context: dict[str, Any]) -> str:
    """The module's own text among the view's files."""
    path = context.get("path")
    for item in context.get("files") or []:
        if isinstance(item, list) and len(item) == 2 and item[0] == path:
            return str(item[1])
    return ""


def _safe_str(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:
        return f"<str failed for {type(exc).__name__}>"


def _solve_call(solve: Any) -> Any:
    """Call ``solve`` with the input lines, or with nothing if it takes no arguments."""
    import inspect

    params: list[Any]
    try:
        params = [
            p
            for p in inspect.signature(solve).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
        ]
    except (TypeError, ValueError):
        params = [None]

    def call(lines: list[str]) -> Any:
        return solve() if not params else solve(lines)

    return call


def _defuse_subprocess() -> None:
    """Let candidates ``import subprocess`` but not reach ``_posixsubprocess`` directly.

    Before 3.13 ``_posixsubprocess.fork_exec`` raises no audit event of its own, so the
    module is imported here, unhooked from ``subprocess`` and dropped from
    ``sys.modules``; importing it again is refused by the audit hook, while
    ``subprocess.Popen`` still raises its own (refused) event first.
    """
    import subprocess

    for name in ("_posixsubprocess", "_fork_exec"):
        if hasattr(subprocess, name):
            setattr(subprocess, name, None)
    sys.modules.pop("_posixsubprocess", None)


def main(argv: list[str]) -> None:
    """Entry point: ``child.py [--strict] <message-fd> [<grader-in> <grader-out>]``
    (one candidate, fresh interpreter).

    ``--strict`` (inside bubblewrap): leave root, then confine this candidate as the fork
    server's children are confined.
    """
    import fcntl

    strict = argv[:1] == [STRICT_ARG]
    given = [int(a) for a in argv if a.isdigit()]
    # message pipe -> 3, grader pipes -> 4 and 5 (through high numbers: no clobbering)
    high = [fcntl.fcntl(n, fcntl.F_DUPFD, 100) for n in given]
    for n in given:
        posix.close(n)
    for target, n in enumerate(high, start=CHILD_MSG_FD):
        posix.dup2(n, target)
        posix.close(n)
    fd = CHILD_MSG_FD
    if strict:
        note = confine.drop_root()
        if note is not None:
            Channel(fd).send(protocol.MSG_ERROR, detail=note)
            posix._exit(70)
    run_child(Channel(fd), 0, strict=strict)


def _confine_strict(tmpfs_bytes: int, view: list[tuple[str, str]] | None
                    ) -> tuple[list[str], list[str]]:
    """New namespaces and private mounts for this candidate (returns in the grandchild);
    the workspace ``view`` (a version run in its module) read-only at ``in_module.VIEW``."""
    layers, notes = confine.enter_namespaces()
    if not layers:
        return layers, notes
    more, more_notes = confine.private_mounts(WORKDIR, tmpfs_bytes, [RUN_MOUNT])
    layers, notes = layers + more, notes + more_notes
    if view is not None:
        more, more_notes = confine.readonly_view(
            in_module.VIEW, in_module.view_bytes(view),
            lambda root: in_module.write_view(root, view))
        layers, notes = layers + more, notes + more_notes
    return layers, notes


def _tmpfs_bytes(limits: dict[str, Any]) -> int:
    return max(32 * 1024 * 1024, 2 * int(limits["file_size_bytes"]))


class Layers:
    """The layers that held so far and notes on what the kernel refused."""

    def __init__(self) -> None:
        self.held: list[str] = []
        self.notes: list[str] = []

    def add(self, got: tuple[list[str], list[str]]) -> None:
        """Record one step's (layers, notes)."""
        self.held.extend(got[0])
        self.notes.extend(got[1])


def run_child(channel: Channel, parent_pid: int, strict: bool = False) -> None:
    """Read the run message from fd 0, confine, limit, hook, run the tests; never returns."""
    try:
        run = _read_run_message()
    except Exception as exc:
        channel.send(protocol.MSG_ERROR, detail=f"bad run message: {exc}")
        posix._exit(70)
    layers = _confine(run, strict, parent_pid or int(run.get("parent_pid") or 0))
    sandbox = posix.getcwd()
    harness = Harness(run, channel)
    if not strict and harness.context is not None:
        harness.view_root = os.path.join(sandbox, in_module.WEAK_VIEW)
    harness.install_timer()
    _preload(run)
    if run.get("grader") and grader.has_grader_fds():
        harness.grader_link = _fork_grader(run)
    else:
        grader.close_quietly(grader.GRADER_IN_FD, grader.GRADER_OUT_FD)
    _defuse_subprocess()
    # -S leaves out site, which is what defines exit() and quit(); programs use them.
    builtins.exit = builtins.quit = sys.exit  # type: ignore[assignment]
    sys.argv = [CANDIDATE_FILENAME]
    program = bytes.fromhex(str(run.get("seccomp") or ""))
    if strict or program:
        layers.add(confine.install_seccomp(program))
    _forget_ctypes()
    fixed_world.install()
    if run.get("audit_hook", True) or not strict:
        audit.install_audit_hook(sandbox, channel.send, [], run.get("secrets"),
                                 kernel_confined=strict, forbidden=protocol.MSG_FORBIDDEN)
        layers.held.append("audit-hook")
    _hello(channel, harness, layers, strict)
    if run.get("probe"):
        channel.send(protocol.MSG_DONE)
        posix._exit(0)
    if not harness.compile():
        posix._exit(0)
    try:
        harness.load_context()
    except OutputLimitExceeded:
        posix._exit(0)
    _run_tests(harness, run, channel)


def _confine(run: dict[str, Any], strict: bool, parent_pid: int) -> Layers:
    """Namespaces and mounts (strict) or what the weak level gets, then limits."""
    layers = Layers()
    tmpfs_bytes = _tmpfs_bytes(run["limits"])
    view = in_module.view_files(run["module"]) if run.get("module") else None
    if strict:
        layers.add(_confine_strict(tmpfs_bytes, view))
    else:
        layers.add(_isolate(posix.getcwd(), tmpfs_bytes, parent_pid))
        if view is not None:  # writable by the candidate: the weak level says so
            try:
                in_module.write_view(os.path.join(posix.getcwd(), in_module.WEAK_VIEW), view)
            except OSError as exc:
                layers.notes.append(f"workspace view: {exc}")
    _set_limits(run["limits"])
    layers.held.append("rlimits")
    if strict:
        layers.add(confine.drop_capabilities())
    if os.getsid(0) == os.getpid() or "pidns" in layers.held:
        layers.held.append("session")
    return layers


def _preload(run: dict[str, Any]) -> None:
    """Load what the harness needs later, before any candidate code runs."""
    if "pathlib" in run.get("code", ""):
        import pathlib  # noqa: F401
    if run.get("module"):
        in_module.preload()
    if any(t.get("kind") == "stdio" for t in run.get("tests", [])):
        import ast  # noqa: F401
        import inspect  # noqa: F401


def _hello(channel: Channel, harness: Harness, layers: Layers, strict: bool) -> None:
    """Report the layers; a strict run missing any required one ends here, unrun."""
    channel.send(
        protocol.MSG_HELLO,
        layers=layers.held,
        python=".".join(map(str, sys.version_info[:3])),
        trace_mode=harness.tracer.mode if harness.tracer is not None else None,
        notes=layers.notes,
    )
    required = (*STRICT_LAYERS, VIEW_LAYER) if harness.context is not None else STRICT_LAYERS
    missing = [name for name in required if name not in layers.held] if strict else []
    if missing:
        notes = f" ({'; '.join(layers.notes)})" if layers.notes else ""
        channel.send(
            protocol.MSG_ERROR,
            detail=f"sandbox incomplete, candidate not run: missing {', '.join(missing)}{notes}",
        )
        posix._exit(0)


def _fork_grader(run: dict[str, Any]) -> Any:
    """Fork the grader (see ``check_grader.py``); returns the version's end of their link.

    The grader takes the harness sources from fd 4 and sends verdicts on fd 5; the
    version's process closes both before any of its code runs.
    """
    import socket

    ours, theirs = socket.socketpair()
    pid = posix.fork()
    if pid == 0:
        try:
            ours.close()
            null = posix.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                posix.dup2(null, fd)
            grader.close_quietly(null, CHILD_MSG_FD)
            confine.die_with_parent()
            payload = grader.read_payload(grader.GRADER_IN_FD, protocol)
            confine.install_seccomp(bytes.fromhex(str(run.get("seccomp") or "")))
            verdicts = Channel(grader.GRADER_OUT_FD)
            grader.serve(grader.socket_link(theirs, protocol), dict(payload.get("checks") or {}),
                         lambda **v: verdicts.send("verdict", **v), protocol,
                         run.get("entry_point"))
        finally:
            posix._exit(0)
    theirs.close()
    grader.close_quietly(grader.GRADER_IN_FD, grader.GRADER_OUT_FD)
    return grader.socket_link(ours, protocol)


def _run_tests(harness: Harness, run: dict[str, Any], channel: Channel) -> None:
    """Run every test, one message each; never returns. The calls of a series that
    returned are held until the series ends, then timed together (:meth:`Harness.cpu_costs`)
    and sent with their cost."""
    timed_out_series: set[str] = set()
    held: list[tuple[int, dict[str, Any], dict[str, Any]]] = []

    def flush(timed: bool) -> None:
        costs = harness.cpu_costs([t for _, t, _ in held]) if timed and held else []
        for k, (index, _test, outcome) in enumerate(held):
            if costs:
                outcome["cpu_ns"] = costs[k]
            channel.send(protocol.MSG_TEST, index=index, outcome=outcome)
        held.clear()

    for index, test in enumerate(run["tests"]):
        series = test.get("series")
        if held and held[0][1].get("series") != series:
            flush(True)
        if series is not None and series in timed_out_series:
            channel.send(protocol.MSG_TEST, index=index, outcome=_skipped(index, test))
            continue
        channel.send(protocol.MSG_TEST_START, index=index)
        try:
            outcome = harness.run_test(index, test)
        except SystemExit as exc:
            flush(False)
            channel.send(protocol.MSG_TEST, index=index, outcome=getattr(exc, "outcome", None))
            code = exc.code if isinstance(exc.code, int) or exc.code is None else 1
            channel.send(protocol.MSG_EXIT, code=code)
            posix._exit(0)
        except OutputLimitExceeded as exc:
            flush(False)
            channel.send(protocol.MSG_TEST, index=index, outcome=getattr(exc, "outcome", None))
            posix._exit(0)
        if harness.to_time(test, outcome):
            held.append((index, test, outcome))
        else:
            channel.send(protocol.MSG_TEST, index=index, outcome=outcome)
        if series is not None and outcome["exc_type"] == Timeout.__name__ and harness.fired:
            timed_out_series.add(series)
    flush(True)
    channel.send(protocol.MSG_DONE, memory_error=harness.memory_error, timeouts=harness.timeouts)
    posix._exit(0)


# --------------------------------------------------------------------------- fork server
FORK_SERVER_ARG = "--fork-server"
STRICT_ARG = "--strict"
CHILD_MSG_FD = 3


def serve_forks(path: str, strict: bool = False) -> None:
    """Fork server: preload the harness's modules once, fork one child per request.

    Listens on the AF_UNIX SOCK_SEQPACKET socket ``path``. Per connection: ``spawn``
    (cwd, env, with the child's stdin/stdout/stderr/message descriptors attached) ->
    ``spawned`` (pid); when the child has exited (not reaped) -> ``exited``; ``reap`` ->
    ``reaped`` (wait status, CPU seconds). A closed connection kills and reaps its child;
    EOF on fd 0 (the parent is gone) kills every child and ends the server. The server
    runs no candidate code: children do, after they have forked.
    """
    import ast  # noqa: F401  (preloaded for the children)
    import contextlib
    import ctypes  # noqa: F401
    import dis  # noqa: F401
    import gc
    import inspect  # noqa: F401
    import pathlib  # noqa: F401
    import resource  # noqa: F401
    import selectors
    import socket
    import subprocess  # noqa: F401

    gc.freeze()  # the preloaded heap is shared with every child: no collection touches it
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(path)
    listener.listen(64)
    if strict:  # after bind: the socket's directory belongs to the caller
        note = confine.drop_root()
        if note is not None:
            posix.write(2, note.encode() + b"\n")
            posix._exit(70)
    sel = selectors.DefaultSelector()
    sel.register(listener, selectors.EVENT_READ, ("accept", None))
    sel.register(0, selectors.EVENT_READ, ("parent", None))
    children: dict[int, tuple[Any, int, str]] = {}  # id(conn) -> (conn, pid, sandbox)
    me = posix.getpid()
    with contextlib.suppress(OSError):  # a parent already gone shows as EOF below
        posix.write(1, b"ready\n")

    def send(conn: Any, **fields: Any) -> None:
        with contextlib.suppress(OSError):
            conn.send(protocol.encode_frame(fields)[protocol.HEADER.size :])

    def drop(conn: Any) -> None:
        entry = children.pop(id(conn), None)
        if entry is not None:
            # The connection ended without a reap request: the parent is gone or lost
            # track, so nobody else will clean up after this child.
            _kill_and_reap(entry[1])
            with contextlib.suppress(OSError):
                posix.rmdir(entry[2])  # empty unless the tmpfs layer was missing
        with contextlib.suppress(KeyError, ValueError):
            sel.unregister(conn)
        conn.close()

    while True:
        for key, _mask in sel.select():
            kind, conn = key.data
            if kind == "parent":
                if not posix.read(0, 4096):
                    # The parent is gone: nobody will clean up after these children.
                    for _conn, pid, sandbox in list(children.values()):
                        _kill_and_reap(pid)
                        with contextlib.suppress(OSError):
                            posix.rmdir(sandbox)  # empty unless the tmpfs layer was missing
                    with contextlib.suppress(OSError):
                        posix.unlink(path)
                        posix.rmdir(os.path.dirname(path))
                    posix._exit(0)
            elif kind == "accept":
                new, _addr = listener.accept()
                sel.register(new, selectors.EVENT_READ, ("conn", new))
            elif kind == "exited":
                sel.unregister(key.fileobj)
                posix.close(key.fd)
                send(conn, type="exited")
            else:
                try:
                    data, fds, _flags, _addr = socket.recv_fds(conn, 1 << 20, 8)
                except OSError:
                    data, fds = b"", []
                if not data:
                    for fd in fds:
                        posix.close(fd)
                    drop(conn)
                    continue
                try:
                    request = protocol.decode_body(data)
                except protocol.ProtocolError:
                    request = {"type": "?"}
                if request["type"] == "spawn" and len(fds) in (4, 6) and id(conn) not in children:
                    try:
                        pid = posix.fork()
                    except OSError:
                        pid = -1
                    if pid == 0:
                        _become_child(fds, request, me, strict)
                    for fd in fds:
                        posix.close(fd)
                    if pid < 0:
                        drop(conn)  # the parent sees the spawn fail and starts afresh
                        continue
                    children[id(conn)] = (conn, pid, str(request["cwd"]))
                    try:
                        pidfd = os.pidfd_open(pid)
                    except OSError:
                        drop(conn)  # cannot watch it: kill it rather than lose track
                        continue
                    sel.register(pidfd, selectors.EVENT_READ, ("exited", conn))
                    send(conn, type="spawned", pid=pid)
                elif request["type"] == "kill" and id(conn) in children:
                    _conn, pid, _sandbox = children[id(conn)]
                    for kill in (os.killpg, os.kill):
                        with contextlib.suppress(OSError):
                            kill(pid, 9)
                elif request["type"] == "reap" and id(conn) in children:
                    _conn, pid, _sandbox = children.pop(id(conn))
                    _pid, status, usage = os.wait4(pid, 0)
                    send(conn, type="reaped", status=status, cpu=usage.ru_utime + usage.ru_stime)
                else:
                    for fd in fds:
                        posix.close(fd)
                    drop(conn)


def _kill_and_reap(pid: int) -> None:
    import contextlib  # the fork server's, already loaded

    for kill in (os.killpg, os.kill):
        with contextlib.suppress(OSError):
            kill(pid, 9)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


def _become_child(
    fds: list[int], request: dict[str, Any], server_pid: int, strict: bool
) -> None:
    """In a freshly forked child: take the descriptors, session, cwd and environment."""
    import fcntl

    try:
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 100) for fd in fds]
        for target, fd in enumerate(high):
            posix.dup2(fd, target)  # 0 stdin, 1 stdout, 2 stderr, 3 messages
        posix.closerange(len(high), 65536)
        posix.setsid()
        posix.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update({str(k): str(v) for k, v in request["env"].items()})
        sys.argv = [__file__, str(CHILD_MSG_FD)]
    except BaseException:
        posix._exit(72)
    channel = Channel(CHILD_MSG_FD)
    try:
        run_child(channel, server_pid, strict=strict)
    except BaseException as exc:
        channel.send(protocol.MSG_ERROR, detail=f"{type(exc).__name__}: {_safe_str(exc)}")
    posix._exit(70)


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == FORK_SERVER_ARG:
        serve_forks(sys.argv[2], strict=sys.argv[3:] == [STRICT_ARG])
        posix._exit(0)
    try:
        main(sys.argv[1:])
    except BaseException as exc:  # report harness failures instead of a bare traceback
        try:
            Channel(CHILD_MSG_FD).send(
                protocol.MSG_ERROR, detail=f"{type(exc).__name__}: {_safe_str(exc)}"
            )
        finally:
            posix._exit(70)
