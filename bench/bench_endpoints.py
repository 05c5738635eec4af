"""Answers accepted per request from a local model, at the defaults and at the old ones.

Starts llama-cpp-python's server with SmolLM2-135M-Instruct on 127.0.0.1 (installed by
``scripts/real-model.sh``; one request at a time, a 1,536-token context), then asks it for
versions of a few ordinary functions twice, in the same run:

- the defaults: one request at a time to a server on this machine, a ``max_tokens`` bound
  from the function's size, a 60 s timeout counted from when a request is sent;
- the old defaults: four requests at once, no ``max_tokens``, the same 60 s timeout (which
  then also counts the time a request waits in the server's queue).

It prints, per setting, the answers accepted per request, the failures by kind, and the
median time per accepted version (a function's wall time over its accepted versions), and
the ratios of the two. Between runs it waits until the server is idle again (an abandoned
request keeps it busy until its answer is complete), and that wait is not counted.

    .venv/bin/python bench/bench_endpoints.py --samples 5
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.support.real_model import MODEL, ModelServer, http_request, server_python  # noqa: E402

from codequorum.core.parsing import functions  # noqa: E402
from codequorum.generate.endpoint import ProviderConfig, answer_budget, regenerate  # noqa: E402
from codequorum.generate.prompting import build_messages  # noqa: E402

MODULE = '''"""Durations, ranges and text helpers."""

import re

UNITS = {"h": 3600, "m": 60, "s": 1}


def parse_duration(text: str) -> int:
    """Seconds in a text like '1h30m'.

    >>> parse_duration('1h30m')
    5400
    """
    total = 0
    for amount, unit in re.findall(r"(\\d+)([hms])", text):
        total += int(amount) * UNITS[unit]
    return total


def clamp(value: int, low: int, high: int) -> int:
    """Value limited to the range from low to high.

    >>> clamp(5, 0, 3)
    3
    """
    return max(low, min(value, high))


def is_palindrome(text: str) -> bool:
    """Whether text reads the same backwards, ignoring case and spaces."""
    letters = [c.lower() for c in text if not c.isspace()]
    return letters == letters[::-1]


def mean(values: list[float]) -> float:
    """The arithmetic mean of values (0.0 for none)."""
    return sum(values) / len(values) if values else 0.0
'''


@dataclass
class Tally:
    """What one setting got over every function."""

    requests: int = 0
    accepted: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    seconds_per_accepted: list[float] = field(default_factory=list)
    wall: float = 0.0

    @property
    def rate(self) -> float:
        return self.accepted / self.requests if self.requests else 0.0


SETTINGS = {
    "defaults": {},
    "old defaults": {"concurrency": 4, "max_tokens": 0},
}


async def run_setting(base_url: str, name: str, versions: int, server: ModelServer) -> Tally:
    tally = Tally()
    for info in functions(MODULE, "python"):
        messages = build_messages(MODULE, "python", info, path="helpers.py")
        config = ProviderConfig(base_url=base_url, model=MODEL, api_key_env=None, seed=100,
                                versions=versions, **SETTINGS[name])  # type: ignore[arg-type]
        started = time.monotonic()
        result = await regenerate(config, messages, versions, "python", info.qualified_name,
                                  budget=answer_budget(info.text))
        wall = time.monotonic() - started
        tally.wall += wall
        tally.requests += versions
        tally.accepted += len(result.accepted)
        tally.failures.update(result.failure_tally())
        if result.accepted:
            tally.seconds_per_accepted.append(wall / len(result.accepted))
        print(f"  {name}: {info.qualified_name}: {result.summary()} in {wall:.1f} s",
              flush=True)
        drain(server)
    return tally


def drain(server: ModelServer) -> None:
    """Wait until the server has finished every request it was given (it answers one at a
    time, so a one-token request returns when the queue is empty)."""
    body = json.dumps({"model": MODEL, "max_tokens": 1,
                       "messages": [{"role": "user", "content": "Hi"}]}).encode()
    http_request("127.0.0.1", server.port, "POST", "/v1/chat/completions", body, timeout=900)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--samples", type=int, default=5, help="versions per function")
    parser.add_argument("--smoke", action="store_true", help="check the script loads, then stop")
    args = parser.parse_args()
    if args.smoke:
        print("skipped: needs the local model server (scripts/real-model.sh), which a smoke "
              "run does not start")
        return 0
    log = Path(tempfile.mkdtemp()) / "server.log"
    with ModelServer(server_python(), log) as server:
        tallies = {name: asyncio.run(run_setting(server.base_url, name, args.samples, server))
                   for name in SETTINGS}
    for name, tally in tallies.items():
        median = (statistics.median(tally.seconds_per_accepted)
                  if tally.seconds_per_accepted else float("nan"))
        kinds = ", ".join(f"{n} {kind}" for kind, n in tally.failures.most_common()) or "none"
        print(f"{name}: {tally.accepted}/{tally.requests} accepted "
              f"({tally.rate:.2f} per request); failures: {kinds}; median "
              f"{median:.1f} s per accepted version; {tally.wall:.0f} s in all")
    new, old = tallies["defaults"], tallies["old defaults"]
    if old.rate:
        print(f"accepted per request, defaults / old defaults: {new.rate / old.rate:.2f}x")
    if new.seconds_per_accepted and old.seconds_per_accepted:
        ratio = (statistics.median(old.seconds_per_accepted)
                 / statistics.median(new.seconds_per_accepted))
        print(f"time per accepted version, old defaults / defaults: {ratio:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
