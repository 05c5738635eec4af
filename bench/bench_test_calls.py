"""How many calls of a checkout's functions its own tests grade, as they are written.

For every function of the files a glob names in a checkout (a repository ``fetch``ed, or
any folder), the calls of it that the workspace's files make with literal arguments are
read as an editor reads them (``literal_calls`` over the function's module view: its tests
and callers), and counted: the functions with at least one call a test's assertion grades,
the graded calls, and among them those graded through an expression wrapping the call
(``[...range(3)]``, ``bool(is_email(s))``, a matcher's ``.length``). Nothing runs.

Run it with the code to measure on ``PYTHONPATH`` (a worktree of an earlier commit, then
this one) to compare what two versions of the product read of the same tests.

    .venv/bin/python bench/bench_test_calls.py --root CHECKOUT --glob "src/*.ts" [--json]
    .venv/bin/python bench/bench_test_calls.py --smoke   # a checkout of two small files
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any


def calls_of(root: Path, pattern: str) -> list[tuple[str, list[Any]]]:
    """Per function of the files ``pattern`` names under ``root``: its qualified name and
    the literal calls of it the workspace's files make."""
    from codequorum.core.parsing import functions, language_from_path

    out: list[tuple[str, list[Any]]] = []
    for path in sorted(root.glob(pattern)):
        text = path.read_text(encoding="utf-8")
        language = str(language_from_path(path.name))
        for info in functions(text, language):
            name = f"{path.relative_to(root).as_posix()}::{info.qualified_name}"
            out.append((name, _literal_calls(text, path, root, info, language)))
    return out


def _literal_calls(text: str, path: Path, root: Path, info: Any, language: str) -> list[Any]:
    if language == "python":
        from codequorum.behaviour.callers import literal_calls as python_calls
        from codequorum.ingest.module_view import module_context

        return python_calls(module_context(text, path, root, info.qualified_name, info.kind),
                            info.name)
    from codequorum.behaviour.runtimes.js_callers import literal_calls as js_calls
    from codequorum.ingest.js_module_view import js_module_view

    context = js_module_view(text, path, root).context(info.qualified_name, info.kind)
    return js_calls(context, info.name)


def tally(found: list[tuple[str, list[Any]]]) -> dict[str, int]:
    """Functions, functions with a graded call, graded calls, graded through a wrapper."""
    graded = [[c for c in calls if c.expectation is not None] for _name, calls in found]
    return {
        "functions": len(found),
        "with graded calls": sum(1 for g in graded if g),
        "graded calls": sum(len(g) for g in graded),
        "through a wrapper": sum(1 for g in graded for c in g
                                 if getattr(c, "wrapped", None) is not None),
    }


#: The smoke run's checkout: a module and a test of each language, every form once.
SMOKE = {
    "range.js": "export function* range(n) {\n  for (let i = 0; i < n; i++) yield i;\n}\n",
    "range.test.js": ("import { range } from './range.js';\ntest('r', () => {\n"
                      "  expect([...range(3)]).toEqual([0, 1, 2]);\n"
                      "  expect(range(2)).toBeTruthy();\n});\n"),
    "chunks.py": ("def chunks(xs, n):\n    for i in range(0, len(xs), n):\n"
                  "        yield xs[i:i + n]\n"),
    "test_chunks.py": ("from chunks import chunks\n\n\ndef test_chunks():\n"
                       "    assert list(chunks([1, 2, 3], 2)) == [[1, 2], [3]]\n"),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, help="the checkout")
    parser.add_argument("--glob", help="its files whose functions count")
    parser.add_argument("--json", action="store_true", help="print the counts as JSON")
    parser.add_argument("--smoke", action="store_true", help="a checkout of two small files")
    args = parser.parse_args(argv)
    if args.smoke:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            (root / ".git").mkdir()
            for name, text in SMOKE.items():
                (root / name).write_text(text, encoding="utf-8")
            counts = tally([*calls_of(root, "range.js"), *calls_of(root, "chunks.py")])
    elif args.root is None or args.glob is None:
        parser.error("--root and --glob name what to count (or --smoke)")
    else:
        counts = tally(calls_of(args.root.resolve(), args.glob))
    if args.json:
        print(json.dumps(counts))
    else:
        for key, value in counts.items():
            print(f"{key:>20}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
