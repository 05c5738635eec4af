"""Real JavaScript and TypeScript functions of npm packages with hand-written versions,
through every front end: ran, right, silent (the JavaScript sibling of
``bench_real_functions.py``).

``bench/data/real_js_functions.json`` names packages at pinned versions (``npm pack``
fetches each at bench time into a temporary folder; nothing is vendored), the function of
each and its hand-written versions (a rewrite, a realistic bug), and small test files in
the package's own style where the tarball carries none (tests of the workspace are where
calls of a function come from). The module styles are those real code has: CommonJS
(``ms``, ``semver``), ESM-only packages (``camelcase@8``, ``escape-string-regexp@5``),
``.mjs`` files (``date-fns``), TypeScript sources (``ts-dedent``, ``tiny-invariant``);
default exports, arrow functions assigned to names, functions exported in an object
literal, a class required from another file, a module that reads ``process.env`` at its
top level.

Each package is unpacked into a workspace (twice: one per front end); the versions, the
function's own code first, are imported with ``codequorum sample --from``, then
``check --dynamic --format json`` and the real ``codequorum mcp`` (``check_function``)
run, as in ``bench_real_functions.py``; the same tallies, and the files of the workspace
are compared before and after (nothing written outside ``.codequorum``).

    .venv/bin/python bench/bench_real_js_functions.py [--json] [--only NAME ...] [-v]
    .venv/bin/python bench/bench_real_js_functions.py --smoke   # two functions
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_real_functions as python_bench  # noqa: E402

DATA = HERE / "data" / "real_js_functions.json"
SCRIPT = python_bench.SCRIPT
#: Two functions, two module styles, for ``--smoke``.
SMOKE = ("hoursToMinutes", "camelCase")


@dataclass(frozen=True)
class JsCase:
    """One function of a package, its hand-written versions and the workspace's extras."""

    package: str
    files: tuple[str, ...] | None
    tests: dict[str, str]
    path: str
    function: str
    expect: str
    versions: tuple[str, ...]

    @property
    def case(self) -> python_bench.Case:
        """The Python bench's view of it (its tallies read these fields)."""
        return python_bench.Case(self.package, self.path, self.function, self.expect, "",
                                 self.versions)


def load_cases(only: tuple[str, ...] = ()) -> list[JsCase]:
    raw = json.loads(DATA.read_text(encoding="utf-8"))["cases"]
    cases = [JsCase(c["package"], tuple(c["files"]) if c["files"] else None, c["tests"],
                    c["path"], c["function"], c["expect"],
                    tuple(v["code"] for v in c["versions"])) for c in raw]
    return [c for c in cases if not only or c.function in only]


def fetch(package: str, into: Path) -> Path:
    """``npm pack package`` into ``into``, unpacked; the package's folder."""
    into.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["npm", "pack", package, "--silent"], cwd=into, capture_output=True,
                          text=True, timeout=300, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"npm pack {package}: {done.stderr.strip()[-300:]}")
    tgz = into / done.stdout.strip().splitlines()[-1]
    folder = into / package.replace("/", "+")
    with tarfile.open(tgz) as tar:
        if hasattr(tarfile, "data_filter"):  # Python 3.11.4 and later
            tar.extractall(folder, filter="data")
        else:
            tar.extractall(folder)  # a registry tarball of a pinned version
    return folder / "package"


def workspace(root: Path, package_dir: Path, cases: list[JsCase], env: dict[str, str]) -> Path:
    """The package as a user's workspace (the files the cases keep, their test files), with
    every case's versions imported (the function's own code first)."""
    from codequorum.core.parsing import function_by_name, language_from_path
    from codequorum.pipeline.session import current_code

    ws = root / cases[0].package.replace("/", "+")
    keep = set().union(*(c.files or () for c in cases)) if all(c.files for c in cases) else None
    shutil.copytree(package_dir, ws, ignore=None if keep is None else (
        lambda folder, names: [n for n in names if (Path(folder) / n).is_file() and
                               (Path(folder) / n).relative_to(package_dir).as_posix()
                               not in keep]))
    (ws / ".git").mkdir()
    for case in cases:
        for rel, text in case.tests.items():
            (ws / rel).parent.mkdir(parents=True, exist_ok=True)
            (ws / rel).write_text(text, encoding="utf-8")
    for i, case in enumerate(cases):
        text = (ws / case.path).read_text(encoding="utf-8")
        info = function_by_name(text, str(language_from_path(case.path)), case.function)
        if info is None:
            raise SystemExit(f"{case.package}: {case.path} has no `{case.function}`")
        source = root / f"{ws.name}-{i}.json"
        source.write_text(json.dumps([current_code(text, info), *case.versions]),
                          encoding="utf-8")
        subprocess.run([str(SCRIPT), "sample", str(ws / case.path), "-f", case.function,
                        "--from", str(source), "--workspace", str(ws), "-q"],
                       env=env, check=True, capture_output=True, text=True)
    return ws


def snapshot(ws: Path) -> dict[str, bytes]:
    """The workspace's files outside the store."""
    return {p.relative_to(ws).as_posix(): p.read_bytes() for p in ws.rglob("*")
            if p.is_file() and ".codequorum" not in p.parts}


def measure(cases: list[JsCase]) -> dict[str, Any]:
    """Every case through ``check`` and the MCP server, in workspaces of a temporary folder."""
    check: dict[str, python_bench.Outcome] = {}
    mcp: dict[str, python_bench.Outcome] = {}
    written: list[str] = []
    with tempfile.TemporaryDirectory(prefix="cq-real-js-") as tmp:
        root = Path(tmp)
        env = python_bench.environment(root / "config")
        for package in sorted({c.package for c in cases}):
            mine = [c for c in cases if c.package == package]
            unpacked = fetch(package, root / "packs")
            plain = [c.case for c in mine]
            ws = workspace(root / "check", unpacked, mine, env)
            before = snapshot(ws)
            check.update(python_bench.run_check(ws, plain, env))
            ws_mcp = workspace(root / "mcp", unpacked, mine, env)
            mcp.update(asyncio.run(python_bench.run_mcp(ws_mcp, plain, env)))
            if snapshot(ws) != before:
                written.append(package)
    plain = [c.case for c in cases]
    tallies = {"check": python_bench.tally(plain, check), "mcp": python_bench.tally(plain, mcp)}
    return {"functions": len(cases),
            "front_ends": {name: {"ran": t.ran, "right": t.right, "silent": t.silent,
                                  "wrong": t.wrong, "silent_reasons": t.silent_reasons}
                           for name, t in tallies.items()},
            "disagree": python_bench.disagreements(plain, check, mcp),
            "workspaces_written": written}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--smoke", action="store_true", help="two functions")
    parser.add_argument("--only", nargs="*", default=(), help="these functions only")
    parser.add_argument("-v", "--verbose", action="store_true", help="say what went wrong")
    args = parser.parse_args(argv)
    if shutil.which("npm") is None:
        print("skipped: npm is not installed (the packages are fetched with npm pack)")
        return 0
    cases = load_cases(SMOKE if args.smoke else tuple(args.only))
    try:
        result = measure(cases)
    except RuntimeError as exc:  # the registry cannot be reached here
        print(f"skipped: {exc}")
        return 0
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        print()
        return 0
    print(f"{result['functions']} functions from "
          f"{len({c.package for c in cases})} npm packages")
    python_bench.print_front_ends(result, args.verbose)
    print(f"workspaces written into: {', '.join(result['workspaces_written']) or 'none'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
