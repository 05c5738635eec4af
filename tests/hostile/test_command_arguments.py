"""Commands sent oversized or mistyped arguments: the real language server over stdio answers
each with an InvalidParams error (-32602) naming where the arguments go wrong, stores
nothing, and keeps answering (a hover, then a normal call); the MCP server's tools the same
(an invalid-arguments error, then a normal call).
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest
from lsprotocol import types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from pygls.exceptions import JsonRpcException

from ..lsp.conftest import lsp_session
from ..lsp.helpers import command, hover_once, open_document
from .conftest import SOURCE, Hostile

#: Arguments after the document's URI, and what the error names.
BAD_ARGUMENTS: dict[str, tuple[list[Any], str]] = {
    "a 10 MB string for the list": (["f", "x" * 10_000_000],
                                    "$.versions: expected a list, got a string"),
    "a list of 100 k versions": (["f", ["def f(x):\n    return x\n"] * 100_000],
                                 "$.versions: 100,000 items, at most 2,001"),
    "one version of 10 MB": (["f", ["x" * 10_000_000]],
                             "$.versions[0]: 10,000,000 characters, at most 1,048,576"),
    "a number for a version": (["f", [7]],
                               "$.versions[0]: expected a code string or an object, got a "
                               "number"),
    "a list for the name": ([["f"] * 1000, ["def f(x):\n    return x\n"]],
                            "expected a qualified name or a position"),
}


async def test_oversized_and_mistyped_command_arguments_are_invalid_params(
        hostile: Hostile) -> None:
    async with lsp_session(hostile.repo, env={"HOME": str(hostile.home)}) as client:
        uri = open_document(client, hostile.repo / "src" / "mod.py", SOURCE)
        for name in ("codequorum.addSamples", "codequorum.addVersions"):
            for case, (rest, said) in BAD_ARGUMENTS.items():
                with pytest.raises(JsonRpcException) as info:
                    await command(client, name, uri, *rest)
                assert info.value.code == -32602, case
                message = str(info.value.message)
                assert said in message and len(message) < 2000, (case, message)
                await hover_once(client, uri, types.Position(line=0, character=4))
        stored = await command(client, "codequorum.addVersions", uri, "f",
                               ["def f(x):\n    return 1 + x\n"])
        assert (stored["added"], stored["total"]) == (1, 1)  # nothing stored before


INVALID = "invalid arguments for compare_versions"
#: Refused before it is decoded (more values than a message may hold), with the call's id.
UNREAD = "codequorum refused a message of more than"


@pytest.mark.parametrize(("arguments", "said"), [
    ({"versions": "x" * 10_000_000}, f"{INVALID}: versions: Input should be a valid list"),
    ({"versions": ["x"] * 2_000_000}, f"{UNREAD} 250000 JSON values"),
    ({"versions": ["x" * 10_000_000, "y"]}, "at most 100000 characters"),
    ({"versions": [1, 2]}, "valid string"),
])
async def test_the_agent_tools_bound_their_arguments(hostile: Hostile,
                                                     arguments: dict[str, Any],
                                                     said: str) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "codequorum", "mcp"],
                                   cwd=str(hostile.repo), env=hostile.env())
    errlog_path = hostile.home.parent / "mcp.err"
    with errlog_path.open("w") as errlog:
        async with (stdio_client(params, errlog=errlog) as (read, write),
                    ClientSession(read, write) as session):
            await asyncio.wait_for(session.initialize(), 60)
            with pytest.raises(MCPError) as info:
                await asyncio.wait_for(session.call_tool("compare_versions", arguments), 60)
            text = str(info.value)
            assert INVALID in text or UNREAD in text, text[:500]
            assert said in text.replace(",", "") and len(text) < 5000, text[:500]
            good = await asyncio.wait_for(session.call_tool("compare_versions", {
                "versions": ["def f(x):\n    return x + 1\n",
                             "def f(x):\n    return 1 + x\n"]}), 120)
            assert not good.is_error
    assert "Traceback" not in errlog_path.read_text()
