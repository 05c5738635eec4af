"""Fixtures for the agent tools: a workspace with a real store, the real ``codequorum mcp``
process driven by the SDK's own client over stdio, and a chat-completions endpoint.

The endpoint is a fixture of its own (:class:`Endpoint`: a base URL and a model), so a test
written against the loopback test server runs unchanged against another server, e.g. a real
local model, by adding a parameter to :func:`endpoint`.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_types import CallToolResult

from codequorum.cli.main import main
from tests.support.chat_server import ChatServer, RecordedTask

SCRIPT = Path(sys.executable).parent / "codequorum"
DATA = "humaneval_codegen16b_t0.8.jsonl"

SIGN = '''"""Small helpers."""


def sign(x: int) -> int:
    """The sign of x.

    >>> sign(5)
    1
    >>> sign(-2)
    -1
    """
    if x > 0:
        return 1
    if x < 0:
        return -1
    return 0


def untouched(x):
    return x
'''

#: Versions of ``sign``: the first is the file's code; the third and fourth part ways at 0.
SIGN_VERSIONS = [
    "def sign(x: int) -> int:\n    if x > 0:\n        return 1\n    if x < 0:\n"
    "        return -1\n    return 0\n",
    "def sign(x: int) -> int:\n    return (x > 0) - (x < 0)\n",
    "def sign(x: int) -> int:\n    return 1 if x >= 0 else -1\n",
    "def sign(x: int) -> int:\n    return x // abs(x)\n",
]

CLOSE = '''from typing import List


def has_close_elements(numbers: List[float], threshold: float) -> bool:
    """ Check if in given list of numbers, are any two numbers closer to each other than
    given threshold.
    """
    return False
'''


def store_versions(root: Path, file: Path, name: str, codes: list[str]) -> None:
    """Keep ``codes`` as versions of ``name`` in ``root``'s store, through
    ``codequorum sample --from`` (the keys the editor and ``check`` read)."""
    source = root.parent / f"{root.name}-{name}.json"
    source.write_text(json.dumps(codes), encoding="utf-8")
    try:
        assert main(["sample", str(file), "-f", name, "--from", str(source),
                     "--workspace", str(root)]) == 0
    finally:
        source.unlink()


@pytest.fixture
def sign_ws(tmp_path: Path) -> Path:
    """A workspace whose ``app.py`` has ``sign`` (four stored versions) and ``untouched``
    (none)."""
    root = tmp_path / "ws"
    (root / ".git").mkdir(parents=True)
    (root / "app.py").write_text(SIGN, encoding="utf-8")
    store_versions(root, root / "app.py", "sign", SIGN_VERSIONS)
    return root


@pytest.fixture
def close_ws(tmp_path: Path) -> Path:
    """A workspace with ``src/close.py`` and no store."""
    root = tmp_path / "ws"
    (root / ".git").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "src" / "close.py").write_text(CLOSE, encoding="utf-8")
    return root


@dataclass(frozen=True)
class Endpoint:
    """A chat-completions endpoint the sampling tool is pointed at."""

    base_url: str
    model: str
    recorded: RecordedTask | None = None

    def flags(self) -> list[str]:
        """``codequorum mcp``'s flags for this endpoint (no key is sent)."""
        return ["--base-url", self.base_url, "--model", self.model, "--api-key-env", ""]


@pytest.fixture(params=["loopback"])
def endpoint(request: pytest.FixtureRequest, shared_dir: Path) -> Iterator[Endpoint]:
    """The endpoint ``sample_versions`` asks: the loopback test server answering with real
    CodeGen completions of HumanEval/0 (``has_close_elements``)."""
    task = RecordedTask.load("HumanEval/0", shared_dir / "data" / DATA)
    with ChatServer(default=task, model="codegen") as server:
        yield Endpoint(server.base_url, "codegen", task)


def server_env(**extra: str) -> dict[str, str]:
    """The server's environment: this test's user configuration folder, nothing of the
    developer's."""
    env = {"XDG_CONFIG_HOME": os.environ["XDG_CONFIG_HOME"], "PYTHONUNBUFFERED": "1"}
    env.update(extra)
    return env


@asynccontextmanager
async def mcp_session(root: Path, *flags: str, cwd: Path | None = None,
                      env: dict[str, str] | None = None) -> AsyncIterator[ClientSession]:
    """The real ``codequorum mcp ROOT FLAGS`` over stdio, initialised, with the SDK's
    client."""
    params = StdioServerParameters(command=str(SCRIPT), args=["mcp", str(root), *flags],
                                   cwd=str(cwd or root), env=env or server_env())
    with open(os.devnull, "w") as errlog:
        async with (stdio_client(params, errlog=errlog) as (read, write),
                    ClientSession(read, write) as session):
            await session.initialize()
            yield session


async def call(session: ClientSession, tool: str, arguments: dict[str, Any],
               **kwargs: Any) -> CallToolResult:
    """``tools/call``, typed."""
    result = await session.call_tool(tool, arguments, **kwargs)
    assert isinstance(result, CallToolResult)
    return result


def text_of(result: CallToolResult) -> str:
    """The result's text content."""
    return "".join(getattr(block, "text", "") for block in result.content)


def one_line_error(result: CallToolResult) -> str:
    """An error result's message, checked to be one line without a traceback."""
    assert result.is_error, text_of(result)
    message = text_of(result)
    assert message and "\n" not in message and "Traceback" not in message, message
    return message
