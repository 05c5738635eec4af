"""Everything from the agent is untrusted: each bad call is an MCP error with one line, the
server stays up, and nothing outside the workspace is read or written."""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from codequorum.agents.paths import MAX_SOURCE_BYTES
from codequorum.agents.schema import MAX_COMPARE_VERSIONS
from codequorum.ingest.store import default_store_path
from tests.agents.conftest import (
    SCRIPT,
    call,
    mcp_session,
    one_line_error,
    server_env,
)

TWO = ["def f(x):\n    return x\n", "def f(x):\n    return x + 0\n"]


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A readable Python file beside the workspace, never to be read through it."""
    path = tmp_path / "secret.py"
    path.write_text("def secret():\n    return 'do not read'\n", encoding="utf-8")
    return path


async def test_files_the_tools_refuse(sign_ws: Path, outside: Path) -> None:
    (sign_ws / "out_link.py").symlink_to(outside)
    (sign_ws / "sub").mkdir()
    os.mkfifo(sign_ws / "pipe.py")
    (sign_ws / "big.py").write_bytes(b"x = 1\n" * (MAX_SOURCE_BYTES // 6 + 1))
    (sign_ws / "blob.py").write_bytes(b"def f():\n    return 1\n\0\0")
    (sign_ws / "latin.py").write_bytes("def f():\n    return 'é'\n".encode("latin-1"))
    cases = {
        "missing.py": "missing.py: no such file in the workspace",
        "../secret.py": "../secret.py: outside the workspace",
        str(outside): f"{outside}: outside the workspace",
        "out_link.py": "out_link.py: outside the workspace",
        "sub": "sub: a folder, not a regular file",
        "pipe.py": "pipe.py: a FIFO, not a regular file",
        "big.py": f"big.py: {MAX_SOURCE_BYTES // 6 * 6 + 6:,} bytes, over the "
                  f"{MAX_SOURCE_BYTES:,} a file read here may have",
        "blob.py": "blob.py: a binary file, not source code",
        "latin.py": "latin.py: not UTF-8 text (byte 21)",
        "app.txt\0.py": "not a usable path",
    }
    async with mcp_session(sign_ws) as session:
        for tool in ("check_function", "sample_versions"):
            for path, expected in cases.items():
                result = await call(session, tool, {"path": path, "function": "secret"})
                message = one_line_error(result)
                assert expected in message, (tool, path, message)
                assert "do not read" not in message
        missing = await call(session, "check_function", {"path": "app.py", "function": "nope"})
        assert one_line_error(missing) == (
            "app.py: no function `nope`; functions in the file: sign, untouched")
        (sign_ws / "many.py").write_text(
            "".join(f"def f{k}():\n    return {k}\n\n" for k in range(15)), encoding="utf-8")
        many = await call(session, "check_function", {"path": "many.py", "function": "nope"})
        assert one_line_error(many) == (
            "many.py: no function `nope`; functions in the file: "
            + ", ".join(f"f{k}" for k in range(12)) + " and 3 more")
        (sign_ws / "broken.py").write_text("def half(x:\n    return x / 2\n", encoding="utf-8")
        broken = await call(session, "check_function", {"path": "broken.py", "function": "half"})
        assert one_line_error(broken) == (
            "broken.py: no function `half`; the file defines no function; the file does not "
            "parse at line 1 ('(' was never closed), which may hide it")
        language = await call(session, "check_function",
                              {"path": "app.py", "function": "sign", "language": "cobol"})
        assert "cobol" in one_line_error(language)
        still = await call(session, "check_function", {"path": "app.py", "function": "sign"})
    assert not still.is_error


async def test_bad_arguments_are_protocol_errors_of_one_line(sign_ws: Path) -> None:
    calls: dict[tuple[str, str], dict[str, Any]] = {
        ("check_function", "dynamic"): {"path": "app.py", "function": "sign", "dynamic": "yes"},
        ("check_function", "function: missing argument"): {"path": "app.py"},
        ("check_function", "shell: unknown argument"): {"path": "app.py", "function": "sign",
                                                        "shell": "rm"},
        ("check_function", "path"): {"path": 7, "function": "sign"},
        ("compare_versions", "versions"): {"versions": "def f(): pass"},
        ("compare_versions", "most"): {"versions": TWO * (MAX_COMPARE_VERSIONS // 2 + 1)},
        ("compare_versions", "characters"): {"versions": ["x" * 100_001, "y"]},
        ("compare_versions", "in all"): {"versions": ["x" * 100_000] * 11},
        ("sample_versions", "count"): {"path": "app.py", "function": "sign", "count": 11},
        ("sample_versions", "integer"): {"path": "app.py", "function": "sign", "count": 2.5},
    }
    async with mcp_session(sign_ws) as session:
        for (tool, word), arguments in calls.items():
            with pytest.raises(MCPError) as caught:
                await call(session, tool, arguments)
            error = caught.value
            assert error.code == INVALID_PARAMS, (tool, arguments)
            assert error.message.startswith(f"invalid arguments for {tool}: ")
            assert word in error.message and "\n" not in error.message, error.message
            assert len(error.message) <= 1000 and "xxxx" not in error.message
        with pytest.raises(MCPError) as unknown:
            await call(session, "run_shell", {"command": "id"})
        assert unknown.value.code == INVALID_PARAMS
        assert unknown.value.message == ("unknown tool 'run_shell'; the tools are "
                                         "check_function, compare_versions, sample_versions")
        after = await call(session, "compare_versions", {"versions": TWO})
    assert not after.is_error


async def test_an_endpoint_that_is_down_is_one_line_and_makes_no_store(close_ws: Path) -> None:
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    flags = ["--base-url", f"http://127.0.0.1:{port}/v1", "--api-key-env", "", "--model", "m"]
    async with mcp_session(close_ws, *flags) as session:
        result = await call(session, "sample_versions",
                            {"path": "src/close.py", "function": "has_close_elements",
                             "count": 2})
    message = one_line_error(result)
    assert message == (f"cannot reach http://127.0.0.1:{port}/v1: connection refused — is the "
                       "server running?")
    assert not default_store_path(close_ws).exists()


async def test_a_store_that_links_out_is_refused(sign_ws: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    (sign_ws / ".codequorum").rename(elsewhere)
    (sign_ws / ".codequorum").symlink_to(elsewhere, target_is_directory=True)
    async with mcp_session(sign_ws) as session:
        result = await call(session, "check_function", {"path": "app.py", "function": "sign"})
    assert "is a link; the version store is only kept in a folder of the workspace's own" in (
        one_line_error(result))


def test_a_project_file_cannot_choose_the_endpoint(close_ws: Path) -> None:
    """The key is never ignored silently and never stops the server: one warning line, and
    the server starts (and ends here, its input closed) with the user's own endpoint."""
    (close_ws / "codequorum.toml").write_text('[mcp]\nbase-url = "https://llm.example/v1"\n',
                                              encoding="utf-8")
    done = subprocess.run([str(SCRIPT), "mcp", str(close_ws)], cwd=close_ws, input="",
                          capture_output=True, text=True, timeout=60, env=server_env(
                              PATH=os.environ["PATH"], HOME=os.environ.get("HOME", "/")))
    assert done.returncode == 0
    assert done.stdout == ""
    assert done.stderr.startswith('codequorum: warning: codequorum.toml: [mcp] base-url = '
                                  '"https://llm.example/v1": ignored: a project\'s configuration '
                                  "file cannot choose where the API key is sent")
