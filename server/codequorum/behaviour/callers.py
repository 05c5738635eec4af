"""Calls of a function with literal arguments found in the files of its module's view and
the other files of the workspace that name it: how its own module, the modules beside it
and its tests call it (read with :mod:`ast`; nothing runs).

Bounded: the files the view holds and the workspace's files that name the function
(``ModuleContext.files`` and ``ModuleContext.callers``, themselves bounded), the
characters of a file parsed, the calls taken (every call a test grades up to
:data:`MAX_GRADED`, and :data:`MAX_CALLS` others: :func:`taken`). A call counts when it
names the function (``f(...)``, ``mod.f(...)``, ``self.f(...)`` for a method,
``humanize.ordinal(...)`` on a package holding the module that the file imports) and its
arguments are literals (:func:`ast.literal_eval`); a call inside the function itself
(recursion) does not. A file named ``test_*.py`` / ``*_test.py`` or under a ``tests``
folder is a test, and what its assertions say a call gives (``assert f(2) == 4``,
``pytest.raises``, and the call ``self.assertRaises(E, f, -1)`` makes:
:mod:`codequorum.behaviour.expectations`) comes with the call; a parametrized test's call
is read once per case (:mod:`codequorum.behaviour.parametrized`). An assertion counts only
where the test runs the call in a plain state (no fixture, nothing called before it that
could change what the function gives: :mod:`codequorum.behaviour.plain_tests`). An
assertion on a call wrapping one bare call of the function (``assert list(f(3)) ==
[0, 1, 2]``, ``len(f(x))``) gives that call's source too, run whole as a doctest example
is.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any, Protocol, TypeVar

from codequorum.behaviour.examples import UNREADABLE
from codequorum.behaviour.expectations import (
    RAISES,
    Expectation,
    Stated,
    exception_name,
    expectations,
    literal,
    truths,
)
from codequorum.behaviour.local_literals import held_literals
from codequorum.behaviour.parametrized import Case, case_bindings
from codequorum.behaviour.plain_tests import plain_calls
from codequorum.core import pyast
from codequorum.core.model import ModuleContext

T = TypeVar("T")


class _Asserted(Protocol):
    """A found call that may carry what a test asserts it gives."""

    @property
    def expectation(self) -> Expectation | None: ...


C = TypeVar("C", bound=_Asserted)

#: Characters of one file parsed for calls, at most.
MAX_FILE_CHARS = 400_000
#: Calls no test grades taken, at most: spread over all those found (:func:`spread`).
MAX_CALLS = 16
#: Calls a test grades taken, at most, beside those: what a test asserts is the best
#: evidence of right and wrong there is, so every one runs up to this bound.
MAX_GRADED = 64
#: Distinct calls read before they are spread, at most.
MAX_FOUND = 400


@dataclass(frozen=True)
class FoundCall:
    """Literal arguments of one call, whether a test made it, where it is
    (``tests/test_app.py:12``), and what the test's assertion says it gives (None: no
    assertion states it)."""

    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    in_test: bool
    where: str = ""
    expectation: Expectation | None = None
    #: where the assertion states what an expression holding this call gives
    #: (``list(f(3))``, ``len(f(x))``, ``bool(is_valid(s))``): its source, run whole as a
    #: doctest example is
    wrapped: str | None = None


def is_test_file(path: str) -> bool:
    """``test_x.py``, ``x_test.py``, ``test.py`` or ``tests.py`` (a Django app's), or a
    file under a ``tests``/``test`` folder."""
    p = PurePosixPath(path)
    return (p.name.startswith("test_") or p.stem.endswith("_test") or p.stem in ("test", "tests")
            or any(part in ("tests", "test") for part in p.parts[:-1]))


def _arguments(call: ast.Call, bound: Case | None = None
               ) -> tuple[tuple[Any, ...], dict[str, Any]] | None:
    """The call's literal arguments (names a parametrized case ``bound`` read as its
    values; a literal sequence unpacked into them, ``f(*row)``, its items, and a literal
    dict with text keys, ``f(**options)``, its keywords); None when one is not a
    literal."""
    args: list[Any] = []
    for a in call.args:
        ok, value = literal(a.value if isinstance(a, ast.Starred) else a, bound)
        if not ok or (isinstance(a, ast.Starred) and not isinstance(value, (list, tuple))):
            return None
        if isinstance(a, ast.Starred):
            args.extend(value)
        else:
            args.append(value)
    kwargs: dict[str, Any] = {}
    for kw in call.keywords:
        ok, value = literal(kw.value, bound)
        if not ok:
            return None
        if kw.arg is not None:
            kwargs[kw.arg] = value
        elif isinstance(value, dict) and all(isinstance(k, str) for k in value):
            kwargs.update(value)
        else:
            return None
    return tuple(args), kwargs


def _names(call: ast.Call, name: str, owners: frozenset[str]) -> bool:
    """``name(...)``, or ``owner.name(...)`` where the owner is the module (its last
    name) or, for a method, ``self``/``cls``."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id == name
    return (isinstance(func, ast.Attribute) and func.attr == name
            and isinstance(func.value, ast.Name) and func.value.id in owners)


def _module_names(tree: ast.Module, module: str) -> set[str]:
    """The names ``tree`` binds to the function's module or a package holding it:
    ``import humanize`` (its functions are often the package's too:
    ``humanize.ordinal(3)``), ``import pkg.mod as m``, ``from pkg import mod``."""
    parts = module.split(".")
    holders = {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in holders:
                    out.add(alias.asname or alias.name.partition(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.update(alias.asname or alias.name for alias in node.names
                       if f"{node.module}.{alias.name}" in holders)
    return out


def _assigned(tree: ast.Module) -> set[str]:
    """Names ``tree`` assigns or takes as parameters anywhere: a test's local ``version =
    Version(3, 4, 5)`` is no module ``version``, and ``version.replace(...)`` no call of
    the module's function."""
    out = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
           and isinstance(n.ctx, ast.Store)}
    return out | {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}


def imports_function(tree: ast.Module, module: str, name: str) -> bool:
    """Whether ``tree`` binds the bare name ``name`` to the function of ``module``: ``from
    pkg.mod import name`` (or from a package holding it, or ``*``). A test that calls a
    ``name`` it takes from elsewhere asserts what another function gives."""
    parts = module.split(".")
    holders = {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
    return any(isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in holders
               and any(alias.name in (name, "*") and alias.asname is None
                       for alias in node.names)
               for node in ast.walk(tree))


def _outside(tree: ast.Module, name: str, owners: frozenset[str]) -> list[ast.Call]:
    """The calls of ``name`` in ``tree`` outside the definitions of ``name`` itself."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            inside.update(id(sub) for sub in ast.walk(node))
    calls = [n for n in ast.walk(tree)
             if isinstance(n, ast.Call) and id(n) not in inside and _names(n, name, owners)]
    return sorted(calls, key=lambda n: (n.lineno, n.col_offset))  # in reading order


def _passed_to_raise(tree: ast.Module, name: str, owners: frozenset[str]
                     ) -> list[tuple[ast.Call, ast.Call, Stated]]:
    """``self.assertRaises(E, f, 1, 2)`` and ``pytest.raises(E, f, 1)``: the call they make
    (``f(1, 2)``, placed where they are), the assertion itself, and that the call must
    raise ``E``."""
    out: list[tuple[ast.Call, ast.Call, Stated]] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and len(node.args) >= 2
                and _callee_name(node) in RAISES):
            continue
        wanted = exception_name(node.args[0])
        fn = ast.Call(func=node.args[1], args=node.args[2:],
                      keywords=[k for k in node.keywords if k.arg not in ("match", "msg")])
        if wanted is None or not _names(fn, name, owners):
            continue
        out.append((ast.copy_location(fn, node), node, Stated(raises=wanted)))
    return out


def _callee_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else (
        func.id if isinstance(func, ast.Name) else "")


def _file_calls(path: str, tree: ast.Module, context: ModuleContext, name: str,
                owners: frozenset[str]) -> Iterator[FoundCall]:
    """Every literal call of ``name`` in one file, in reading order, each with what the
    file's tests assert it gives (a parametrized test's once per case)."""
    in_test = is_test_file(path)
    plain = plain_calls(tree, name) if in_test else set()
    if in_test and not imports_function(tree, context.name, name):  # not ours when bare
        plain = {k for k in plain if k not in _bare_calls(tree, name)}
    said = {k: v for k, v in expectations(tree).items() if k in plain}
    cases = case_bindings(tree, plain) if in_test else {}
    held = held_literals(tree) if in_test else {}
    last = context.name.rpartition(".")[2]  # the module by its last name, unless a local
    here_owners = (owners - ({last} & _assigned(tree))) | _module_names(tree, context.name)
    passed = _passed_to_raise(tree, name, here_owners) if in_test else []
    for call, origin, raising in passed:  # read as the assertion itself would be
        if id(origin) in plain:
            said[id(call)] = raising
        cases[id(call)] = cases.get(id(origin), [{}])
    calls = [*_outside(tree, name, here_owners), *(c for c, _, _ in passed)]
    wrapping = _wrappers(tree, name, plain) if in_test else {}
    for call in sorted(calls, key=lambda c: (c.lineno, c.col_offset)):
        stated = said.get(id(call))
        names = held.get(id(call), {})
        where = f"{path}:{call.lineno}"
        wrapper = wrapping.get(id(call))
        for case in cases.get(id(call), [{}]):
            bound = {**names, **case}
            found = _arguments(call, bound)
            if found is None:
                continue
            yield FoundCall(found[0], found[1], in_test, where,
                            None if stated is None else stated.resolve(bound))
            source = _wrapped_source(wrapper, call, found) if wrapper is not None else None
            said_of = _said_of(wrapper, bound) if wrapper is not None else None
            if source is not None and said_of is not None:
                yield FoundCall(found[0], found[1], True, where, said_of, source)


#: What an assertion says of an expression wrapping a call: that it equals a value
#: (:class:`Stated`), or that it is true or false (``assert is_valid(s)``).
Wrapper = tuple[ast.expr, Stated | bool]


def _wrappers(tree: ast.Module, name: str, plain: set[int]) -> dict[int, Wrapper]:
    """``id`` of a bare call of ``name`` made in a plain state -> the expression an
    assertion states something of that holds it and no other call of ``name``: a call
    wrapping it whose value is stated (``assert list(f(3)) == [0, 1, 2]``,
    ``self.assertEqual(len(f(x)), 2)``), or an expression said true or false (``assert
    is_valid(s)``, ``assert not f(x)``, ``assert 2 in f(x)``, ``self.assertTrue(...)``)."""
    out: dict[int, Wrapper] = {}
    stated = expectations(tree)
    found: list[Wrapper] = [(node, said) for node in ast.walk(tree)
                            if isinstance(node, ast.Call) and not _names(node, name, frozenset())
                            and (said := stated.get(id(node))) is not None
                            and said.expected is not None]
    for node, wrapped in [*found, *truths(tree)]:
        inner = [n for n in ast.walk(node) if isinstance(n, ast.Call) and n is not node
                 and isinstance(n.func, ast.Name) and n.func.id == name]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == name:
            inner = [node]  # ``assert f(x)``: the call itself, said true
        if len(inner) == 1 and id(inner[0]) in plain:
            out.setdefault(id(inner[0]), (node, wrapped))
    return out


def _said_of(wrapper: Wrapper, bound: Case) -> Expectation | None:
    """What the assertion says the wrapping expression gives (``True``/``False`` where it
    says it true or false), a parametrized case ``bound``; None where it says no value."""
    said = wrapper[1]
    return Expectation(expected=said) if isinstance(said, bool) else said.resolve(bound)


def _wrapped_source(wrapper: Wrapper, call: ast.Call,
                    arguments: tuple[tuple[Any, ...], dict[str, Any]]) -> str | None:
    """The wrapping expression's source with the call written with its literal arguments
    (a parametrized case's, a literal the test holds in a name), ``bool(...)`` of it where
    it is said true or false; None where an argument has no literal text."""
    node, said = wrapper
    at = next((k for k, n in enumerate(ast.walk(node)) if n is call), None)
    copied = copy.deepcopy(node)
    target = next((n for k, n in enumerate(ast.walk(copied)) if k == at), None)
    if not isinstance(target, ast.Call):
        return None
    try:
        target.args = [_written(a) for a in arguments[0]]
        target.keywords = [ast.keyword(arg=k, value=_written(v)) for k, v in arguments[1].items()]
    except ValueError:
        return None
    text = ast.unparse(copied)
    return f"bool({text})" if isinstance(said, bool) else text


def _written(value: Any) -> ast.expr:
    """``value`` as a literal expression; :class:`ValueError` where its ``repr`` does not
    read back as it (``nan``, an object)."""
    text = repr(value)
    try:
        same = pyast.literal_eval(text) == value
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        same = False
    if not same:
        raise ValueError(text)
    return pyast.parse(text, mode="eval").body


def _bare_calls(tree: ast.Module, name: str) -> set[int]:
    """``id`` of the calls of the bare name ``name`` (``f(...)``, not ``mod.f(...)``), and
    of the ``assertRaises(E, f, ...)`` that pass it."""
    return {id(n) for n in ast.walk(tree) if isinstance(n, ast.Call) and (
        (isinstance(n.func, ast.Name) and n.func.id == name)
        or any(isinstance(a, ast.Name) and a.id == name for a in n.args[1:2]))}


def keep(out: list[C], seen: dict[str, int], key: str, found: C) -> None:
    """``found`` appended to ``out`` unless a call with the same ``key`` is there; then
    it replaces that one when it carries what a test asserts and that one does not (a
    test's assertion of a call found bare first says more)."""
    if key not in seen:
        seen[key] = len(out)
        out.append(found)
    elif found.expectation is not None and out[seen[key]].expectation is None:
        out[seen[key]] = found


class Taken(list[C]):
    """Calls taken, in order, and how many a test grades were left out past the bound."""

    graded_left_out: int = 0


def taken(items: list[C], limit: int = MAX_CALLS, graded_limit: int = MAX_GRADED) -> Taken[C]:
    """``items`` in order: those a test grades up to ``graded_limit``, the others up to
    ``limit``, each spread over all found (:func:`spread`) when there are more."""
    graded = [i for i, c in enumerate(items) if c.expectation is not None]
    other = [i for i, c in enumerate(items) if c.expectation is None]
    kept = sorted([*spread(graded, max(0, graded_limit)), *spread(other, max(0, limit))])
    out: Taken[C] = Taken(items[i] for i in kept)
    out.graded_left_out = max(0, len(graded) - max(0, graded_limit))
    return out


def left_out_note(calls: Taken[Any]) -> list[str]:
    """The note a plan carries when calls a test grades were left out (none: nothing)."""
    if not calls.graded_left_out:
        return []
    return [f"{calls.graded_left_out} more calls the workspace's tests grade were not run "
            f"(at most {MAX_GRADED} are, spread over the tests)"]


def literal_calls(context: ModuleContext, name: str, limit: int = MAX_CALLS
                  ) -> Taken[FoundCall]:
    """Distinct literal calls of ``name`` in the view's files and the workspace's files
    that name it, the module's own file first, in reading order: those a test grades up
    to :data:`MAX_GRADED`, the others up to ``limit`` (:func:`taken`)."""
    files = [*sorted(context.files, key=lambda f: f[0] != context.path), *context.callers]
    owners = frozenset({context.name.rpartition(".")[2]}
                       | ({"self", "cls"} if context.kind == "method" else set()))
    out: list[FoundCall] = []
    seen: dict[str, int] = {}
    for path, text in files:
        if len(text) > MAX_FILE_CHARS or name not in text:
            continue
        try:
            tree = pyast.parse(text)
        except UNREADABLE:
            continue
        for found in _file_calls(path, tree, context, name, owners):
            keep(out, seen, repr((found.args, found.kwargs, found.wrapped)), found)
            if len(out) >= MAX_FOUND:
                return taken(out, limit)
    return taken(out, limit)


def spread(items: list[T], limit: int) -> list[T]:
    """``items`` when there are at most ``limit``, else ``limit`` of them spread evenly
    from the first to the last, in order: a test file's later cases (the options, the
    Unicode, the errors) count as much as its first few."""
    if len(items) <= limit:
        return items
    if limit <= 1:
        return items[:limit]
    step = (len(items) - 1) / (limit - 1)
    return [items[round(k * step)] for k in range(limit)]


__all__ = ["MAX_GRADED", "FoundCall", "Taken", "imports_function", "is_test_file", "keep",
           "left_out_note", "literal_calls", "spread", "taken"]
