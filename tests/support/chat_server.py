"""A real HTTP server that speaks the OpenAI chat-completions protocol, for tests.

It listens on 127.0.0.1 with an ephemeral port in a background thread, so both in-process
tests and a language server running in another process can reach it over HTTP::

    with ChatServer(script=[rate_limited(0.05), code_answer("def f():\\n    return 1\\n")]) as s:
        client_base_url = s.base_url          # http://127.0.0.1:<port>/v1
        ...
        assert s.chat_requests[0].body["seed"] == 7

Each POST to ``.../chat/completions`` takes the next behaviour from ``script``; when the
script is used up, ``default`` answers (a behaviour or a function of the request). The
behaviours: :func:`answer`, :func:`code_answer`, :func:`status` / :func:`server_error`,
:func:`rate_limited`, :func:`slow`, :func:`not_json`, :func:`no_code`, :func:`hang_up`,
and :class:`RecordedTask` which answers with real CodeGen completions from
``tests/fixtures/data/humaneval_codegen16b_t0.8.jsonl.gz`` (prompt + sample in a ```python
fence), picking the sample by the request's ``seed``. Every request is recorded (method,
path, headers, JSON body) for assertions. ``GET .../models`` lists the server's model.

``slots=1`` makes it answer one chat request at a time and queue the others, as
llama.cpp's server with one slot does; ``GET /props`` then says ``total_slots`` (with
``props=True``). ``max_in_flight`` is the most chat requests it was answering at once.

Run it on its own with ``python -m tests.support.chat_server --task HumanEval/0`` (or
``--versions fixed.json --language typescript``: those versions, by seed); it prints its
base URL and serves until interrupted.
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any

from tests.support.fixtures import CODEGEN_GZ

DEFAULT_DATA = CODEGEN_GZ


# --------------------------------------------------------------------------- behaviours


@dataclass(frozen=True)
class Answer:
    """A 200 chat completion whose choices carry these message contents."""

    contents: tuple[str, ...]
    finish_reason: str = "stop"


@dataclass(frozen=True)
class Status:
    """An HTTP error status with a JSON error body (and extra headers, e.g. Retry-After)."""

    code: int
    message: str = "error"
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Raw:
    """Any body with any status and content type (e.g. an HTML error page)."""

    body: bytes
    code: int = 200
    content_type: str = "text/html; charset=utf-8"


@dataclass(frozen=True)
class Slow:
    """Wait ``seconds`` (interrupted when the server stops), then behave like ``then``."""

    seconds: float
    then: Behaviour


@dataclass(frozen=True)
class HangUp:
    """Close the connection without answering."""


@dataclass(frozen=True)
class Trickle:
    """A 200 whose body never ends: one byte every ``every`` seconds until the client
    leaves or the server stops (a stalled proxy, an SSE stream left open)."""

    every: float = 0.2


@dataclass(frozen=True)
class Flood:
    """A 200 whose body is ``size`` bytes of one JSON string, written in 1 MB pieces as
    the client reads them; the server counts what it wrote in ``ChatServer.flooded``.
    Unless ``declared``, no Content-Length says how long: the body ends when it closes."""

    size: int
    declared: bool = True


@dataclass(frozen=True)
class Redirect:
    """A redirect (``code``, 307 keeps the method and body) to ``location``."""

    location: str
    code: int = 307


Behaviour = Answer | Status | Raw | Slow | HangUp | Trickle | Flood | Redirect
Responder = Callable[["RecordedRequest"], "Behaviour"]


def answer(*contents: str) -> Answer:
    """Answer with these assistant messages (one choice each)."""
    return Answer(contents=tuple(contents) or ("",))


def fence(code: str, language: str = "python", prose: bool = True) -> str:
    """Wrap code in a fenced block the way chat models usually answer."""
    body = code if code.endswith("\n") else code + "\n"
    block = f"```{language}\n{body}```"
    if not prose:
        return block
    return f"Here is the implementation:\n\n{block}\n\nIt handles the edge cases described."


def code_answer(code: str, language: str = "python", prose: bool = True) -> Answer:
    """Answer with ``code`` in a fenced block, surrounded by a little prose."""
    return answer(fence(code, language, prose))


def status(code: int, message: str = "error", retry_after: float | None = None) -> Status:
    """Answer with an HTTP error status and an OpenAI-style JSON error body."""
    headers = () if retry_after is None else (("Retry-After", _seconds(retry_after)),)
    return Status(code=code, message=message, headers=headers)


def server_error(message: str = "internal server error") -> Status:
    """A 500."""
    return status(500, message)


def rate_limited(retry_after: float | None = 0.05) -> Status:
    """A 429, with a Retry-After header in seconds unless ``retry_after`` is None."""
    return status(429, "rate limit reached", retry_after)


def slow(seconds: float, then: Behaviour | None = None) -> Slow:
    """Delay the answer (longer than the client's timeout to test timeouts)."""
    return Slow(seconds=seconds, then=then or answer("```python\ndef late():\n    pass\n```"))


def not_json(body: str = "<html><body>502 Bad Gateway</body></html>") -> Raw:
    """A 200 whose body is not JSON."""
    return Raw(body=body.encode("utf-8"))


def no_code(text: str = "I'm sorry, I can't help with that request.") -> Answer:
    """An answer with prose only."""
    return answer(text)


def hang_up() -> HangUp:
    """Drop the connection without a response."""
    return HangUp()


def _seconds(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


# --------------------------------------------------------------------------- recorded data


@dataclass(frozen=True)
class RecordedTask:
    """Real CodeGen-16B completions of one HumanEval task, served as chat answers.

    ``codes[i]`` is ``prompt + samples[i]``: a complete function named ``entry_point``.
    As a responder, request k gets sample ``seed % len`` (or the k-th sample when the
    request has no seed); a request with ``n`` > 1 gets that many consecutive samples.
    """

    task_id: str
    prompt: str
    entry_point: str
    codes: tuple[str, ...]
    language: str = "python"
    _counter: itertools.count[int] = field(default_factory=itertools.count, compare=False)

    @classmethod
    def from_versions(cls, path: Path, language: str) -> RecordedTask:
        """Fixed versions of one function (a JSON list of their code) in ``language``."""
        codes = tuple(str(c) for c in json.loads(path.read_text(encoding="utf-8")))
        return cls(path.stem, "", "", codes, language)

    @classmethod
    def load(cls, task_id: str = "HumanEval/0", path: Path | None = None) -> RecordedTask:
        """Read one task (by ``task_id`` or ``entry_point``) from the JSONL file."""
        source = path or DEFAULT_DATA
        opener = gzip.open if source.suffix == ".gz" else open
        with opener(source, "rt", encoding="utf-8") as fh:
            for line in fh:
                row = json.loads(line)
                if task_id in (row["task_id"], row.get("entry_point")):
                    codes = tuple(row["prompt"] + s for s in row["samples"])
                    return cls(row["task_id"], row["prompt"], row["entry_point"], codes)
        raise KeyError(f"{task_id} not in {source}")

    def content(self, index: int) -> str:
        """The chat answer for sample ``index`` (wrapped in a fence with prose)."""
        return fence(self.codes[index % len(self.codes)], self.language)

    def __call__(self, request: RecordedRequest) -> Behaviour:
        body = request.body if isinstance(request.body, dict) else {}
        seed = body.get("seed")
        start = seed if isinstance(seed, int) else next(self._counter)
        asked = body.get("n")
        n = asked if isinstance(asked, int) else 1
        return Answer(contents=tuple(self.content(start + k) for k in range(max(1, n))))


# --------------------------------------------------------------------------- the server


@dataclass(frozen=True)
class RecordedRequest:
    """What the server received: method, path, headers (lower-case names), parsed body."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    raw_body: bytes
    received: float

    @property
    def authorization(self) -> str | None:
        """The Authorization header, if any."""
        return self.headers.get("authorization")


class ChatServer:
    """A chat-completions server on 127.0.0.1 in a background thread (context manager)."""

    def __init__(
        self,
        script: Iterable[Behaviour] = (),
        *,
        default: Behaviour | Responder | None = None,
        model: str = "test-model",
        host: str = "127.0.0.1",
        port: int = 0,
        slots: int | None = None,
        props: bool = False,
        gets: dict[str, Behaviour] | None = None,
    ) -> None:
        self.model = model
        self.slots = slots
        self.props = props
        #: How GET requests of these paths (``/props``, ``/v1/models``) are answered.
        self.gets = dict(gets or {})
        #: Bytes of :class:`Flood` bodies written so far.
        self.flooded = 0
        self._turns = threading.BoundedSemaphore(slots) if slots else None
        self._in_flight = 0
        self.max_in_flight = 0
        self._script: list[Behaviour] = list(script)
        self._default: Behaviour | Responder = default or answer(
            "```python\ndef default_answer():\n    return None\n```"
        )
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._requests: list[RecordedRequest] = []
        self._ids = itertools.count(1)
        self._httpd = _Server((host, port), _Handler)
        self._httpd.owner = self
        self._thread: threading.Thread | None = None

    # lifecycle
    def start(self) -> ChatServer:
        """Start serving (idempotent)."""
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._httpd.serve_forever,
                kwargs={"poll_interval": 0.05},
                name="chat-server",
                daemon=True,
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; pending delayed answers are abandoned."""
        self._stopping.set()
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> ChatServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # addresses
    @property
    def port(self) -> int:
        """The port the server listens on."""
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>``."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL: ``http://127.0.0.1:<port>/v1``."""
        return self.url + "/v1"

    # scripting and inspection
    def push(self, *behaviours: Behaviour) -> None:
        """Queue more behaviours after the current script."""
        with self._lock:
            self._script.extend(behaviours)

    def set_default(self, default: Behaviour | Responder) -> None:
        """Replace what answers once the script is used up."""
        with self._lock:
            self._default = default

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        """Only the chat-completions requests."""
        return [r for r in self.requests if r.path.rstrip("/").endswith("/chat/completions")]

    def wait_for_requests(self, count: int, timeout: float = 5.0) -> list[RecordedRequest]:
        """Block until ``count`` chat requests arrived (or ``timeout``); returns them."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            got = self.chat_requests
            if len(got) >= count:
                return got
            time.sleep(0.01)
        return self.chat_requests

    # used by the handler
    def _answering(self, delta: int) -> None:
        with self._lock:
            self._in_flight += delta
            self.max_in_flight = max(self.max_in_flight, self._in_flight)

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def _next_behaviour(self, request: RecordedRequest) -> Behaviour:
        with self._lock:
            chosen: Behaviour | Responder = self._script.pop(0) if self._script else self._default
        if isinstance(chosen, Answer | Status | Raw | Slow | HangUp | Trickle | Flood | Redirect):
            return chosen
        return chosen(request)

    def _completion(self, request: RecordedRequest, contents: Sequence[str], reason: str) -> bytes:
        body = request.body if isinstance(request.body, dict) else {}
        payload = {
            "id": f"chatcmpl-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", self.model),
            "choices": [
                {
                    "index": i,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": reason,
                }
                for i, text in enumerate(contents)
            ],
            "usage": {"prompt_tokens": 10, "completion_tokens": 20, "total_tokens": 30},
        }
        return json.dumps(payload).encode("utf-8")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    owner: ChatServer


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output quiet."""

    def do_GET(self) -> None:
        owner = self.server.owner
        owner._record(self._read_request(b""))
        if self.path in owner.gets:
            self._perform(owner.gets[self.path], self._read_request(b""))
        elif self.path.rstrip("/").endswith("/models"):
            data = {
                "object": "list",
                "data": [{"id": owner.model, "object": "model", "owned_by": "tests"}],
            }
            self._send(200, json.dumps(data).encode(), "application/json")
        elif self.path.rstrip("/") == "/props" and owner.props:
            props = {"total_slots": owner.slots or 1, "model_path": owner.model}
            self._send(200, json.dumps(props).encode(), "application/json")
        else:
            self._send_error(404, f"no route for GET {self.path}")

    def do_POST(self) -> None:
        owner = self.server.owner
        length = int(self.headers.get("Content-Length") or 0)
        request = self._read_request(self.rfile.read(length) if length else b"")
        owner._record(request)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send_error(404, f"no route for POST {self.path}")
            return
        if not isinstance(request.body, dict) or "messages" not in request.body:
            self._send_error(400, "body must be a JSON object with messages")
            return
        turns = owner._turns
        if turns is not None:  # wait for a free slot, as a busy server does
            while not turns.acquire(timeout=0.05):
                if owner._stopping.is_set():
                    return
        owner._answering(1)
        try:
            self._perform(owner._next_behaviour(request), request)
        finally:
            owner._answering(-1)
            if turns is not None:
                turns.release()

    def _perform(self, behaviour: Behaviour, request: RecordedRequest) -> None:
        owner = self.server.owner
        try:
            if isinstance(behaviour, Slow):
                if owner._stopping.wait(behaviour.seconds):
                    return
                self._perform(behaviour.then, request)
            elif isinstance(behaviour, Answer):
                data = owner._completion(request, behaviour.contents, behaviour.finish_reason)
                self._send(200, data, "application/json")
            elif isinstance(behaviour, Status):
                self._send_error(behaviour.code, behaviour.message, behaviour.headers)
            elif isinstance(behaviour, Raw):
                self._send(behaviour.code, behaviour.body, behaviour.content_type)
            elif isinstance(behaviour, Trickle):
                self._trickle(behaviour.every)
            elif isinstance(behaviour, Flood):
                self._flood(behaviour.size, behaviour.declared)
            elif isinstance(behaviour, Redirect):
                self._send(behaviour.code, b"", "text/plain", (("Location", behaviour.location),))
            else:
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
        except (BrokenPipeError, ConnectionResetError, OSError):
            self.close_connection = True  # the client gave up (e.g. its timeout)

    def _trickle(self, every: float) -> None:
        owner = self.server.owner
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        self.wfile.write(b"data: ")
        while not owner._stopping.wait(every):
            self.wfile.write(b"x")
            self.wfile.flush()
        self.close_connection = True

    def _flood(self, size: int, declared: bool) -> None:
        owner = self.server.owner
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if declared:
            self.send_header("Content-Length", str(size))
        else:
            self.send_header("Connection", "close")
        self.end_headers()
        piece = b"x" * (1024 * 1024)
        left = size
        while left > 0 and not owner._stopping.is_set():
            chunk = piece[: min(left, len(piece))]
            self.wfile.write(chunk)
            left -= len(chunk)
            with owner._lock:
                owner.flooded += len(chunk)
        self.close_connection = True

    def _read_request(self, raw: bytes) -> RecordedRequest:
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = None
        return RecordedRequest(
            method=self.command,
            path=self.path,
            headers={k.lower(): v for k, v in self.headers.items()},
            body=body,
            raw_body=raw,
            received=time.time(),
        )

    def _send_error(self, code: int, message: str, headers: Sequence[tuple[str, str]] = ()) -> None:
        data = json.dumps({"error": {"message": message, "type": "server_error", "code": code}})
        self._send(code, data.encode(), "application/json", headers)

    def _send(
        self,
        code: int,
        data: bytes,
        content_type: str,
        headers: Sequence[tuple[str, str]] = (),
    ) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()


def main(argv: Sequence[str] | None = None) -> int:
    """Serve recorded answers for one task until interrupted; print the base URL first."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--task", default="HumanEval/0", help="task id or entry point")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--versions", type=Path, default=None,
                        help="serve these versions (a JSON list of code) instead of a task's")
    parser.add_argument("--language", default="python", help="the fence of --versions")
    args = parser.parse_args(argv)
    task = (RecordedTask.from_versions(args.versions, args.language) if args.versions
            else RecordedTask.load(args.task, args.data))
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    with ChatServer(default=task, port=args.port) as server:
        print(server.base_url, flush=True)
        while not stop.wait(0.5):
            pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
