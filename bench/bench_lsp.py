"""Language-server benchmark, measured over the real protocol.

Starts ``python -m codequorum lsp`` and talks JSON-RPC to it over its stdin/stdout with a
small client in this file, so the figures include framing, JSON and the event loop:

1. hover on a function whose report is cached: p50 / p95 / max round trip;
2. diagnostics after ``didSave`` for a file of 20 functions with 5 samples each (real
   CodeGen samples of 20 HumanEval tasks; structural metrics): time from sending
   ``didSave`` to receiving ``publishDiagnostics`` — "cold" when every function's code
   changed (20 analyses), "warm" when nothing changed (cached);
3. resident memory (VmRSS of the server) after 100 and after 1,000 edit/save cycles.

Usage: ``python bench/bench_lsp.py [--cycles 1000] [--hovers 300] [--json out.json] [--smoke]``
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from reference_data import DATA, REPO
from reference_data import rows as data_rows


class Client:
    """A minimal LSP client over a child process's stdio."""

    def __init__(self, cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
        env = env or {**os.environ, "PYTHONPATH": str(REPO / "server")}
        self.proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=cwd,
            env=env,
        )
        self._next = 0
        self._responses: dict[int, queue.Queue[dict[str, Any]]] = {}
        self._lock = threading.Lock()
        self.notifications: queue.Queue[dict[str, Any]] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        stream = self.proc.stdout
        assert stream is not None
        while True:
            length = 0
            while True:
                line = stream.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.partition(b":")
                if name.lower() == b"content-length":
                    length = int(value)
            message = json.loads(stream.read(length))
            if "id" in message and "method" in message:  # a request from the server
                self._send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            elif "id" in message:
                with self._lock:
                    q = self._responses.get(message["id"])
                if q is not None:
                    q.put(message)
            else:
                self.notifications.put(message)

    def _send(self, payload: dict[str, Any]) -> None:
        body = json.dumps(payload).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def request(self, method: str, params: Any, timeout: float = 60) -> Any:
        with self._lock:
            self._next += 1
            msg_id = self._next
            q: queue.Queue[dict[str, Any]] = queue.Queue()
            self._responses[msg_id] = q
        self._send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        reply = q.get(timeout=timeout)
        with self._lock:
            del self._responses[msg_id]
        if "error" in reply:
            raise RuntimeError(reply["error"])
        return reply.get("result")

    def notify(self, method: str, params: Any) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait_diagnostics(self, uri: str, timeout: float = 60) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            message = self.notifications.get(timeout=max(0.01, deadline - time.monotonic()))
            if (
                message.get("method") == "textDocument/publishDiagnostics"
                and message["params"]["uri"] == uri
            ):
                return dict(message["params"])

    def drain(self) -> None:
        while True:
            try:
                self.notifications.get_nowait()
            except queue.Empty:
                return

    def rss_kib(self) -> int:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise RuntimeError("no VmRSS")

    def close(self) -> None:
        try:
            self.request("shutdown", None, timeout=10)
            self.notify("exit", None)
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()


def build_file(rows: list[dict[str, Any]], rev: int = 0, only: int | None = None) -> str:
    """20 HumanEval functions, each with its sample 0 as the current code; ``rev`` adds a
    statement to every function (or only to function ``only``) so its code changes."""
    parts = ["from typing import List, Tuple, Optional, Any\nimport math\n\n"]
    for i, row in enumerate(rows):
        prompt = row["prompt"]
        body = row["samples"][0].rstrip("\n") + "\n"
        if rev and (only is None or only == i):
            body = f"    _rev = {rev}\n" + body
        head = prompt[prompt.index("def " + row["entry_point"]) :]
        parts.append(head + body + "\n\n")
    return "".join(parts)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cycles", type=int, default=1000)
    parser.add_argument("--hovers", type=int, default=300)
    parser.add_argument("--cold-saves", type=int, default=20)
    parser.add_argument("--functions", type=int, default=20)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--smoke", action="store_true", help="4 functions, a few of each step")
    args = parser.parse_args(argv)
    if args.smoke:
        args.functions, args.cold_saves, args.hovers, args.cycles = 4, 2, 3, 3

    rows = [r for r in data_rows(DATA) if not r["entry_point"].startswith("_")]
    rows = rows[:args.functions]
    results: dict[str, Any] = {"python": sys.version.split()[0], "cpus": os.cpu_count()}

    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp)
        client = Client([sys.executable, "-m", "codequorum", "lsp"], ws)
        client.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": ws.as_uri(),
                "capabilities": {"window": {"workDoneProgress": True}},
                "initializationOptions": {},
            },
        )
        client.notify("initialized", {})
        path = ws / "tasks.py"
        text = build_file(rows)
        path.write_text(text)
        uri = path.as_uri()
        client.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}},
        )
        client.wait_diagnostics(uri)
        for row in rows:
            client.request(
                "workspace/executeCommand",
                {
                    "command": "codequorum.addVersions",
                    "arguments": [
                        uri,
                        row["entry_point"],
                        [row["prompt"] + s for s in row["samples"][1:6]],
                    ],
                },
            )
        client.drain()
        version = 1

        def save(new_text: str) -> float:
            nonlocal version
            version += 1
            client.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [{"text": new_text}],
                },
            )
            client.drain()
            start = time.perf_counter()
            client.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
            while True:  # a publish for an older version may still be on its way
                params = client.wait_diagnostics(uri)
                if params.get("version") == version:
                    return time.perf_counter() - start

        # diagnostics after didSave
        save(build_file(rows, rev=1))  # warm-up: first analyses, compiled helpers
        cold = [save(build_file(rows, rev=r)) * 1000 for r in range(2, 2 + args.cold_saves)]
        same = build_file(rows, rev=1 + args.cold_saves)
        save(same)
        warm = [save(same) * 1000 for _ in range(args.cold_saves)]
        n_diags = len(
            client.request(
                "workspace/executeCommand",
                {
                    "command": "codequorum.analyze",
                    "arguments": [uri, rows[0]["entry_point"]],
                },
            )["versions"]
        )
        results["diagnostics_after_save_ms"] = {
            "functions": len(rows),
            "versions_per_function": 5,
            "versions_scored": n_diags,
            "cold_median": statistics.median(cold),
            "cold_p95": percentile(cold, 95),
            "cold_max": max(cold),
            "warm_median": statistics.median(warm),
            "warm_p95": percentile(warm, 95),
        }

        # hover on a cached function
        line = same.split("\n").index(
            next(ln for ln in same.split("\n") if ln.startswith("def " + rows[3]["entry_point"]))
        )
        pos = {"line": line, "character": 6}
        hover_params = {"textDocument": {"uri": uri}, "position": pos}
        first = client.request("textDocument/hover", hover_params)
        assert first and "versions" in first["contents"]["value"], first
        times = []
        for _ in range(args.hovers):
            start = time.perf_counter()
            client.request("textDocument/hover", hover_params)
            times.append((time.perf_counter() - start) * 1000)
        results["hover_cached_ms"] = {
            "n": len(times),
            "median": statistics.median(times),
            "p95": percentile(times, 95),
            "max": max(times),
        }

        # memory over edit/save cycles (one function edited per cycle, as when typing)
        rss: dict[int, int] = {}
        started = time.perf_counter()
        for cycle in range(1, args.cycles + 1):
            save(build_file(rows, rev=1000 + cycle, only=cycle % len(rows)))
            if cycle in (100, args.cycles) or cycle % 250 == 0:
                rss[cycle] = client.rss_kib()
        results["memory_kib"] = {str(k): v for k, v in rss.items()}
        if 100 in rss and args.cycles in rss:
            results["memory_growth_100_to_last"] = rss[args.cycles] / rss[100] - 1
        results["cycles_seconds"] = time.perf_counter() - started
        client.close()

    print(json.dumps(results, indent=2))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
