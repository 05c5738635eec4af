"""Benchmark: an editor command sent oversized or mistyped arguments, against a normal call.

Each case starts the real ``codequorum lsp`` over stdio (a fresh process, so its peak
resident memory belongs to that case), initializes it on a small workspace, sends one
``workspace/executeCommand`` and waits for the answer, then a hover (the server must still
answer). Printed per case: the answer's latency, the error code, the server's peak resident
memory (``VmHWM`` from ``/proc``), and both as ratios to the normal call
(``codequorum.addVersions`` with three versions, stored).

Cases: ``addSamples [uri, "total", "x" * 10_000_000]`` (a string where a list of versions
belongs), a list of 10 M versions (a 50 MB message, over the size a message may have), a
list of 240 k versions (just under the values a message may hold), one version of 10 MB, an
object with 1 M keys. A message refused before it is decoded is answered with the id at its
head.

Then the same for ``codequorum mcp`` (one JSON-RPC message a line): a ``tools/list`` line of
100 MB (over the size a line may have, read on in chunks and dropped), one nested 100,000
deep and one of 1 M values, against a normal ``tools/list``; after each, a normal
``tools/list`` must be answered.

Run: .venv/bin/python bench/bench_command_args.py [--rounds N]
     .venv/bin/python bench/bench_command_args.py --smoke   # the normal call and one string
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SOURCE = "def total(xs):\n    return sum(xs)\n"
NORMAL = ["def total(xs):\n    return sum(xs)\n", "def total(xs):\n    s = 0\n"
          "    for x in xs:\n        s += x\n    return s\n",
          "def total(xs):\n    return sum(x for x in xs)\n"]


class Client:
    """A bare JSON-RPC client over a server's standard input and output."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.next_id = 0

    async def send(self, message: dict[str, Any] | bytes) -> None:
        body = message if isinstance(message, bytes) else json.dumps(message).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        await self.process.stdin.drain()

    async def read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        length = 0
        while True:
            line = await self.process.stdout.readline()
            if not line:
                raise EOFError("the server closed its output")
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        data: dict[str, Any] = json.loads(await self.process.stdout.readexactly(length))
        return data

    def encode(self, method: str, params: Any) -> bytes:
        """The next request, encoded (so a large one is not timed while it is encoded)."""
        self.next_id += 1
        return json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                           "params": params}).encode()

    async def request(self, method: str, params: Any) -> dict[str, Any]:
        return await self.send_request(self.encode(method, params))

    async def send_request(self, body: bytes) -> dict[str, Any]:
        wanted = self.next_id
        await self.send(body)
        while True:
            message = await self.read()
            if message.get("id") in (wanted, None) and "method" not in message:
                # id null: a message refused before it was decoded, its id not at its head
                return message
            if "method" in message and "id" in message:  # a request of the server's
                await self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})

    async def notify(self, method: str, params: Any) -> None:
        await self.send({"jsonrpc": "2.0", "method": method, "params": params})


def peak_rss_mb(pid: int) -> float:
    """The process's peak resident memory so far (``VmHWM``), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def settled(pid: int) -> None:
    """Wait until the server's peak memory has not grown for two seconds (a minute at
    most)."""
    peaks = [peak_rss_mb(pid)]
    while (len(peaks) < 5 or peaks[-5] != peaks[-1]) and len(peaks) < 120:
        await asyncio.sleep(0.5)
        peaks.append(peak_rss_mb(pid))


@contextlib.asynccontextmanager
async def server(workspace: Path, *command: str
                 ) -> AsyncIterator[asyncio.subprocess.Process]:
    """``codequorum COMMAND`` on pipes, its configuration and cache beside the workspace;
    killed if it outlives the block."""
    env = {**os.environ, "PYTHONPATH": str(HERE.parent / "server"),
           "XDG_CONFIG_HOME": str(workspace.parent / "xdg"),
           "XDG_CACHE_HOME": str(workspace.parent / "cache")}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "codequorum", *command, stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, env=env,
        limit=1 << 24)
    try:
        yield process
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def one_case(workspace: Path, arguments: Callable[[str], list[Any]]
                   ) -> tuple[float, float, str]:
    """(latency in seconds, peak RSS in MB, the answer's outcome) of one command."""
    async with server(workspace, "lsp") as process:
        client = Client(process)
        uri = (workspace / "app.py").as_uri()
        await client.request("initialize", {"processId": os.getpid(), "rootUri":
                                            workspace.as_uri(), "capabilities": {}})
        await client.notify("initialized", {})
        await client.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": SOURCE}})
        await settled(process.pid)  # start-up work in the background is not the call's
        body = client.encode("workspace/executeCommand", {"command": "codequorum.addSamples",
                                                          "arguments": arguments(uri)})
        started = time.perf_counter()  # from the first byte written to the answer read
        answer = await asyncio.wait_for(client.send_request(body), timeout=120)
        latency = time.perf_counter() - started
        del body
        peak = peak_rss_mb(process.pid)
        hover = await asyncio.wait_for(client.request("textDocument/hover", {
            "textDocument": {"uri": uri}, "position": {"line": 0, "character": 5}}), 60)
        assert "error" not in hover, hover
        error = answer.get("error")
        outcome = (f"error {error['code']}: {error['message'][:70]}" if error
                   else f"stored {answer['result']['added']}")
        await client.request("shutdown", None)
        await client.notify("exit", None)
        await asyncio.wait_for(process.wait(), 20)
        return latency, peak, outcome


CASES: dict[str, Callable[[str], list[Any]]] = {
    "normal: 3 versions": lambda uri: [uri, "total", NORMAL],
    "a 10 MB string for the list": lambda uri: [uri, "total", "x" * 10_000_000],
    "a list of 10 M versions": lambda uri: [uri, "total", ["x"] * 10_000_000],
    "a list of 240 k versions": lambda uri: [uri, "total", ["x"] * 240_000],
    "one version of 10 MB": lambda uri: [uri, "total", ["x" * 10_000_000]],
    "an object of 1 M keys": lambda uri: [{"uri": uri, **{f"k{i}": i for i in range(10**6)}}],
}


#: The MCP cases: the parts of one ``tools/list`` line, written one after the other (so
#: a 100 MB line is never held by the benchmark either).
MCP_HEAD = b'{"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"x": '
MCP_CASES: dict[str, Callable[[], list[bytes]]] = {
    "mcp normal: tools/list": lambda: [
        b'{"jsonrpc": "2.0", "id": 2, "method": "tools/list"}\n'],
    "mcp a line of 100 MB": lambda: [MCP_HEAD + b'"', *([b"x" * (1 << 20)] * 100), b'"}}\n'],
    "mcp nested 100,000 deep": lambda: [MCP_HEAD, b"[" * 100_000, b"]" * 100_000, b"}}\n"],
    "mcp 1 M values": lambda: [MCP_HEAD + b"[", b"1," * 999_999 + b"1]}}\n"],
}


async def mcp_case(workspace: Path, parts: Callable[[], list[bytes]]
                   ) -> tuple[float, float, str]:
    """(latency in seconds, peak RSS in MB, the answer's outcome) of one MCP line."""
    async with server(workspace, "mcp", str(workspace)) as process:
        assert process.stdin is not None and process.stdout is not None
        stdin, stdout = process.stdin, process.stdout

        async def line(data: list[bytes]) -> dict[str, Any]:
            for part in data:
                stdin.write(part)
                await stdin.drain()
            answer: dict[str, Any] = json.loads(await stdout.readline())
            return answer

        await line([json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"}}}).encode() + b"\n"])
        stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        await settled(process.pid)
        data = parts()
        started = time.perf_counter()
        answer = await asyncio.wait_for(line(data), timeout=120)
        latency = time.perf_counter() - started
        del data
        peak = peak_rss_mb(process.pid)
        after = await asyncio.wait_for(line(
            [b'{"jsonrpc": "2.0", "id": 3, "method": "tools/list"}\n']), 60)
        assert len(after["result"]["tools"]) == 3, after
        error = answer.get("error")
        outcome = (f"error {error['code']} (id {answer.get('id')}): {error['message'][:60]}"
                   if error else f"{len(answer['result']['tools'])} tools")
        stdin.close()
        await asyncio.wait_for(process.wait(), 20)
        return latency, peak, outcome


async def mcp_async(rounds: int, cases: dict[str, Callable[[], list[bytes]]]) -> None:
    results: dict[str, list[tuple[float, float, str]]] = {name: [] for name in cases}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(rounds):
            for k, (name, parts) in enumerate(cases.items()):
                workspace = Path(tmp) / f"mcp{k}-{len(results[name])}"
                (workspace / ".git").mkdir(parents=True)
                results[name].append(await mcp_case(workspace, parts))
    _table(results, "mcp normal: tools/list")


def _table(results: dict[str, list[tuple[float, float, str]]], normal: str) -> None:
    base_latency = statistics.median(r[0] for r in results[normal])
    base_peak = statistics.median(r[1] for r in results[normal])
    print(f"{'case':32} {'latency':>9} {'x normal':>9} {'peak RSS':>9} {'x normal':>9}  answer")
    for name, found in results.items():
        latency = statistics.median(r[0] for r in found)
        peak = statistics.median(r[1] for r in found)
        print(f"{name:32} {latency * 1000:7.1f}ms {latency / base_latency:9.2f} "
              f"{peak:7.0f}MB {peak / base_peak:9.2f}  {found[-1][2]}")


async def main_async(rounds: int, cases: dict[str, Callable[[str], list[Any]]]) -> None:
    results: dict[str, list[tuple[float, float, str]]] = {name: [] for name in cases}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(rounds):
            for k, (name, arguments) in enumerate(cases.items()):
                workspace = Path(tmp) / f"ws{k}-{len(results[name])}"
                (workspace / ".git").mkdir(parents=True)
                (workspace / "app.py").write_text(SOURCE, encoding="utf-8")
                results[name].append(await one_case(workspace, arguments))
    _table(results, "normal: 3 versions")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--smoke", action="store_true",
                        help="one round of the normal call and the 10 MB string")
    args = parser.parse_args()
    cases, mcp = CASES, MCP_CASES
    if args.smoke:
        args.rounds = 1
        cases = {k: v for k, v in CASES.items()
                 if k in ("normal: 3 versions", "a 10 MB string for the list")}
        mcp = {k: v for k, v in MCP_CASES.items()
               if k in ("mcp normal: tools/list", "mcp nested 100,000 deep")}
    asyncio.run(main_async(args.rounds, cases))
    asyncio.run(mcp_async(args.rounds, mcp))


if __name__ == "__main__":
    main()
