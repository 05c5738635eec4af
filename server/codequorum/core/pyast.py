"""Python syntax trees from text, one thread at a time.

CPython up to 3.12 keeps the depth counter of its AST constructor in one place per
interpreter, not per thread: when a thread building a tree is paused inside it (a garbage
collection that runs Python code lets another thread in) and another thread builds a tree
meanwhile, the first one fails with ``SystemError: AST constructor recursion depth
mismatch`` (CPython issue 106905). The language server, the agents' server and ``check``
read versions, examples and outputs on several threads, so every tree built from text in
codequorum's own process is built here, under one lock. Code that runs in the sandbox's
children (one thread each) uses :mod:`ast` directly.
"""

from __future__ import annotations

import ast
import threading
from typing import Any, Literal, overload

#: Held while a tree is built from text; re-entrant, so a collection that runs in the
#: building thread and reads a tree itself goes on.
_BUILDING = threading.RLock()


@overload
def parse(source: str | bytes, mode: Literal["exec"] = "exec",
          filename: str = "<unknown>") -> ast.Module: ...
@overload
def parse(source: str | bytes, mode: Literal["eval"],
          filename: str = "<unknown>") -> ast.Expression: ...
def parse(source: str | bytes, mode: Literal["exec", "eval"] = "exec",
          filename: str = "<unknown>") -> ast.Module | ast.Expression:
    """:func:`ast.parse` of ``source`` (an ``ast.Module``, or for ``eval`` an
    ``ast.Expression``)."""
    with _BUILDING:
        tree = ast.parse(source, filename, mode)
    assert isinstance(tree, ast.Module | ast.Expression)
    return tree


def literal_eval(node_or_text: str | ast.AST) -> Any:
    """:func:`ast.literal_eval`: a literal read from text (or a tree) as data only."""
    if isinstance(node_or_text, ast.AST):
        return ast.literal_eval(node_or_text)
    return ast.literal_eval(parse(node_or_text.lstrip(" \t"), mode="eval"))
