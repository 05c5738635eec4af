"""From an assistant's insertion to the first diagnostic that rests on behaviour.

Starts llama-cpp-python's server with SmolLM2-135M-Instruct on 127.0.0.1 (installed by
``scripts/real-model.sh``; one request at a time, a 1,536-token context) and, per round, a
fresh ``codequorum lsp`` over stdio (pytest-lsp's client, as the editor tests), with the
model as the endpoint, ``watch = auto`` (the offer's click is the user's time, not the
tool's) and the defaults otherwise: five versions, runs on arrival in the strict sandbox.
Each round opens a module whose function has a header and a docstring with an example, and
sends one change that writes its body (an accepted inline completion). The client timestamps
what the server sends:

- settle: from the change to the sampling's progress ``begin`` (the watch's pause, the store
  of the arrived text, the prompt);
- sampling: that progress, ``begin`` to ``end`` (five requests, one at a time);
- to the run: sampling ``end`` to the run's progress ``begin`` (the analysis of the new
  versions, the sandbox's probe, the module's view);
- run: the run's progress, ``begin`` to ``end`` (every version in the sandbox);
- analysis: the run's ``end`` to the first diagnostics published after it;
- total: the change to those diagnostics.

Each round uses its own seed, so the versions differ between rounds; medians are printed.

    .venv/bin/python bench/bench_watch_loop.py --rounds 5
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.support.real_model import MODEL, ModelServer, server_python  # noqa: E402

HEADER = '''"""Durations written as text."""

import re


def parse_duration(text):
    """Seconds in a duration such as 1h30m.

    >>> parse_duration('1h30m')
    5400
    """
'''
BODY = '''    total = 0
    for amount, unit in re.findall(r"(\\d+)([hms])", text):
        total += int(amount) * {"h": 3600, "m": 60, "s": 1}[unit]
    return total
'''
CHECKING = "codequorum: checking parse_duration"
RUNNING = "codequorum: running parse_duration versions"


@dataclass
class Round:
    """When each thing came, in seconds after the change."""

    seed: int
    marks: dict[str, float] = field(default_factory=dict)
    versions: int = 0
    diagnostics: list[str] = field(default_factory=list)

    def part(self, start: str, end: str) -> float | None:
        if start in self.marks and end in self.marks:
            return self.marks[end] - self.marks[start]
        return None


def _progress(client: LanguageClient, title: str) -> tuple[bool, bool]:
    """Whether the progress titled ``title`` began, and whether it ended."""
    for values in client.progress_reports.values():
        if values and getattr(values[0], "title", None) == title:
            return True, any(getattr(v, "kind", "") == "end" for v in values)
    return False, False


async def one_round(base_url: str, seed: int, timeout: float) -> Round:
    """One insertion in a fresh server and workspace."""
    result = Round(seed)
    with tempfile.TemporaryDirectory(prefix="cq-watch-loop-") as tmp:
        ws = Path(tmp) / "ws"
        ws.mkdir()
        env = {**os.environ, "PYTHONPATH": str(REPO / "server"),
               "XDG_CONFIG_HOME": str(Path(tmp) / "config"),
               "XDG_CACHE_HOME": str(Path(tmp) / "cache")}
        config = ClientServerConfig(server_command=[sys.executable, "-m", "codequorum", "lsp"],
                                    server_env=env)
        client = await config.start()
        assert isinstance(client, LanguageClient)
        options = {"provider": {"baseUrl": base_url, "model": MODEL, "apiKeyEnv": "",
                                "seed": seed}, "watch": "auto"}
        caps = types.ClientCapabilities(
            window=types.WindowClientCapabilities(work_done_progress=True),
            text_document=types.TextDocumentClientCapabilities(
                publish_diagnostics=types.PublishDiagnosticsClientCapabilities()))
        try:
            await client.initialize_session(types.InitializeParams(
                capabilities=caps, root_uri=ws.as_uri(), initialization_options=options,
                workspace_folders=[types.WorkspaceFolder(uri=ws.as_uri(), name="ws")]))
            path = ws / "durations.py"
            path.write_text(HEADER, encoding="utf-8")
            uri = path.as_uri()
            client.text_document_did_open(types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1,
                                                     text=HEADER)))
            await asyncio.sleep(2.0)  # the server is settled, the kernels warm
            end = HEADER.count("\n")
            at = types.Position(line=end, character=0)
            began = time.monotonic()
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
                content_changes=[types.TextDocumentContentChangePartial(
                    range=types.Range(start=at, end=at), text=BODY)]))
            await _follow(client, uri, result, began, timeout)
            report = await client.workspace_execute_command_async(types.ExecuteCommandParams(
                command="codequorum.analyze", arguments=[uri, "parse_duration"]))
            result.versions = int((report or {}).get("samples") or 0)
            await asyncio.wait_for(client.shutdown_session(), timeout=30)
        finally:
            process = getattr(client, "_server", None)
            if process is not None and process.returncode is None:
                process.kill()
            # pytest-lsp leaves ``stop`` unannotated: a coroutine returning None
            stop: Callable[[], Awaitable[None]] = client.stop
            await asyncio.wait_for(stop(), timeout=30)
    return result


async def _follow(client: LanguageClient, uri: str, result: Round, began: float,
                  timeout: float) -> None:
    """Poll what the server sent (every 20 ms: the resolution of every mark) until the
    diagnostics after the run."""
    seen_publish: Any = client.diagnostics.get(uri)
    marks = result.marks
    while time.monotonic() - began < timeout:
        now = time.monotonic() - began
        for title, name in ((CHECKING, "sampling"), (RUNNING, "run")):
            start, done = _progress(client, title)
            if start and f"{name} begin" not in marks:
                marks[f"{name} begin"] = now
            if done and f"{name} end" not in marks:
                marks[f"{name} end"] = now
        current = client.diagnostics.get(uri)
        if current is not seen_publish:
            seen_publish = current
            if "run end" in marks and "diagnostics" not in marks:
                marks["diagnostics"] = now
                result.diagnostics = [f"{d.code}" for d in current or []]
                return
        await asyncio.sleep(0.02)


def _median(values: list[float | None]) -> str:
    got = [v for v in values if v is not None]
    return f"{statistics.median(got) * 1000:.0f} ms" if got else "–"


async def main_async(rounds: int, timeout: float) -> int:
    with (tempfile.TemporaryDirectory(prefix="cq-model-") as tmp,
          ModelServer(server_python(), Path(tmp) / "server.log") as server):
        results = [await one_round(server.base_url, seed, timeout)
                   for seed in range(1, rounds + 1)]
    parts = {
        "settle (pause, arrived text stored, prompt)": ("change", "sampling begin"),
        "sampling (5 versions from the local model)": ("sampling begin", "sampling end"),
        "to the run (analysis, sandbox probe, module view)": ("sampling end", "run begin"),
        "run (every version in the strict sandbox)": ("run begin", "run end"),
        "analysis (run end to diagnostics)": ("run end", "diagnostics"),
        "total (change to the first diagnostics after the run)": ("change", "diagnostics"),
    }
    for r in results:
        r.marks["change"] = 0.0
        done = "diagnostics" in r.marks
        print(f"seed {r.seed}: {r.versions} versions stored, "
              + ", ".join(f"{k} {v:.2f} s" for k, v in sorted(r.marks.items(),
                                                               key=lambda kv: kv[1]))
              + ("" if done else " (no diagnostics after a run within the timeout)")
              + f"; diagnostics {r.diagnostics}")
    print(f"medians over {len(results)} rounds:")
    for name, (start, end) in parts.items():
        print(f"  {name}: {_median([r.part(start, end) for r in results])}")
    return 0 if all("diagnostics" in r.marks for r in results) else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=300.0,
                        help="seconds a round may take")
    parser.add_argument("--smoke", action="store_true", help="check the script loads, then stop")
    args = parser.parse_args(argv)
    if args.smoke:
        print("skipped: needs the local model server (scripts/real-model.sh), which a smoke "
              "run does not start")
        return 0
    return asyncio.run(main_async(args.rounds, args.timeout))


if __name__ == "__main__":
    raise SystemExit(main())
