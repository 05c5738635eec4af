"""Real functions with hand-written versions, through every front end: ran, right, silent.

``bench/data/real_functions.json`` holds sets of versions of real functions of the fixture
repositories (``tests/fixtures/repos/``: boltons, more-itertools, humanize, markupsafe):
the function's own code (read from its file) and hand-written versions (a rewrite, a
realistic bug), with what a correct check says of them (``differ``: a bug is among them;
``agree``: every version does the same). The functions are of every kind the issue of real
code raises: plain functions, methods whose doctest builds their instance, generators,
functions without doctests, functions using their module's helpers and constants, modules
with relative imports.

For each repository a copy of it is made a workspace (twice: one per front end, so neither
reads the other's remembered run); the versions are imported with ``codequorum sample
--from``, then

- ``check``: ``codequorum check --dynamic --format json`` on the repository's files, one
  process;
- ``mcp``: the real ``codequorum mcp`` process over stdio (the SDK's client), one
  ``check_function`` call with ``dynamic`` per function.

Per front end: **ran** (a version ran on an input), **right** (ran, and ``divergent-outputs``
is among the verdicts exactly when the set is expected to differ), **silent** (did not run,
with the reason given), and the functions where the two front ends' verdicts differ.

    .venv/bin/python bench/bench_real_functions.py [--json] [--only NAME ...] [-v]
    .venv/bin/python bench/bench_real_functions.py --smoke   # two functions: a function, a method
    .venv/bin/python bench/bench_real_functions.py --sandbox portable  # both front ends there
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPOS = HERE.parent / "tests" / "fixtures" / "repos"
DATA = HERE / "data" / "real_functions.json"
SCRIPT = Path(sys.executable).parent / "codequorum"
#: What a run says of versions that part ways.
DIVERGENT = "divergent-outputs"
#: Two functions, one a method, for ``--smoke``.
SMOKE = ("take", "Markup.striptags")


@dataclass(frozen=True)
class Case:
    """One function of a repository and its hand-written versions."""

    repo: str
    path: str
    function: str
    expect: str
    note: str
    versions: tuple[str, ...]


@dataclass
class Outcome:
    """What one front end said of one function."""

    ran: bool
    verdicts: tuple[str, ...]
    not_run: str | None = None
    parting: str | None = None

    def right(self, expect: str) -> bool:
        return self.ran and ((DIVERGENT in self.verdicts) == (expect == "differ"))


@dataclass
class Tally:
    """Counts of one front end."""

    functions: int = 0
    ran: int = 0
    right: int = 0
    silent: int = 0
    wrong: list[str] = field(default_factory=list)
    silent_reasons: dict[str, str] = field(default_factory=dict)


def load_cases(only: Iterable[str] = ()) -> list[Case]:
    """The cases of the data file (those named in ``only`` when given)."""
    raw = json.loads(DATA.read_text(encoding="utf-8"))["cases"]
    cases = [Case(c["repo"], c["path"], c["function"], c["expect"], c["note"],
                  tuple(v["code"] for v in c["versions"])) for c in raw]
    names = set(only)
    return [c for c in cases if not names or c.function in names]


def environment(config: Path) -> dict[str, str]:
    """The commands' environment: a configuration folder of this run (the approvals the
    imports record), nothing of the developer's."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CODEQUORUM")}
    env["XDG_CONFIG_HOME"] = str(config)
    return env


def original(ws: Path, case: Case) -> str:
    """The function's own code, as its file has it."""
    from codequorum.core.parsing import function_by_name
    from codequorum.pipeline.session import current_code

    text = (ws / case.path).read_text(encoding="utf-8")
    info = function_by_name(text, "python", case.function)
    if info is None:
        raise SystemExit(f"{case.path} has no `{case.function}`")
    return current_code(text, info)


def workspace(root: Path, repo: str, cases: list[Case], env: dict[str, str]) -> Path:
    """A copy of the repository made a workspace, with every case's versions (the
    original first) imported through ``codequorum sample --from``."""
    ws = root / repo
    shutil.copytree(REPOS / repo, ws)
    (ws / ".git").mkdir()
    for i, case in enumerate(c for c in cases if c.repo == repo):
        source = root / f"{repo}-{i}.json"
        source.write_text(json.dumps([original(ws, case), *case.versions]), encoding="utf-8")
        subprocess.run([str(SCRIPT), "sample", str(ws / case.path), "-f", case.function,
                        "--from", str(source), "--workspace", str(ws), "-q"],
                       env=env, check=True, capture_output=True, text=True)
    return ws


def run_check(ws: Path, cases: list[Case], env: dict[str, str],
              sandbox: str = "auto") -> dict[str, Outcome]:
    """``codequorum check --dynamic --format json`` on the files of the cases."""
    files = sorted({str(ws / c.path) for c in cases})
    done = subprocess.run([str(SCRIPT), "check", *files, "--dynamic", "--format", "json",
                           "--fail-on", "never", "--workspace", str(ws), "--sandbox", sandbox],
                          env=env, capture_output=True, text=True, cwd=ws)
    if done.returncode != 0:
        raise SystemExit(f"check failed ({done.returncode}): {done.stderr[-2000:]}")
    doc = json.loads(done.stdout)
    out: dict[str, Outcome] = {}
    for row in doc["functions"]:
        out[row["function"]] = Outcome(row["not_run"] is None, tuple(row["verdicts"]),
                                       row["not_run"])
    return out


async def run_mcp(ws: Path, cases: list[Case], env: dict[str, str],
                  sandbox: str = "auto") -> dict[str, Outcome]:
    """``check_function`` with ``dynamic`` for each case, through the real MCP server."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=str(SCRIPT), args=["mcp", str(ws), "--sandbox",
                                                              sandbox], cwd=str(ws), env=env)
    out: dict[str, Outcome] = {}
    with open(os.devnull, "w") as errlog:
        async with (stdio_client(params, errlog=errlog) as (read, write),
                    ClientSession(read, write) as session):
            await session.initialize()
            for case in cases:
                result = await session.call_tool("check_function", {
                    "path": case.path, "function": case.function, "dynamic": True})
                data: dict[str, Any] = result.structured_content or {}
                if result.is_error or not data:
                    text = "".join(getattr(b, "text", "") for b in result.content)
                    out[case.function] = Outcome(False, (), f"error: {text[:200]}")
                    continue
                codes = [f["code"] for f in data.get("findings", [])]
                if data.get("verdict"):
                    codes.append(data["verdict"])
                dyn = data.get("dynamic") or {}
                parting = data.get("parting_input") or {}
                out[case.function] = Outcome(bool(dyn.get("ran")), tuple(dict.fromkeys(codes)),
                                             dyn.get("not_run"), json.dumps(parting)[:300])
    return out


def tally(cases: list[Case], outcomes: dict[str, Outcome]) -> Tally:
    """The counts of one front end over the cases."""
    t = Tally()
    for case in cases:
        t.functions += 1
        got = outcomes.get(case.function) or Outcome(False, (), "not reported")
        t.ran += got.ran
        if got.right(case.expect):
            t.right += 1
        elif got.ran:
            t.wrong.append(f"{case.function} (expected {case.expect}, got "
                           f"{', '.join(got.verdicts) or 'no verdict'}"
                           f"{'; ' + got.parting if got.parting else ''})")
        if not got.ran:
            t.silent += 1
            t.silent_reasons[case.function] = got.not_run or "no reason given"
    return t


def disagreements(cases: list[Case], check: dict[str, Outcome],
                  mcp: dict[str, Outcome]) -> list[str]:
    """The functions where the two front ends ran differently or gave other verdicts on
    behaviour."""
    out = []
    for case in cases:
        a, b = check.get(case.function), mcp.get(case.function)
        if a is None or b is None:
            continue
        if a.ran != b.ran or (DIVERGENT in a.verdicts) != (DIVERGENT in b.verdicts):
            out.append(case.function)
    return out


def measure(cases: list[Case], sandbox: str = "auto") -> dict[str, Any]:
    """Every case through both front ends, in workspaces of a temporary folder, the
    versions run at the sandbox level ``sandbox``."""
    check: dict[str, Outcome] = {}
    mcp: dict[str, Outcome] = {}
    with tempfile.TemporaryDirectory(prefix="cq-real-") as tmp:
        root = Path(tmp)
        env = environment(root / "config")
        for repo in sorted({c.repo for c in cases}):
            mine = [c for c in cases if c.repo == repo]
            check.update(run_check(workspace(root / "check", repo, mine, env), mine, env,
                                   sandbox))
            mcp.update(asyncio.run(run_mcp(workspace(root / "mcp", repo, mine, env), mine,
                                           env, sandbox)))
    tallies = {"check": tally(cases, check), "mcp": tally(cases, mcp)}
    return {"functions": len(cases),
            "front_ends": {name: {"ran": t.ran, "right": t.right, "silent": t.silent,
                                  "wrong": t.wrong, "silent_reasons": t.silent_reasons}
                           for name, t in tallies.items()},
            "disagree": disagreements(cases, check, mcp)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--smoke", action="store_true", help="two functions: a function, a method")
    parser.add_argument("--only", nargs="*", default=(), help="these functions only")
    parser.add_argument("-v", "--verbose", action="store_true", help="say what went wrong")
    parser.add_argument("--sandbox", choices=("auto", "strict", "portable"), default="auto",
                        help="the level both front ends run the versions at")
    args = parser.parse_args(argv)
    cases = load_cases(SMOKE if args.smoke else args.only)
    result = measure(cases, args.sandbox)
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        print()
        return 0
    print(f"{result['functions']} functions from "
          f"{len({c.repo for c in cases})} repositories")
    print_front_ends(result, args.verbose)
    return 0


def print_front_ends(result: dict[str, Any], verbose: bool) -> None:
    """Each front end's ran / right / silent (with the wrong and silent ones when
    ``verbose``) and where the front ends disagree."""
    print(f"{'front end':10} {'ran':>4} {'right':>6} {'silent':>7}")
    for name, t in result["front_ends"].items():
        print(f"{name:10} {t['ran']:4} {t['right']:6} {t['silent']:7}")
        if verbose:
            for line in t["wrong"]:
                print(f"    wrong: {line}")
            for fn, why in t["silent_reasons"].items():
                print(f"    silent: {fn}: {why}")
    print(f"front ends disagree on {len(result['disagree'])}: "
          f"{', '.join(result['disagree']) or '-'}")


if __name__ == "__main__":
    raise SystemExit(main())
