"""Does the watch cost what the edit costs? Hovers while functions arrive in a large file.

Starts ``python -m codequorum lsp`` twice in this process, once with ``watch = off`` (the
baseline) and once with ``watch = ask`` (the default), and in each opens one document of
6,000 functions (about 600 KB) and a small one, then sends 40 changes that each insert a
function between two others (an assistant's edit), with a hover on the large document and
one on the small document sent right after each change. Prints the hovers' latency (p50,
p95, max) in both runs and their ratio, the functions that arrived (each inserted function;
they are offered together once the changes settle), and what the watch parsed (from the
server's log: whole reads, windows, characters).

    .venv/bin/python bench/bench_watch_cost.py [--functions 6000] [--changes 40] [--rounds 1]
    .venv/bin/python bench/bench_watch_cost.py --smoke   # 50 functions, 3 changes
    .venv/bin/python bench/bench_watch_cost.py --each    # every hover as it comes
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_lsp import Client, percentile

SHAPES = (
    "total = x + {i}\n    for k in range(y):\n        total += k * {j}\n    return total",
    "if x > {i}:\n        return y - {j}\n    return x * {i}",
    "s = str(x)\n    return s[::-1] + '{i}' * {j}",
)


def function(i: int, prefix: str = "f") -> str:
    """One function of about 100 characters, its shape set by ``i``."""
    body = SHAPES[i % 3].format(i=i, j=i % 7)
    return f"def {prefix}_{i}(x, y):\n    {body}\n\n\n"


def position(text: str, offset: int) -> dict[str, int]:
    """The LSP position of a character offset (ASCII text)."""
    line = text.count("\n", 0, offset)
    return {"line": line, "character": offset - (text.rfind("\n", 0, offset) + 1)}


def run(mode: str, functions: int, changes: int, seed: int, each: bool = False
        ) -> dict[str, Any]:
    """One server, one mode: the hovers' latencies (seconds), the offers, the log
    (``each``: every hover's latency on stderr as it comes)."""
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp)
        log = ws / "server.log"
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "server"),
               "XDG_CONFIG_HOME": str(ws / "config"), "XDG_CACHE_HOME": str(ws / "cache")}
        client = Client([sys.executable, "-m", "codequorum", "lsp", "--log-file", str(log),
                         "--log-level", "INFO"], ws, env)
        client.request("initialize", {
            "processId": os.getpid(), "rootUri": ws.as_uri(),
            "capabilities": {"window": {"workDoneProgress": True}},
            "initializationOptions": {"watch": mode, "dynamic": {"auto": False},
                                      "provider": {"baseUrl": "http://127.0.0.1:9/v1",
                                                   "apiKeyEnv": ""}}})
        client.notify("initialized", {})
        text = "".join(function(i) for i in range(functions))
        big, small = (ws / "big.py").as_uri(), (ws / "small.py").as_uri()
        small_text = "".join(function(i) for i in range(5))
        for uri, body in ((big, text), (small, small_text)):
            client.notify("textDocument/didOpen", {"textDocument": {
                "uri": uri, "languageId": "python", "version": 1, "text": body}})

        def hover(uri: str, body: str, at: int) -> float:
            params = {"textDocument": {"uri": uri}, "position": position(body, at)}
            began = time.perf_counter()
            client.request("textDocument/hover", params)
            return time.perf_counter() - began

        opened = time.perf_counter()
        first = hover(big, text, text.index("def f_10(") + 5)
        hover(small, small_text, 5)
        big_hovers: list[float] = []
        small_hovers: list[float] = []
        for n in range(changes):
            starts = [m.start() for m in re.finditer(r"^def ", text, re.M)]
            at = rng.choice(starts)
            new = function(100_000 + n, "arrived")
            client.notify("textDocument/didChange", {
                "textDocument": {"uri": big, "version": n + 2},
                "contentChanges": [{"range": {"start": position(text, at),
                                              "end": position(text, at)}, "text": new}]})
            text = text[:at] + new + text[at:]
            target = rng.choice(starts)
            big_hovers.append(hover(big, text, target + 5))
            small_hovers.append(hover(small, small_text, 5))
            if each:
                print(f"  {mode} {time.perf_counter() - opened:6.2f} s after opening: hover "
                      f"{big_hovers[-1] * 1e3:.1f} ms (large), {small_hovers[-1] * 1e3:.1f} ms "
                      "(small)", file=sys.stderr)
        time.sleep(3.0)  # the last arrivals settle and are offered
        if mode != "off":  # on a busy machine the watch may still be reading: wait for it
            _wait_for_reads(log, changes, settle=3.0, limit=30.0)
        hover(small, small_text, 5)
        client.close()
        lines = log.read_text(encoding="utf-8").splitlines()
        offers = [line for line in lines if "arrived in one edit of" in line]
        read = [line for line in lines if "the watch read a change" in line]
        chars = [int(m.group(1)) for line in read
                 if (m := re.search(r"(\d+) characters", line))]
        whole = sum(int(m.group(1)) for line in read if (m := re.search(r"(\d+) whole", line)))
        return {"first": first, "big": big_hovers, "small": small_hovers,
                "arrived": len(offers), "read": len(read), "chars": chars, "whole": whole,
                "size": len(text)}


def _wait_for_reads(log: Path, changes: int, settle: float, limit: float) -> None:
    """Wait (``limit`` seconds at most) until the server's log says the watch read
    ``changes`` changes, then ``settle`` seconds more for their offer."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        text = log.read_text(encoding="utf-8") if log.exists() else ""
        if text.count("the watch read a change") >= changes:
            time.sleep(settle)
            return
        time.sleep(0.2)


def _figures(values: list[float]) -> str:
    return (f"p50 {statistics.median(values) * 1e3:.1f} ms, p95 "
            f"{percentile(values, 95) * 1e3:.1f} ms, max {max(values) * 1e3:.1f} ms")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--functions", type=int, default=6000)
    parser.add_argument("--changes", type=int, default=40)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=1,
                        help="runs of each mode, taking turns; the hovers of all are pooled")
    parser.add_argument("--smoke", action="store_true", help="50 functions, 3 changes")
    parser.add_argument("--each", action="store_true",
                        help="print every hover's latency and when it came (stderr)")
    args = parser.parse_args(argv)
    if args.smoke:
        args.functions, args.changes = 50, 3
    runs: dict[str, dict[str, Any]] = {}
    for _ in range(args.rounds):  # the modes take turns: a busy neighbour slows both alike
        for mode in ("off", "ask"):
            found = run(mode, args.functions, args.changes, args.seed, args.each)
            if mode not in runs:
                runs[mode] = found
            else:
                for key in ("big", "small", "chars"):
                    runs[mode][key] += found[key]
                for key in ("arrived", "read", "whole"):
                    runs[mode][key] += found[key]
                runs[mode]["first"] = max(runs[mode]["first"], found["first"])
    off, ask = runs["off"], runs["ask"]
    args.changes *= args.rounds
    print(f"{args.functions} functions ({off['size'] // 1000} KB after the changes), "
          f"{args.changes} changes that each insert one ({args.rounds} round(s) of each "
          f"mode); a hover after each change")
    for name, key in (("the large document", "big"), ("a small document", "small")):
        print(f"  hover on {name}: watch off {_figures(off[key])}; watch ask "
              f"{_figures(ask[key])}; p95 ratio "
              f"{percentile(ask[key], 95) / percentile(off[key], 95):.2f}")
    chars = ask["chars"] or [0]
    print(f"  the watch (ask): {ask['arrived']} of {args.changes} inserted functions arrived; "
          f"{ask['read']} changes read, {ask['whole']} whole reads of the document; characters "
          f"parsed per change: median {statistics.median(chars):.0f}, max {max(chars)} "
          f"(the document: {ask['size']})")
    print(f"  first hover, right after the document opened: watch off "
          f"{off['first'] * 1e3:.0f} ms, watch ask {ask['first'] * 1e3:.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
