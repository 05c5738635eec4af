"""A version's code with the user's docstring: what a code action puts in place by default.

A Python function's *head* is what stands between its signature and its first statement:
the docstring and the comments and blank lines around it. Replacing a function with a
version keeps the current function's head and takes the version's signature and
statements (the version's own head goes); the editor offers the version as it is as a
second action where the two differ. Read with ``ast`` and ``tokenize`` only: nothing runs.
"""

from __future__ import annotations

import ast
import io
import textwrap
import tokenize
from dataclasses import dataclass

from codequorum.core import pyast


@dataclass(frozen=True)
class Split:
    """A function's text in three parts: ``signature`` (what comes before the function,
    its decorators and ``def`` line(s), up to the line of the colon), ``head`` (the lines
    of the docstring and comments before the first statement, as written) and ``body``
    (the lines from the first statement to the end of the text); ``indent`` is the body's
    indentation."""

    signature: str
    head: list[str]
    body: list[str]
    indent: str


def _function(tree: ast.Module, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The function ``name`` the text defines at its top level (the last, as Python
    keeps it), or None."""
    defs = [n for n in tree.body
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == name]
    return defs[-1] if defs else None


def _colon(code: str, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[int, int] | None:
    """(row, column) of the colon that ends ``fn``'s signature (rows from 1)."""
    depth = 0
    seen_def = False
    tokens = tokenize.generate_tokens(io.StringIO(code).readline)
    for tok in tokens:
        if tok.start[0] < fn.lineno:
            continue
        if not seen_def:
            seen_def = tok.type == tokenize.NAME and tok.string == "def"
            continue
        if tok.type == tokenize.OP and tok.string in "([{":
            depth += 1
        elif tok.type == tokenize.OP and tok.string in ")]}":
            depth -= 1
        elif tok.type == tokenize.OP and tok.string == ":" and depth == 0:
            return tok.start
    return None


def _is_docstring(node: ast.stmt) -> bool:
    return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str))


def split(code: str, name: str) -> Split | None:
    """``code`` (dedented) around its function ``name`` in three parts, or None where it
    cannot be split cleanly (no parse, no such function, a body on the signature's line,
    a first statement that shares a line with the docstring)."""
    try:
        tree = pyast.parse(code)
        fn = _function(tree, name)
        colon = _colon(code, fn) if fn is not None else None
    except (SyntaxError, ValueError, RecursionError, tokenize.TokenError):
        return None
    if fn is None or colon is None:
        return None
    lines = code.split("\n")
    row, col = colon
    after = lines[row - 1][col + 1:].strip()
    if after and not after.startswith("#"):
        return None  # ``def f(x): return x``
    statements = fn.body[1:] if _is_docstring(fn.body[0]) else fn.body
    if statements and fn.body[0] is not statements[0] and (
            statements[0].lineno == fn.body[0].end_lineno):
        return None
    first = statements[0].lineno if statements else None
    if first is not None and lines[first - 1][: statements[0].col_offset].strip():
        return None
    end = fn.end_lineno or len(lines)
    head_end = (first - 1) if first is not None else end
    body = lines[first - 1:] if first is not None else []
    indent_line = lines[first - 1] if first is not None else lines[fn.body[0].lineno - 1]
    indent = indent_line[: len(indent_line) - len(indent_line.lstrip())]
    return Split(signature="\n".join(lines[:row]), head=lines[row:head_end], body=body,
                 indent=indent)


def _reindented(lines: list[str], old: str, new: str) -> list[str]:
    """``lines`` moved from indentation ``old`` to ``new`` (blank lines left blank)."""
    out = []
    for line in lines:
        if not line.strip():
            out.append("")
        elif line.startswith(old):
            out.append(new + line[len(old):])
        else:
            out.append(line)
    return out


def _trimmed(head: list[str]) -> list[str]:
    """A head without the blank lines at its ends."""
    while head and not head[-1].strip():
        head = head[:-1]
    while head and not head[0].strip():
        head = head[1:]
    return head


def with_current_head(current: str, version: str, name: str) -> str | None:
    """``version`` with ``current``'s docstring and leading comments in place of its own
    (both texts of the function ``name``); None when either cannot be split
    (:func:`split`) or the version has no statement of its own to keep."""
    mine = split(textwrap.dedent(current), name)
    theirs = split(textwrap.dedent(version), name)
    if mine is None or theirs is None or not theirs.body:
        return None
    head = _reindented(_trimmed(mine.head), mine.indent, theirs.indent)
    return "\n".join([theirs.signature, *head, *theirs.body])


__all__ = ["Split", "split", "with_current_head"]
