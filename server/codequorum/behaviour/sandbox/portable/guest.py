"""The portable sandbox's guest: runs one version's tests inside CPython on WASI.

Stdlib only; runs in the WebAssembly guest, started by ``host.py`` as ``python -S
/harness/portable/boot.py`` (which runs this file's code compiled once). The guest has
no fork, no signals that fire, no threads and no subprocesses, so it reuses the strict
child's harness (``child.py``: canonical values, statuses, tracing, the version in its
module) without its kernel layers: the isolation is the WebAssembly instance itself. It
reads the ``run`` message on stdin and writes the framed messages on stdout (the host
checks them as the parent checks any child's). Check harnesses run in a second guest,
``guest.py --grader``, whose calls the host routes to this one's stdin: the version never
holds a harness or its expected values. Time is bounded by the host (fuel and epoch
interruption), memory by the store's limits.
"""

from __future__ import annotations

import builtins
import marshal
import os
import sys
import types

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

HARNESS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STDOUT_FD = 1
#: The working directory a version sees: nothing is writable in the guest.
SANDBOX = "/work"
#: The host name every sandbox gives (the strict one's UTS namespace is ``localhost``).
HOST_NAME = "localhost"
#: The harness compiled once by this interpreter (``--bundle``), granted read-only by the
#: host when the cache has it: compiling the harness would be most of a start's fuel.
BUNDLE = "/bundle/bundle.marshal"
#: The flag of a guest whose input is the file ``INBOX`` the host appends to, in place of
#: fd 0 (``instance.INBOX_FLAG``), and the longest it waits before reading it again.
INBOX_FLAG = "--inbox"
INBOX = "/inbox/in"
INBOX_WAIT = 1.0
HARNESS_FILES = ("child.py", "protocol.py", "tracer.py", "block_counts.py", "confine.py",
                 "audit_hook.py", "check_grader.py", "in_module.py", "doctest_run.py", "timing.py",
                 "fixed_world.py", "portable/guest.py")
sys.path[:] = [p for p in sys.path if not p.startswith(HARNESS)]
#: CPython's default, the strict child's: this build's own (600) would end a recursion 600
#: deep that runs there. Python calls use no C stack on 3.11; recursion through builtins
#: that runs the C stack out is a ``RecursionError`` the host reports (``host.py``).
RECURSION_LIMIT = 1000
sys.setrecursionlimit(RECURSION_LIMIT)


def bundle() -> None:
    """``guest.py --bundle``: write the harness's code objects, marshalled, on stdout."""
    out = {}
    for name in HARNESS_FILES:
        path = os.path.join(HARNESS, name)
        with open(path, encoding="utf-8") as handle:
            source = handle.read()
        out[path] = (len(source), compile(source, path, "exec", dont_inherit=True))
    _write_stdout(marshal.dumps(out))


def _write_stdout(frame: bytes) -> None:
    view = memoryview(frame)
    while view:
        view = view[os.write(STDOUT_FD, view):]


def _precompiled() -> dict[str, Any]:
    """The bundle's code objects by file name (empty when there is none): as ``boot.py``
    read it, else from its file."""
    handed = globals().get("BUNDLED_CODE")
    if isinstance(handed, dict):
        return handed
    try:
        with open(BUNDLE, "rb") as handle:
            data = handle.read()
        found = marshal.loads(data)  # ``marshal.load`` would read the file item by item
    except (OSError, ValueError, EOFError, TypeError):
        return {}
    return found if isinstance(found, dict) else {}


def _compile_from(codes: dict[str, Any], compile_: Any) -> Any:
    """``compile`` that answers a harness file of the same length from ``codes``."""
    def compile_cached(source: Any, filename: Any, mode: str, *args: Any, **kw: Any) -> Any:
        hit = codes.get(filename)
        if mode == "exec" and isinstance(hit, tuple) and isinstance(source, str) and (
                hit[0] == len(source)):
            return hit[1]
        return compile_(source, filename, mode, *args, **kw)
    return compile_cached


def _load_harness(*names: str) -> list[Any]:
    """Harness files as modules (``child.py`` loads its siblings), from the bundle where
    it has them; ``compile`` is the real one again before anything else runs."""
    real = builtins.compile
    codes = _precompiled()
    if codes:
        builtins.compile = _compile_from(codes, real)  # type: ignore[assignment]
    try:
        return [_load(name) for name in names]
    finally:
        builtins.compile = real


def _load_child() -> Any:
    """``child.py`` and its siblings (its ``main`` does not run)."""
    child = _load_harness("child.py")[0]
    for private in (child.audit, child.timing):  # their own copies of the builtins
        private.__dict__["__builtins__"]["compile"] = builtins.compile
    return child


def _load(name: str) -> Any:
    """One harness file as a module of its own."""
    path = os.path.join(HARNESS, name)
    module = types.ModuleType("_codequorum_" + name.removesuffix(".py"))
    module.__file__ = path
    with open(path, encoding="utf-8") as handle:
        source = handle.read()
    exec(compile(source, path, "exec", dont_inherit=True), module.__dict__)
    return module


def _host_link(grader: Any, protocol: Any) -> Any:
    """Frames to the host on stdout and from it on fd 0: the run message, then (with a
    grader) the check harness's calls; the host routes them (a ``grader.FrameLink``)."""
    return grader.FrameLink(_fd0_reader(), _write_stdout, protocol)


def _fd0_reader() -> Any:
    """What reads the host's frames: fd 0, a pipe, to its end; or, in a guest of the guest
    server (``instance.py --serve``, started with ``INBOX_FLAG`` and the descriptor of its
    ``/inbox``), the file ``INBOX`` the host appends to, waiting at its end on a poll of
    that descriptor, which the host answers once more has come, until the ``end`` frame
    (``FrameLink``)."""
    if INBOX_FLAG not in sys.argv:
        return lambda: os.read(0, 65536)
    import select

    folder = int(sys.argv[sys.argv.index(INBOX_FLAG) + 1])
    fd = os.open(INBOX, os.O_RDONLY)

    def read() -> bytes:
        while not (data := os.read(fd, 65536)):
            select.select([folder], [], [], INBOX_WAIT)
        return data
    return read


def _read_run(link: Any) -> dict[str, Any]:
    message: dict[str, Any] | None = link.receive()
    if message is None or message.get("type") != link.protocol.MSG_RUN:
        raise link.protocol.ProtocolError("expected a run message on stdin")
    return message


def grade() -> None:
    """``guest.py --grader``: run the check harnesses the host sends against the version
    behind it (``grader.serve``, as the strict sandbox's grader process does). It loads
    only the protocol, the grader and the audit hook's descriptor limit (the checks come
    with a sample set, as hostile as its versions): no tracer, no version, so none of
    their start."""
    protocol, grader, audit = _load_harness("protocol.py", "check_grader.py",
                                            "audit_hook.py")
    link = _host_link(grader, protocol)
    payload = link.receive()
    if payload is None or payload.get("type") != "grade":
        os._exit(70)
    if type(payload.get("max_open")) is int:
        audit.install_descriptor_limit(payload["max_open"])
    grader.serve(link, dict(payload.get("checks") or {}),
                 lambda **verdict: link.send(type="verdict", **verdict),
                 protocol, payload.get("entry"))
    os._exit(0)


def _meter(link: Any, harness: Any) -> None:
    """Metered calls of the series: marks on stdout around each, after two empty calls
    marked the same way (the host takes the last one's instructions off every metered
    call; the first pays for what a first call sets up)."""
    def empty(*_args: Any, **_kwargs: Any) -> None:
        return None

    harness.meter = lambda mark: link.send(type="meter", mark=mark)
    for _ in range(2):
        harness.metered_call(lambda: (empty, (), {}), "empty-")


def _localhost() -> str:
    """``socket.gethostname()`` here: the strict sandbox's answer (its UTS namespace)."""
    return HOST_NAME


def _neutral_answers() -> None:
    """The answers the strict sandbox gives a module's harmless questions at import, where
    WASI gives none or another (docs/sandbox.md, *Neutral answers at import*): the host
    name (WASI's ``socket`` has no ``gethostname``, and ``os.uname()`` says ``(none)``).
    The environment is the interpreter's (``interpreter.GUEST_ENV``)."""
    import _socket
    import posix

    if not hasattr(_socket, "gethostname"):
        _socket.gethostname = _localhost  # type: ignore[attr-defined]
    real = posix.uname()
    named = posix.uname_result((real.sysname, HOST_NAME, real.release, real.version,
                                real.machine))
    os.uname = posix.uname = lambda: named  # type: ignore[assignment]


def main() -> None:
    """Run the tests of the version in the ``run`` message; never returns."""
    child = _load_child()
    protocol = child.protocol
    channel = child.Channel(STDOUT_FD)
    link = _host_link(child.grader, protocol)
    try:
        run = _read_run(link)
    except Exception as exc:
        channel.send(protocol.MSG_ERROR, detail=f"bad run message: {exc}")
        os._exit(70)
    # The per-test budget is the host's (a fresh instance per overrun); no SIGALRM here.
    run["limits"] = {**run["limits"], "test_seconds": None}
    harness = child.Harness(run, channel)
    if run.get("grader"):
        harness.grader_link = link
    child._preload(run)
    _neutral_answers()
    # fd 1 is the message channel here (descriptor 3 in the strict child, whose fd 1 is
    # plain output): what a version prints to ``sys.__stdout__`` goes to fd 2, counted
    # against the output limit as the strict child's fd 1 is, never into a message
    sys.__stdout__ = sys.__stderr__  # type: ignore[misc]
    builtins.exit = builtins.quit = sys.exit  # type: ignore[assignment]
    sys.argv = [child.CANDIDATE_FILENAME]
    child.fixed_world.install()
    if run.get("audit_hook", True):
        child.audit.install_audit_hook(SANDBOX, channel.send, [], run.get("secrets"),
                                       kernel_confined=True, forbidden=protocol.MSG_FORBIDDEN,
                                       max_open=run["limits"].get("max_open_files"))
    channel.send(protocol.MSG_HELLO, layers=["wasm", "audit-hook"] if run.get(
        "audit_hook", True) else ["wasm"], python=".".join(map(str, sys.version_info[:3])),
        trace_mode=harness.tracer.mode if harness.tracer is not None else None, notes=[])
    if run.get("probe"):
        channel.send(protocol.MSG_DONE)
        os._exit(0)
    if not harness.compile():
        os._exit(0)
    _meter(link, harness)
    try:
        harness.load_context()
    except child.OutputLimitExceeded:
        os._exit(0)
    child._run_tests(harness, run, channel)


if __name__ == "__main__":
    ROLE = sys.argv[1:2] if sys.argv[1:2] in (["--bundle"], ["--grader"]) else []
    if ROLE == ["--bundle"]:
        bundle()
    elif ROLE == ["--grader"]:
        grade()
    else:
        main()
