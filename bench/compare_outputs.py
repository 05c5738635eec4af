"""Every output a user sees, recorded byte for byte, so that a change meant to change no
behaviour can be shown to change none.

    nice python bench/compare_outputs.py record DIR    # write every output into DIR
    nice python bench/compare_outputs.py compare DIR   # record afresh and compare with DIR
    nice python bench/compare_outputs.py diff DIR_A DIR_B
    python bench/compare_outputs.py --smoke            # two cheap cases recorded

``compare`` and ``diff`` print each file that differs with its first differing line, and
exit 1 when any does. Everything runs through the installed ``codequorum`` (the command
line, the language server over stdio, the MCP server through the SDK's client), in a
scratch folder of its own: a new HOME and configuration folders, a workspace with a
version store made by ``codequorum sample``, and the inputs written from the bundled data
and ``tests/fixtures`` (the CodeGen versions, the published implementations' values). The
cases and what each covers are listed in bench/README.md ("Restructuring guard").

Normalisations (only what is inherently variable from one run to the next): the scratch
folder is a new temporary folder each time, so its path (and its ``file://`` URI) is
written ``<SCRATCH>`` wherever an output shows it; the checkout's own path (the docs a
diagnostic links to) is written ``<REPO>``, so two checkouts compare alike. Nothing else is
touched: no time,
process id or order is taken out. Each record runs its commands with a string-hash seed of
its own (``--hash-seed``, random by default, kept in ``MANIFEST.json``, which is not
compared), so outputs that follow the seed show up as differences.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench_lsp import Client
from reference_data import DATA, REPO, rows
from reference_data import REFERENCE as FIXTURES

DEMO = REPO / "server" / "codequorum" / "data" / "humaneval_demo.jsonl.gz"
MANIFEST = "MANIFEST.json"
SCRATCH_MARK = "<SCRATCH>"
REPO_MARK = "<REPO>"
#: Terminal width of the table (and of everything else rich lays out).
COLUMNS = "120"
FORMATS = {"table": "txt", "json": "json", "jsonl": "jsonl", "csv": "csv", "html": "html"}
VARIANTS: dict[str, list[str]] = {
    "default": [],
    "textual": ["--textual"],
    "tsed-08": ["--tsed-08"],
    "jsd-ln": ["--jsd-log-base", "e"],
}


# ----------------------------------------------------------------------------- scratch


@dataclass
class Scratch:
    """The scratch folder of one record: HOME, configuration, inputs and the workspace."""

    root: Path
    hash_seed: str
    inputs: Path = field(init=False)
    ws: Path = field(init=False)

    def __post_init__(self) -> None:
        self.inputs = self.root / "inputs"
        self.ws = self.root / "ws"
        for folder in (self.inputs, self.root / "home", self.root / "config",
                       self.root / "cache"):
            folder.mkdir(parents=True, exist_ok=True)

    def env(self) -> dict[str, str]:
        """The whole environment of every process the record starts."""
        return {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.root / "home"),
            "XDG_CONFIG_HOME": str(self.root / "config"),
            "XDG_CACHE_HOME": str(self.root / "cache"),
            "LANG": "C.UTF-8",
            "COLUMNS": COLUMNS,
            "LINES": "50",
            "PYTHONHASHSEED": self.hash_seed,
            "PYTHONPATH": str(REPO / "server"),
        }

    def normalise(self, data: bytes) -> bytes:
        """``data`` with the scratch folder's path written :data:`SCRATCH_MARK` and the
        checkout's :data:`REPO_MARK`."""
        for form in (self.root.as_uri(), str(self.root)):
            data = data.replace(form.encode(), SCRATCH_MARK.encode())
        for form in (REPO.as_uri(), str(REPO)):
            data = data.replace(form.encode(), REPO_MARK.encode())
        return data


def codequorum(scratch: Scratch, *args: str, cwd: Path | None = None,
               stdin: bytes | None = None) -> tuple[bytes, bytes]:
    """Run ``codequorum ARGS``: (standard output, exit status and standard error)."""
    proc = subprocess.run([sys.executable, "-m", "codequorum", *args], input=stdin,
                          capture_output=True, cwd=cwd or scratch.root, env=scratch.env(),
                          timeout=900, check=False)
    status = f"exit {proc.returncode}\n".encode() + proc.stderr
    return proc.stdout, status


# ----------------------------------------------------------------------------- inputs


def _shared_rows(task_ids: set[str]) -> dict[str, dict[str, Any]]:
    return {row["task_id"]: row for row in rows(DATA) if row["task_id"] in task_ids}


def _versions(row: dict[str, Any], count: int) -> list[str]:
    return [row["prompt"] + s for s in row["samples"][:count]]


def write_fixture_sets(scratch: Scratch) -> None:
    """The reference fixtures as sample sets ``score`` reads: every structural pair, the
    five samples and the 30 real sets; the dynamic reference's solutions with their
    tests. And HumanEval/1 with a version whose result follows the string-hash seed."""
    ref = json.loads((FIXTURES / "structural.json").read_text(encoding="utf-8"))
    sets = [{"task_id": f"pair/{p['name']}", "language": p["lang"], "samples": [p["A"], p["B"]]}
            for p in ref["pairs"]]
    five = ref["five_samples"]
    sets.append({"task_id": f"five/{five['task_id']}", "language": five["lang"],
                 "samples": five["samples"]})
    sets += [{"task_id": f"real/{s['task_id']}", "language": s["lang"], "samples": s["samples"]}
             for s in ref["real_sets"]]
    _write_jsonl(scratch.inputs / "structural.jsonl", sets)
    problems: dict[str, dict[str, Any]] = {}
    with (FIXTURES / "dynamic" / "solutions.jsonl").open(encoding="utf-8") as fh:
        for rec in map(json.loads, fh):
            entry = problems.setdefault(rec["problem_id"], {
                "task_id": rec["problem_id"], "entry_point": "solve", "samples": [],
                "tests": [{"kind": "stdio", "stdin": t["input"], "expected": t["output"]}
                          for t in rec["private_tests"]]})
            entry["samples"].append(rec["generated_solution"])
    _write_jsonl(scratch.inputs / "solutions.jsonl", list(problems.values()))
    row = _shared_rows({"HumanEval/1"})["HumanEval/1"]
    keep = {k: row[k] for k in ("task_id", "prompt", "entry_point", "sample_format")}
    _write_jsonl(scratch.inputs / "hash-order.jsonl",
                 [{**keep, "samples": [row["samples"][i] for i in HASH_ORDER_VERSIONS]}])


#: HumanEval/1 versions, the first zipping two sets of strings into a dict (what it returns
#: follows the string-hash seed of the process that runs it).
HASH_ORDER_VERSIONS = (46, 0, 1, 2)


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


# The workspace's code is the guard's own (not imported from tests/): a test that changes
# must not change what a record and a later comparison are made of.
CLOSE_BODY = (
    "    ordered = sorted(numbers)\n"
    "    return any(b - a < threshold for a, b in zip(ordered, ordered[1:]))\n"
    "\n\ndef untouched(x):\n    return x + 1\n"
)
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
'''
SIGN_VERSIONS = [
    "def sign(x: int) -> int:\n    return (x > 0) - (x < 0)\n",
    "def sign(x: int) -> int:\n    return 1 if x >= 0 else -1\n",
    "def sign(x: int) -> int:\n    return x // abs(x)\n",
    "def sign(x: int) -> int:\n    if x == 0:\n        return 0\n    return 1 if x > 0 else -1\n",
]
UNITS = "SCALE = 2\n"
GEOMETRY = '''from shapes.units import SCALE


def area(w: float, h: float) -> float:
    """The scaled area.

    >>> area(2.0, 3.0)
    12.0
    """
    return w * h * SCALE


class Stack:
    def __init__(self) -> None:
        self.items: list[int] = []

    def push(self, x: int) -> int:
        """Push x; the new size.

        >>> Stack().push(3)
        1
        """
        self.items.append(x)
        return len(self.items)
'''
AREA_VERSIONS = [
    "def area(w: float, h: float) -> float:\n    return SCALE * w * h\n",
    "def area(w: float, h: float) -> float:\n    return (w * h) * SCALE\n",
    "def area(w: float, h: float) -> float:\n    return w * h * 2\n",
    "def area(w: float, h: float) -> float:\n    return (w + h) * SCALE\n",
]
PUSH_VERSIONS = [
    "def push(self, x: int) -> int:\n    self.items.append(x)\n    return len(self.items)\n",
    "def push(self, x: int) -> int:\n    self.items = self.items + [x]\n"
    "    return len(self.items)\n",
    "def push(self, x: int) -> int:\n    self.items.insert(0, x)\n    return len(self.items)\n",
    "def push(self, x: int) -> int:\n    self.items.append(x)\n    return x\n",
]


def build_workspace(scratch: Scratch) -> None:
    """A workspace (a ``.git`` folder marks it) of four modules, with versions of five
    functions kept by ``codequorum sample --from``: HumanEval/0's first five CodeGen
    versions beside a current code unlike them, HumanEval/39's first ten (shapes apart),
    a function whose versions disagree on zero, and a function and a method that use their
    module's names."""
    ws = scratch.ws
    (ws / ".git").mkdir(parents=True, exist_ok=True)
    (ws / "src" / "shapes").mkdir(parents=True, exist_ok=True)
    rows = _shared_rows({"HumanEval/0", "HumanEval/39"})
    row, primes = rows["HumanEval/0"], rows["HumanEval/39"]
    (ws / "src" / "close.py").write_text(row["prompt"] + CLOSE_BODY, encoding="utf-8")
    (ws / "src" / "primes.py").write_text(primes["prompt"] + primes["samples"][0],
                                          encoding="utf-8")
    (ws / "src" / "sign.py").write_text(SIGN, encoding="utf-8")
    (ws / "src" / "shapes" / "__init__.py").write_text("", encoding="utf-8")
    (ws / "src" / "shapes" / "units.py").write_text(UNITS, encoding="utf-8")
    (ws / "src" / "shapes" / "geometry.py").write_text(GEOMETRY, encoding="utf-8")
    stored = [
        ("src/close.py", "has_close_elements", _versions(row, 5)),
        ("src/primes.py", "prime_fib", _versions(primes, 10)),
        ("src/sign.py", "sign", SIGN_VERSIONS),
        ("src/shapes/geometry.py", "area", AREA_VERSIONS),
        ("src/shapes/geometry.py", "Stack.push", PUSH_VERSIONS),
    ]
    for path, name, codes in stored:
        source = scratch.inputs / f"{name.replace('.', '_')}.json"
        source.write_text(json.dumps(codes), encoding="utf-8")
        _out, status = codequorum(scratch, "sample", path, "-f", name, "--from", str(source),
                                  "-q", cwd=ws)
        if not status.startswith(b"exit 0\n"):
            raise SystemExit(f"cannot store the versions of {name}: {status.decode()}")


# ----------------------------------------------------------------------------- cases


Output = dict[str, bytes]
"""File name in the record -> its bytes."""


@dataclass(frozen=True)
class Case:
    """One output (or a few) of the product: its file name and how it is made."""

    name: str
    make: Callable[[Scratch], Output]


def cli_case(name: str, *args: str, cwd: str = "") -> Case:
    """``codequorum ARGS``: standard output in ``name``, status and stderr beside it."""

    def make(scratch: Scratch) -> Output:
        folder = scratch.ws if cwd == "ws" else scratch.root
        out, status = codequorum(scratch, *args, cwd=folder)
        return {name: out, f"{name}.status": status}

    return Case(name, make)


def score_cases() -> Iterator[Case]:
    """``score`` in every format and variant on the bundled data and on a slice of the
    fixtures' CodeGen data; extras of one variant (another width, reasons, matrices, two workers,
    the comparison page, the cluster path)."""
    inputs = {"demo": [str(DEMO)], "slice": [str(DATA), "--limit", "20", "--samples", "10"]}
    for data, where in inputs.items():
        for variant, flags in VARIANTS.items():
            for fmt, ext in FORMATS.items():
                yield cli_case(f"score/{data}/{variant}/{fmt}.{ext}", "score", *where,
                               "--format", fmt, "--color", "never", *flags)
        yield cli_case(f"score/{data}/default/table-reasons.txt", "score", *where,
                       "--reasons", "--color", "never")
        yield cli_case(f"score/{data}/default/json-matrices.json", "score", *where,
                       "--format", "json", "--matrices")
        yield cli_case(f"score/{data}/default/json-jobs2.json", "score", *where,
                       "--format", "json", "--jobs", "2")
    yield Case("score/demo/default/table-80.txt", _narrow_table)
    yield Case("score/slice/default/html-compare.html", _html_compare)
    for fmt, ext in FORMATS.items():
        yield cli_case(f"score/demo/cluster/{fmt}.{ext}", "score", str(DEMO), "--format", fmt,
                       "--color", "never", "--scheduler", "local:2")
    dynamic = [str(DATA), "--limit", "5", "--samples", "5", "--dynamic", "--jobs", "2"]
    for fmt, ext in FORMATS.items():
        yield cli_case(f"score/dynamic/{fmt}.{ext}", "score", *dynamic, "--format", fmt,
                       "--color", "never")
    yield cli_case("score/dynamic/hash-order.json", "score", "inputs/hash-order.jsonl",
                   "--dynamic", "--format", "json")


def _narrow_table(scratch: Scratch) -> Output:
    env = {**scratch.env(), "COLUMNS": "80"}
    proc = subprocess.run([sys.executable, "-m", "codequorum", "score", str(DEMO),
                           "--color", "never"], capture_output=True, cwd=scratch.root,
                          env=env, timeout=900, check=False)
    name = "score/demo/default/table-80.txt"
    return {name: proc.stdout, f"{name}.status": f"exit {proc.returncode}\n".encode()
            + proc.stderr}


def _html_compare(scratch: Scratch) -> Output:
    """The page of the fixtures' slice beside the bundled data's JSON report."""
    other = scratch.inputs / "demo-report.json"
    out, _status = codequorum(scratch, "score", str(DEMO), "--format", "json")
    other.write_bytes(out)
    name = "score/slice/default/html-compare.html"
    page, status = codequorum(scratch, "score", str(DATA), "--limit", "20", "--samples", "10",
                              "--format", "html", "--compare", str(other))
    return {name: page, f"{name}.status": status}


def fixture_cases() -> Iterator[Case]:
    """The reference fixtures as codequorum computes them: SCE, JSD (natural log, as the
    reference), TSED both costs, every pair matrix, at full depth and at depth 10; SCTD,
    DCTD, BEF and outputs of the dynamic reference's solutions run in the sandbox."""
    structural = ["--format", "json", "--matrices", "--jsd-log-base", "e", "--tsed-08"]
    yield cli_case("fixtures/structural.json", "score", "inputs/structural.jsonl", *structural)
    yield cli_case("fixtures/structural-depth10.json", "score", "inputs/structural.jsonl",
                   *structural, "--max-depth", "10")
    yield cli_case("fixtures/dynamic.json", "score", "inputs/solutions.jsonl", "--format",
                   "json", "--matrices", "--dynamic", "--jobs", "2")


def command_cases() -> Iterator[Case]:
    """``demo``, ``check`` (text, JSON, SARIF; with ``--dynamic`` too), ``export``."""
    yield cli_case("demo/table.txt", "demo", "--color", "never")
    for fmt in ("text", "json", "sarif"):
        yield cli_case(f"check/{fmt}.txt", "check", "src", "--format", fmt, "--color", "never",
                       cwd="ws")
        yield cli_case(f"check/dynamic-{fmt}.txt", "check", "src", "--dynamic", "--format", fmt,
                       "--color", "never", cwd="ws")
    yield cli_case("check/close-fail-on-information.txt", "check", "src/close.py",
                   "--fail-on", "information", "--color", "never", cwd="ws")
    yield cli_case("export/all.jsonl", "export", cwd="ws")
    yield cli_case("export/no-current.jsonl", "export", "src/shapes", "--no-current", cwd="ws")
    yield cli_case("export/one-function.jsonl", "export", "-f", "Stack.push", cwd="ws")


# ----------------------------------------------------------------------------- editors


def _lsp_capabilities(hover: str, pull: bool) -> dict[str, Any]:
    text: dict[str, Any] = {
        "hover": {"contentFormat": [hover]},
        "publishDiagnostics": {"relatedInformation": True},
        "codeAction": {"codeActionLiteralSupport": {"codeActionKind": {
            "valueSet": ["quickfix", "refactor.rewrite"]}}, "isPreferredSupport": True},
        "codeLens": {},
    }
    if pull:
        text["diagnostic"] = {}
    return {"general": {"positionEncodings": ["utf-16"]}, "textDocument": text}


def _position(text: str, needle: str) -> dict[str, int]:
    before = text[: text.index(needle)]
    return {"line": before.count("\n"), "character": len(before) - before.rfind("\n") - 1}


def lsp_session(scratch: Scratch, hover: str, pull: bool) -> Output:
    """The language server over stdio on the workspace: initialize, open two documents,
    their diagnostics (pushed, or pulled), hovers, lenses, code actions and the analyze,
    compare and showSample commands, in that order, each answer as the server sent it."""
    ws = scratch.ws
    client = Client([sys.executable, "-m", "codequorum", "lsp"], ws, env=scratch.env())
    out: list[tuple[str, Any]] = []
    try:
        out.append(("initialize", client.request("initialize", {
            "processId": None, "rootUri": ws.as_uri(),
            "workspaceFolders": [{"uri": ws.as_uri(), "name": "ws"}],
            "capabilities": _lsp_capabilities(hover, pull)})))
        client.notify("initialized", {})
        for rel, name in LSP_FUNCTIONS:
            out += _document(client, ws / rel, name, pull)
    finally:
        client.close()
    return {f"lsp/{hover}-{'pull' if pull else 'push'}.json": _dump(out)}


#: The documents the editors open, and the function of each whose answers are recorded.
LSP_FUNCTIONS = [("src/close.py", "has_close_elements"), ("src/primes.py", "prime_fib"),
                 ("src/shapes/geometry.py", "Stack.push")]


def _document(client: Client, path: Path, name: str, pull: bool) -> list[tuple[str, Any]]:
    text = path.read_text(encoding="utf-8")
    uri = path.as_uri()
    rel = path.name
    doc = {"uri": uri}
    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "python", "version": 1, "text": text}})
    if pull:
        diagnostics = client.request("textDocument/diagnostic", {"textDocument": doc})
        items = diagnostics["items"]
    else:
        diagnostics = client.wait_diagnostics(uri, timeout=120)
        items = diagnostics["diagnostics"]
    short = name.rpartition(".")[2]
    at = _position(text, f"def {short}")
    at["character"] += 4
    span = {"start": at, "end": {"line": at["line"], "character": at["character"] + len(short)}}
    return [
        (f"{rel} diagnostics", diagnostics),
        (f"{rel} hover", client.request("textDocument/hover",
                                        {"textDocument": doc, "position": at})),
        (f"{rel} codeLens", client.request("textDocument/codeLens", {"textDocument": doc})),
        (f"{rel} codeAction", client.request("textDocument/codeAction", {
            "textDocument": doc, "range": span, "context": {"diagnostics": items}})),
        (f"{rel} analyze", _command(client, "codequorum.analyze", uri, at)),
        (f"{rel} analyze matrices", _command(client, "codequorum.analyze", {
            "uri": uri, "qualifiedName": name, "matrices": True})),
        (f"{rel} compare", _command(client, "codequorum.compare", uri, at)),
        (f"{rel} showSample 1", _command(client, "codequorum.showSample", uri, name, 1)),
        (f"{rel} showSample consensus", _command(client, "codequorum.showSample", uri, name,
                                                 "consensus")),
    ]


def _command(client: Client, command: str, *arguments: Any) -> Any:
    """A command's result, or the error the server answered with."""
    try:
        return client.request("workspace/executeCommand",
                              {"command": command, "arguments": list(arguments)}, timeout=120)
    except RuntimeError as exc:
        return {"error": exc.args[0]}


def lsp_cases() -> Iterator[Case]:
    """Two editors: one reading markdown hovers and taking pushed diagnostics, one reading
    plain text and pulling them."""
    yield Case("lsp/markdown-push.json", lambda s: lsp_session(s, "markdown", pull=False))
    yield Case("lsp/plaintext-pull.json", lambda s: lsp_session(s, "plaintext", pull=True))


def mcp_session(scratch: Scratch) -> Output:
    """``codequorum mcp`` through the SDK's client: its tools, and compare_versions and
    check_function answers."""
    return {"mcp/session.json": _dump(asyncio.run(_mcp(scratch)))}


async def _mcp(scratch: Scratch) -> list[tuple[str, Any]]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    row = _shared_rows({"HumanEval/39"})["HumanEval/39"]
    params = StdioServerParameters(command=sys.executable, args=["-m", "codequorum", "mcp",
                                                                 str(scratch.ws)],
                                   cwd=str(scratch.ws), env=scratch.env())
    out: list[tuple[str, Any]] = []
    with open(os.devnull, "w") as errlog:
        async with (stdio_client(params, errlog=errlog) as (read, write),
                    ClientSession(read, write) as session):
            init = await session.initialize()
            out.append(("initialize", init.model_dump(mode="json", by_alias=True)))
            tools = await session.list_tools()
            out.append(("tools/list", tools.model_dump(mode="json", by_alias=True)))
            calls: list[tuple[str, dict[str, Any]]] = [
                ("compare_versions", {"versions": _versions(row, 10)}),
                ("compare_versions", {"versions": SIGN_VERSIONS}),
                ("check_function", {"path": "src/close.py", "function": "has_close_elements"}),
                ("check_function", {"path": "src/sign.py", "function": "sign",
                                    "dynamic": True}),
            ]
            for tool, arguments in calls:
                result = await session.call_tool(tool, arguments)
                out.append((tool, result.model_dump(mode="json", by_alias=True)))
    return out


def _dump(value: Any) -> bytes:
    return (json.dumps(value, indent=1, ensure_ascii=False) + "\n").encode()


def all_cases() -> list[Case]:
    return [*score_cases(), *fixture_cases(), *command_cases(), *lsp_cases(),
            Case("mcp/session.json", mcp_session)]


# ----------------------------------------------------------------------------- record


def record(target: Path, jobs: int, hash_seed: str | None, only: list[str]) -> float:
    """Write every output into ``target`` (emptied first); the seconds it took."""
    started = time.monotonic()
    seed = hash_seed if hash_seed is not None else str(random.randrange(1, 2**32))
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    cases = [c for c in all_cases() if not only or any(c.name.startswith(o) for o in only)]
    with tempfile.TemporaryDirectory(prefix="codequorum-guard-") as tmp:
        scratch = Scratch(Path(tmp), seed)
        write_fixture_sets(scratch)
        build_workspace(scratch)
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            for outputs in pool.map(lambda case: case.make(scratch), cases):
                for name, data in outputs.items():
                    path = target / name
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_bytes(scratch.normalise(data))
    seconds = time.monotonic() - started
    manifest = {"hash_seed": seed, "cases": len(cases), "seconds": round(seconds, 1),
                "python": sys.version.split()[0], "commit": _commit()}
    (target / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return seconds


def _commit() -> str:
    proc = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True,
                          text=True, check=False)
    dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain"],
                           capture_output=True, text=True, check=False).stdout.strip()
    return proc.stdout.strip() + (" (with uncommitted changes)" if dirty else "")


def _files(root: Path, only: list[str] | None = None) -> dict[str, Path]:
    files = {str(p.relative_to(root)): p for p in sorted(root.rglob("*"))
             if p.is_file() and p.name != MANIFEST}
    return {k: v for k, v in files.items() if not only or any(k.startswith(o) for o in only)}


def differences(a: Path, b: Path, only: list[str] | None = None) -> list[str]:
    """One line per file that differs (or exists on one side only), with the first line
    where it differs; ``only``: the files whose names start with one of these."""
    left, right = _files(a, only), _files(b, only)
    out = [f"only in {a}: {name}" for name in sorted(set(left) - set(right))]
    out += [f"only in {b}: {name}" for name in sorted(set(right) - set(left))]
    for name in sorted(set(left) & set(right)):
        x, y = left[name].read_bytes(), right[name].read_bytes()
        if x != y:
            out.append(f"differs: {name}: {_first_difference(x, y)}")
    return out


def _first_difference(x: bytes, y: bytes) -> str:
    xs, ys = x.split(b"\n"), y.split(b"\n")
    for number, (p, q) in enumerate(zip(xs, ys, strict=False), start=1):
        if p != q:
            return f"line {number}:\n    - {_show(p)}\n    + {_show(q)}"
    return f"line {min(len(xs), len(ys)) + 1}: one side ends ({len(xs)} vs {len(ys)} lines)"


def _show(line: bytes, limit: int = 240) -> str:
    text = line.decode("utf-8", errors="replace")
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true",
                        help="record two cheap cases into a scratch folder")
    sub = parser.add_subparsers(dest="action")
    for action in ("record", "compare"):
        p = sub.add_parser(action)
        p.add_argument("dir", type=Path)
        p.add_argument("--jobs", type=int, default=2, help="cases at once (default 2)")
        p.add_argument("--hash-seed", default=None,
                       help="PYTHONHASHSEED of every command (default: random per record)")
        p.add_argument("--only", action="append", default=[], metavar="PREFIX",
                       help="only the outputs whose name starts so (e.g. score/demo, lsp)")
    p = sub.add_parser("diff")
    p.add_argument("a", type=Path)
    p.add_argument("b", type=Path)
    args = parser.parse_args(argv)
    if args.smoke:
        return _smoke()
    if args.action is None:
        parser.error("say record, compare or diff")
    if args.action == "diff":
        return _report(differences(args.a, args.b))
    if args.action == "record":
        seconds = record(args.dir, args.jobs, args.hash_seed, args.only)
        print(f"recorded {len(_files(args.dir))} files in {args.dir} ({seconds:.0f} s)")
        return 0
    with tempfile.TemporaryDirectory(prefix="codequorum-guard-now-") as now:
        seconds = record(Path(now), args.jobs, args.hash_seed, args.only)
        print(f"recorded again in {seconds:.0f} s")
        return _report(differences(args.dir, Path(now), args.only))


def _smoke() -> int:
    """Two cheap cases recorded: each writes its output."""
    only = ["demo/", "fixtures/dynamic.json"]
    with tempfile.TemporaryDirectory(prefix="codequorum-guard-smoke-") as tmp:
        seconds = record(Path(tmp), 2, None, only)
        files = _files(Path(tmp))
        empty = [name for name, path in files.items() if path.stat().st_size == 0]
        print(f"recorded {len(files)} files in {seconds:.0f} s"
              + (f"; empty: {empty}" if empty else ""))
        return 1 if len(files) < len(only) or empty else 0


def _report(found: list[str]) -> int:
    for line in found:
        print(line)
    print("identical" if not found else f"{len(found)} differences")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
