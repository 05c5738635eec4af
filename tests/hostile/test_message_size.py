"""A client sends messages too large, too many-valued or too deep to decode: the real
language server over stdio refuses each with an Invalid Request error bearing the request's
id (read from the head of its bytes),
without holding the body (its peak memory stays near a normal call's), and answers the
next messages (a hover, then a normal call that stores its versions).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from codequorum.core.limits import MAX_JSON_DEPTH, MAX_MESSAGE_BYTES, MAX_MESSAGE_VALUES

from .conftest import SOURCE, Hostile

VERSIONS = ["def f(x):\n    return 1 + x\n", "def f(x):\n    y = x\n    return y + 1\n"]


class RawClient:
    """JSON-RPC over the server's standard input and output, byte for byte."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.last_id = 0

    async def send(self, body: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        await self.process.stdin.drain()

    def body(self, method: str, params: Any) -> bytes:
        self.last_id += 1
        return json.dumps({"jsonrpc": "2.0", "id": self.last_id, "method": method,
                           "params": params}).encode()

    async def message(self) -> dict[str, Any]:
        """The next message the server writes."""
        assert self.process.stdout is not None
        length = 0
        while (line := await self.process.stdout.readline()) not in (b"\r\n", b""):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        assert length, "the server closed its output"
        message: dict[str, Any] = json.loads(await self.process.stdout.readexactly(length))
        return message

    async def answer_null(self, message: dict[str, Any]) -> None:
        """Answer one of the server's own requests with null."""
        await self.send(json.dumps({"jsonrpc": "2.0", "id": message["id"],
                                    "result": None}).encode())

    async def answer(self) -> dict[str, Any]:
        """The next answer to us (the server's own requests are answered null)."""
        while True:
            message = await self.message()
            if "method" not in message:
                return message
            if "id" in message:
                await self.answer_null(message)

    async def request(self, method: str, params: Any) -> dict[str, Any]:
        await self.send(self.body(method, params))
        return await asyncio.wait_for(self.answer(), 120)

    async def notify(self, method: str, params: Any) -> None:
        await self.send(json.dumps({"jsonrpc": "2.0", "method": method,
                                    "params": params}).encode())


def peak_memory(pid: int) -> int:
    """The process's peak resident memory so far (``VmHWM``), in kB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


async def settled_peak(pid: int) -> int:
    """The peak resident memory once it has not grown for two seconds (work a request
    left in the background included)."""
    peaks = [peak_memory(pid)]
    while len(peaks) < 5 or peaks[-5] != peaks[-1]:
        assert len(peaks) < 240, "the server's memory kept growing for a minute"
        await asyncio.sleep(0.5)
        peaks.append(peak_memory(pid))
    return peaks[-1]


def add_versions(uri: str, versions: Any) -> dict[str, Any]:
    return {"command": "codequorum.addVersions", "arguments": [uri, "f", versions]}


@contextlib.asynccontextmanager
async def opened_server(hostile: Hostile) -> AsyncIterator[tuple[RawClient, str]]:
    """The real language server over stdio in the repository, initialized, with
    ``mod.py`` open (its URI given); shut down as a client shuts it down (exit status 0),
    killed if the test failed first."""
    module = hostile.repo / "mod.py"
    module.write_text(SOURCE, encoding="utf-8")
    uri = module.as_uri()
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "codequorum", "lsp", cwd=hostile.repo, env=hostile.env(),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL, limit=1 << 24)
    client = RawClient(process)
    try:
        await client.request("initialize", {"processId": None, "capabilities": {},
                                            "rootUri": hostile.repo.as_uri()})
        await client.notify("initialized", {})
        await client.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": SOURCE}})
        yield client, uri
        await client.request("shutdown", None)
        await client.notify("exit", None)
        assert await asyncio.wait_for(process.wait(), 30) == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def test_messages_over_the_bounds_are_refused_unread(hostile: Hostile) -> None:
    async with opened_server(hostile) as (client, uri):
        normal = await client.request("workspace/executeCommand",
                                      add_versions(uri, VERSIONS[:1]))
        assert normal["result"]["added"] == 1, normal
        normal_peak = await settled_peak(client.process.pid)  # the analysis it started included

        # Twice the bound: held whole, the body alone would add 64 MB.
        head, tail = client.body("workspace/executeCommand",
                                 add_versions(uri, ["@"])).split(b"@")
        await client.send(head + b"x" * (2 * MAX_MESSAGE_BYTES) + tail)
        refused = await asyncio.wait_for(client.answer(), 120)
        assert refused["id"] == client.last_id and refused["error"]["code"] == -32600, refused
        assert "a message of 64 MB (at most 32 MB are read)" in refused["error"]["message"]
        assert peak_memory(client.process.pid) / normal_peak < 1.1

        many = add_versions(uri, ["x"] * (MAX_MESSAGE_VALUES + 10))
        depth = MAX_JSON_DEPTH + 5
        deep = add_versions(uri, json.loads("[" * depth + "]" * depth))
        for params, said in ((many, "more than 250,000 JSON values"),
                             (deep, f"nested more than {MAX_JSON_DEPTH} levels deep")):
            await client.send(client.body("workspace/executeCommand", params))
            refused = await asyncio.wait_for(client.answer(), 120)
            assert refused["id"] == client.last_id and refused["error"]["code"] == -32600, refused
            assert said in refused["error"]["message"], refused

        hover = await client.request("textDocument/hover", {
            "textDocument": {"uri": uri}, "position": {"line": 0, "character": 4}})
        assert "error" not in hover and hover["id"] == client.last_id, hover
        stored = await client.request("workspace/executeCommand",
                                      add_versions(uri, VERSIONS[1:]))
        assert (stored["result"]["added"], stored["result"]["total"]) == (1, 2), stored


async def _mcp_line(process: asyncio.subprocess.Process, parts: list[bytes]) -> dict[str, Any]:
    """Write one line to ``codequorum mcp`` (in parts) and read its next answer."""
    assert process.stdin is not None and process.stdout is not None
    for part in parts:
        process.stdin.write(part)
        await process.stdin.drain()
    answer: dict[str, Any] = json.loads(await asyncio.wait_for(process.stdout.readline(), 120))
    return answer


async def test_the_agents_server_refuses_lines_over_the_bounds_unread(hostile: Hostile) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "codequorum", "mcp", str(hostile.repo), cwd=hostile.repo,
        env=hostile.env(), stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL, limit=1 << 24)
    tools_list = b'{"jsonrpc": "2.0", "id": 9, "method": "tools/list"}\n'
    try:
        started = await _mcp_line(process, [json.dumps({
            "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "hostile", "version": "1"}}}).encode() + b"\n"])
        assert started["result"]["serverInfo"]["name"] == "codequorum", started
        assert process.stdin is not None
        process.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        listed = await _mcp_line(process, [tools_list])
        assert len(listed["result"]["tools"]) == 3, listed
        normal_peak = await settled_peak(process.pid)

        # A line of 100 MB, written a megabyte at a time: held whole it would add 100 MB.
        head = b'{"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"x": "'
        refused = await _mcp_line(process, [head, *([b"x" * (1 << 20)] * 100), b'"}}\n'])
        assert refused["id"] == 2 and refused["error"]["code"] == -32600, refused
        assert "a message of 100 MB (at most 32 MB are read)" in refused["error"]["message"]
        assert peak_memory(process.pid) - normal_peak < MAX_MESSAGE_BYTES * 1.5 // 1024
        assert (await _mcp_line(process, [tools_list]))["id"] == 9

        depth = MAX_JSON_DEPTH + 5
        many = b"[" + b"1," * (MAX_MESSAGE_VALUES + 10) + b"1]"
        for value, said in ((b"[" * depth + b"]" * depth,
                             f"nested more than {MAX_JSON_DEPTH} levels deep"),
                            (many, "more than 250,000 JSON values")):
            line = b'{"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"x": '
            refused = await _mcp_line(process, [line + value + b"}}\n"])
            assert refused["id"] == 3 and said in refused["error"]["message"], refused
        for junk, code, msg_id in ((b"\xff\xfe\x00{not json\n", -32700, None),
                                   (b'{"jsonrpc": "2.0", "id": 4, "params": {}}\n', -32600, 4),
                                   (b"[1, 2, 3]\n", -32600, None)):
            answer = await _mcp_line(process, [junk])  # never left without an answer
            assert (answer["id"], answer["error"]["code"]) == (msg_id, code), answer
        listed = await _mcp_line(process, [tools_list])
        assert sorted(t["name"] for t in listed["result"]["tools"]) == [
            "check_function", "compare_versions", "sample_versions"]
        assert process.stdin is not None
        process.stdin.close()
        assert await asyncio.wait_for(process.wait(), 30) == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def _answer_and_said(client: RawClient, method: str, params: Any
                           ) -> tuple[dict[str, Any], list[str]]:
    """The answer to a request, and the messages the server showed before it."""
    await client.send(client.body(method, params))
    said: list[str] = []
    while True:
        message = await client.message()
        if message.get("method") == "window/showMessage":
            said.append(message["params"]["message"])
        elif "method" in message and "id" in message:
            await client.answer_null(message)
        elif "method" not in message and message.get("id") == client.last_id:
            return message, said


async def test_a_document_over_the_bound_is_named_once_wherever_its_uri_stands(
        hostile: Hostile) -> None:
    module = hostile.repo / "mod.py"
    module.write_text(SOURCE, encoding="utf-8")
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "codequorum", "lsp", cwd=hostile.repo, env=hostile.env(),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL, limit=1 << 24)
    client = RawClient(process)
    huge = (hostile.repo / "huge [x](command:y).py").as_uri()
    try:
        await client.request("initialize", {"processId": None, "capabilities": {},
                                            "rootUri": hostile.repo.as_uri()})
        await client.notify("initialized", {})
        hover = {"textDocument": {"uri": module.as_uri()}, "position": {"line": 0,
                                                                       "character": 4}}
        await client.notify("textDocument/didOpen", {"textDocument": {
            "uri": module.as_uri(), "languageId": "python", "version": 1, "text": SOURCE}})
        text = "x = 1\n" * (MAX_MESSAGE_BYTES // 6 + 1000)
        for version in (1, 2):  # the same document twice: said once
            await client.notify("textDocument/didOpen", {"textDocument": {
                "uri": huge, "languageId": "python", "version": version, "text": text}})
        late = (hostile.repo / "late.py").as_uri()  # keys sorted: its URI after its text
        await client.send(json.dumps({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                                      "params": {"textDocument": {
                                          "uri": late, "languageId": "python", "version": 1,
                                          "text": text}}}, sort_keys=True).encode())
        # a change of a document never opened, at a path that never ends
        await client.notify("textDocument/didChange", {
            "textDocument": {"uri": "file:///dev/zero", "version": 2},
            "contentChanges": [{"range": {"start": {"line": 0, "character": 0},
                                          "end": {"line": 0, "character": 0}}, "text": "x"}]})
        answer, said = await asyncio.wait_for(
            _answer_and_said(client, "textDocument/hover", hover), 120)
        assert "error" not in answer, answer
        told = [m for m in said if "was not analysed" in m]
        assert len(told) == 2, said
        assert huge in told[0] and "read up to 32 MB" in told[0], told
        assert late in told[1], told
        size = re.search(r"\(([\d.]+) MB\) was not analysed", told[0])
        assert size is not None and 32 < float(size.group(1)) < 40, told
        assert peak_memory(client.process.pid) < 600 * 1024  # /dev/zero was never read
        await client.request("shutdown", None)
        await client.notify("exit", None)
        assert await asyncio.wait_for(process.wait(), 30) == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def test_a_change_of_thousands_of_edits_and_a_request_of_bad_params_are_bounded(
        hostile: Hostile) -> None:
    """One ``didChange`` of 2,000 edits, each a 900-character line inserted at the top: the
    texts between them were all kept for the watch (1.9 GB at 2,000, killed at 8,000); now
    at most 32 MB of them are. A hover at line -1 cannot be read as a hover's parameters:
    it is answered Invalid Params, never left waiting; the server then answers a hover."""
    async with opened_server(hostile) as (client, uri):
        hover = {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 4}}
        assert "error" not in await client.request("textDocument/hover", hover)
        normal_peak = await settled_peak(client.process.pid)
        line = "# " + "x" * 897 + "\n"
        at_top = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}
        await client.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [{"range": at_top, "text": line}] * 2000})
        bad = await client.request("textDocument/hover", {
            "textDocument": {"uri": uri}, "position": {"line": -1, "character": -1}})
        assert bad["id"] == client.last_id and bad["error"]["code"] == -32602, bad
        assert bad["error"]["message"].startswith("invalid params for textDocument/hover: ")
        assert "error" not in await client.request("textDocument/hover", hover)
        assert (await settled_peak(client.process.pid) - normal_peak) / 1024 < 400, "MB"
