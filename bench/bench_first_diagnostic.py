"""Time to the first diagnostic when a real module of 500 functions is opened.

A module is made of the real functions of the fixture repositories
(``tests/fixtures/repos/``: more-itertools, boltons, humanize, markupsafe), their top-level
functions in turn, renamed ``name_2``, ``name_3``... when the module needs more than
there are; each function has three stored versions in the workspace's store (its own
code, the code with a statement added, and one written another way, so that it has a
diagnostic), as ``sample`` or the editor would keep them. The real language server
(``python -m codequorum lsp``) is started over stdio in that workspace, ``didOpen`` sent
with the module's text, and timed: until the first ``publishDiagnostics`` of the
document, and until the first that holds a diagnostic. The same is measured for a
module of 50 functions in the same run: the figure is the ratio (10 would be linear in
the functions).

    .venv/bin/python bench/bench_first_diagnostic.py [--functions 500] [--baseline 50]
        [--repeat 3] [--json]
    .venv/bin/python bench/bench_first_diagnostic.py --smoke   # 40 against 10, once
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench_lsp import Client
from codequorum.core.model import Version
from codequorum.ingest.store import VersionStore, default_store_path

REPOS = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "repos"
MODULES = ("more-itertools/more_itertools/recipes.py", "boltons/boltons/iterutils.py",
           "boltons/boltons/statsutils.py", "humanize/src/humanize/number.py",
           "humanize/src/humanize/time.py", "markupsafe/src/markupsafe/__init__.py")


def real_functions() -> list[tuple[str, str]]:
    """(name, code) of every top-level function of the fixture modules, in order."""
    out: list[tuple[str, str]] = []
    for module in MODULES:
        text = (REPOS / module).read_text(encoding="utf-8")
        for node in ast.parse(text).body:
            if isinstance(node, ast.FunctionDef) and not node.decorator_list:
                code = ast.get_source_segment(text, node)
                if code:
                    out.append((node.name, code + "\n"))
    return out


def renamed(code: str, name: str, new: str) -> str:
    """``code`` defining ``new`` instead of ``name``."""
    return code.replace(f"def {name}(", f"def {new}(", 1)


def module_of(n: int) -> tuple[str, list[tuple[str, str]]]:
    """A module of ``n`` real functions, and (name, code) of each."""
    pool = real_functions()
    functions: list[tuple[str, str]] = []
    for k in range(n):
        name, code = pool[k % len(pool)]
        round_ = k // len(pool)
        new = name if round_ == 0 else f"{name}_{round_ + 1}"
        functions.append((new, renamed(code, name, new)))
    head = "import itertools\nimport math\nfrom collections import deque\n\n\n"
    return head + "\n\n".join(code for _, code in functions), functions


def versions(name: str, code: str) -> Iterator[str]:
    """Three versions of one function, as a model gives them: its own code, one with a
    statement added at the start of its body, and one written another way (a loop over
    its arguments), so the set is not stable and the function has a diagnostic."""
    yield code
    tree = ast.parse(code)
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    fn.body.insert(0, ast.parse("_unused = None").body[0])
    yield ast.unparse(tree) + "\n"
    fn.body = ast.parse(OTHER_WAY).body
    yield ast.unparse(tree) + "\n"


#: The body of the version written another way.
OTHER_WAY = """
found = []
for value in (locals().values()):
    try:
        if value is not None and len(str(value)) > 0:
            found.append(value)
    except (TypeError, ValueError):
        continue
while found and found[-1] is None:
    found.pop()
return found[0] if len(found) == 1 else found
"""


def workspace(root: Path, n: int) -> Path:
    """A workspace holding the module of ``n`` functions and their stored versions."""
    ws = root / f"ws{n}"
    (ws / ".git").mkdir(parents=True)
    text, functions = module_of(n)
    (ws / "module.py").write_text(text, encoding="utf-8")
    store = VersionStore.open(default_store_path(ws))
    try:
        for name, code in functions:
            store.add("module.py", "python", name,
                      [Version(v, origin="imported") for v in versions(name, code)])
    finally:
        store.close()
    return ws


def first_diagnostics(ws: Path, timeout: float) -> dict[str, float]:
    """Seconds from ``didOpen`` to the first ``publishDiagnostics`` of the module and to
    the first holding a diagnostic, through the real server over stdio."""
    env = {**os.environ, "XDG_CONFIG_HOME": str(ws.parent / "config"),
           "XDG_CACHE_HOME": str(ws.parent / "cache")}
    client = Client([sys.executable, "-m", "codequorum", "lsp"], ws, env)
    try:
        client.request("initialize", {
            "processId": os.getpid(), "rootUri": ws.as_uri(),
            "capabilities": {"window": {"workDoneProgress": True}},
            "initializationOptions": {"dynamic": {"enable": False}}})
        client.notify("initialized", {})
        path = ws / "module.py"
        text = path.read_text(encoding="utf-8")
        uri = path.as_uri()
        start = time.perf_counter()
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": text}})
        first = nonempty = None
        deadline = start + timeout
        while nonempty is None and time.perf_counter() < deadline:
            params = client.wait_diagnostics(uri, timeout=deadline - time.perf_counter())
            now = time.perf_counter() - start
            first = now if first is None else first
            if params.get("diagnostics"):
                nonempty = now
        return {"first_publish": first or float("nan"),
                "first_diagnostic": nonempty if nonempty is not None else float("nan")}
    finally:
        client.close()


def measure(sizes: tuple[int, int], repeat: int, timeout: float) -> dict[str, Any]:
    """The median of ``repeat`` openings of each module, and the ratios."""
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="cq-first-") as tmp:
        root = Path(tmp)
        for n in sizes:
            ws = workspace(root, n)
            runs = [first_diagnostics(ws, timeout) for _ in range(repeat)]
            results[str(n)] = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    small, large = (results[str(n)] for n in sizes)
    results["ratio"] = {k: large[k] / small[k] if small[k] else float("nan") for k in small}
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--functions", type=int, default=500)
    parser.add_argument("--baseline", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--smoke", action="store_true", help="40 functions against 10, once")
    args = parser.parse_args(argv)
    if args.smoke:
        args.functions, args.baseline, args.repeat = 40, 10, 1
    results = measure((args.baseline, args.functions), args.repeat, args.timeout)
    if args.json:
        json.dump(results, sys.stdout, indent=2)
        print()
        return 0
    for n in (args.baseline, args.functions):
        r = results[str(n)]
        print(f"{n:4} functions: first publish {r['first_publish'] * 1000:8.0f} ms, "
              f"first diagnostic {r['first_diagnostic'] * 1000:8.0f} ms")
    ratio = results["ratio"]
    print(f"ratio {args.functions}/{args.baseline}: first publish "
          f"{ratio['first_publish']:.1f}x, first diagnostic {ratio['first_diagnostic']:.1f}x "
          f"(linear: {args.functions / args.baseline:.0f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
