"""Docstring examples whose evaluation calls the function, read statically as inputs that
run whole in the sandbox (nothing here runs their code: :mod:`ast` only).

:mod:`codequorum.behaviour.examples` reads the examples that are a call with literal
arguments (the fast path: the arguments travel as values). Real doctests seldom are:
``>>> print(ordinalize(1))``, ``>>> list(chunked([1, 2, 3], 2))``, ``>>> sorted(...)``,
``>>> Stats(range(100)).get_quantile(0.5)``, ``>>> s = Stats(...)`` then ``>>> s.mean()``,
after ``>>> from pkg import f``. Each such example becomes a ``TestCase(kind="example")``
holding its code and the examples before it (``setup``, run first as doctest would); the
sandbox runs it in the function's module with the version in the function's place
(``sandbox/doctest_run.py``), and what it shows is compared, graded against the
docstring's expected text where one may grade (doctest's own check, its option flags).

An example is an input when its code names the function (``f(...)``, ``x.f(...)``,
``x.f``) or a name an earlier example bound from code that did; an assignment shows
nothing and only sets up the examples after it.
"""

from __future__ import annotations

import ast
import doctest
from collections.abc import Iterator, Sequence

from codequorum.behaviour.examples import UNREADABLE, doctest_examples, is_literal_call
from codequorum.core.limits import MAX_EXAMPLE_LINE_CHARS
from codequorum.core.model import TestCase

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
#: Examples of one docstring that become inputs, at most.
MAX_EXAMPLES = 24
#: Earlier examples run before one, at most (the nearest ones are kept).
MAX_SETUP = 40
#: Characters of an example's code, at most.
MAX_SOURCE_CHARS = 4000
#: Characters of the earlier examples run before one, at most (the nearest ones kept).
MAX_SETUP_CHARS = 16000
#: Characters of an example's label.
LABEL_CHARS = 80


def _names_in(tree: ast.AST) -> tuple[set[str], set[str]]:
    """(names read, attribute names) anywhere in ``tree``."""
    read: set[str] = set()
    attrs: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            read.add(node.id)
        elif isinstance(node, ast.Attribute):
            attrs.add(node.attr)
    return read, attrs


def _bound_names(tree: ast.Module) -> set[str]:
    """Names a statement binds (assignment targets, imports, ``for`` targets, defs)."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        elif isinstance(node, ast.alias):
            out.add((node.asname or node.name).partition(".")[0])
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
    return out


def _parsed(source: str) -> ast.Module | None:
    if len(source) > MAX_SOURCE_CHARS:
        return None
    try:
        return ast.parse(source, mode="exec")
    except UNREADABLE:
        return None


def _label(tree: ast.Module) -> str:
    """The example's code on one line, without its comments, shortened."""
    try:
        text = "; ".join(line.strip() for line in ast.unparse(tree).splitlines())
    except (ValueError, RecursionError):
        text = "example"
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 3] + "..."


def _flags(example: doctest.Example) -> int:
    flags = 0
    for flag, on in example.options.items():
        flags = flags | flag if on else flags & ~flag
    return flags


def _shows(tree: ast.Module, want: str) -> bool:
    """Whether running the example shows something to compare: it has expected text, or
    it is an expression (an assignment alone only sets up the examples after it)."""
    return bool(want.strip()) or any(isinstance(s, ast.Expr) for s in tree.body)


def _setup(sources: Sequence[str]) -> tuple[str, ...]:
    """The nearest earlier examples, within :data:`MAX_SETUP` and :data:`MAX_SETUP_CHARS`."""
    kept: list[str] = []
    total = 0
    for source in reversed(sources[-MAX_SETUP:]):
        total += len(source)
        if total > MAX_SETUP_CHARS:
            break
        kept.append(source)
    return tuple(reversed(kept))


def _cases(examples: Sequence[doctest.Example], name: str, may_grade: bool,
           ) -> Iterator[TestCase]:
    """The example cases of a docstring's ``examples`` for the function ``name``."""
    tainted = {name}
    sources: list[str] = []
    for example in examples:
        source = example.source
        tree = _parsed(source)
        if tree is None:
            sources.append(source)
            continue
        read, attrs = _names_in(tree)
        calls = name in attrs or bool(read & tainted)
        if calls:
            tainted |= _bound_names(tree)
        if calls and _shows(tree, example.want) and not is_literal_call(source, name):
            want = example.want if may_grade and example.want.strip() else None
            yield TestCase(kind="example", source=source, setup=_setup(sources),
                           expected=want, has_expected=want is not None,
                           flags=_flags(example), name=_label(tree))
        sources.append(source)


def example_cases(fn: FunctionNode, name: str, may_grade: bool) -> list[TestCase]:
    """The examples of ``fn``'s docstring that call ``name`` and that the literal-call
    path does not read, each with the examples before it; expected text only when
    ``may_grade`` (the docstring is the user's)."""
    doc = ast.get_docstring(fn, clean=True)
    if not doc or ">>>" not in doc:
        return []
    doc = "\n".join("" if len(line) > MAX_EXAMPLE_LINE_CHARS else line
                    for line in doc.splitlines())
    out: list[TestCase] = []
    seen: set[str] = set()
    for case in _cases(doctest_examples(doc), name, may_grade):
        if case.source not in seen:
            seen.add(case.source or "")
            out.append(case)
        if len(out) >= MAX_EXAMPLES:
            break
    return out


__all__ = ["MAX_EXAMPLES", "example_cases"]
