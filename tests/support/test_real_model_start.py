"""The local model fixture tells a crash from a slow start (tests/support/real_model.py).

Stand-in servers on 127.0.0.1 play the three ways a start goes wrong: one that dies with
SIGILL on its first completion after it listed its models (a build for instructions the CPU
traps), one that exits before it answers, and one that never answers.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from tests.support.real_model import ModelServer, Unavailable

SERVER = textwrap.dedent('''
    import os, signal, sys
    from http.server import BaseHTTPRequestHandler, HTTPServer
    mode, port = sys.argv[1], int(sys.argv[2])
    if mode == "exit":
        print("loading the model failed", flush=True)
        sys.exit(3)
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass
        def do_GET(self):
            if mode == "silent":
                return
            body = b'{"data": []}'
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        def do_POST(self):
            print("first completion", flush=True)
            os.kill(os.getpid(), signal.SIGILL)
    HTTPServer(("127.0.0.1", port), Handler).serve_forever()
''')


class StandIn(ModelServer):
    """A model server whose command is a stand-in script."""

    mode: str = "sigill"

    def command(self) -> list[str]:
        script = self.log_path.with_name("server.py")
        script.write_text(SERVER, encoding="utf-8")
        return [sys.executable, str(script), self.mode, str(self.port)]


def start(tmp_path: Path, mode: str, timeout: float = 60.0) -> str:
    server = StandIn(Path(sys.executable), tmp_path / "server.log", start_timeout=timeout)
    server.mode = mode
    with pytest.raises(Unavailable) as failed:
        server.start()
    assert server.process is None  # stopped, nothing left running
    return str(failed.value)


def test_a_server_that_dies_on_its_first_completion_says_so(tmp_path: Path) -> None:
    message = start(tmp_path, "sigill")
    assert message.startswith("the model server died on its first completion, after it had "
                              "answered its model list: killed by SIGILL (an illegal instruction")
    assert "first completion" in message.splitlines()[-1]  # the log's tail follows


def test_a_server_that_exits_during_start_gives_its_status(tmp_path: Path) -> None:
    message = start(tmp_path, "exit")
    assert message.startswith("the model server exited during start, before it answered: "
                              "exited with status 3")
    assert "loading the model failed" in message


def test_a_slow_server_is_not_called_a_crash(tmp_path: Path) -> None:
    message = start(tmp_path, "silent", timeout=3.0)
    assert message.startswith("the model server did not answer its model list in 3 s "
                              "(still running: a slow start, not a crash)")
