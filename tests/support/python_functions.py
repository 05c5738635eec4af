"""The last function of each code text, parsed: what the readers of versions' uses take."""

from __future__ import annotations

import ast

from codequorum.behaviour.usage_scope import FunctionNode


def last_functions(*codes: str) -> list[FunctionNode]:
    """Each code's last top-level statement, a function definition."""
    out: list[FunctionNode] = []
    for code in codes:
        fn = ast.parse(code).body[-1]
        assert isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
        out.append(fn)
    return out
