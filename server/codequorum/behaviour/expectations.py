"""What a Python test file's assertions say calls give, read with :mod:`ast` (nothing runs).

A workspace's tests are the user's own word on what a function should do, as its docstring's
examples are: ``assert f(2) == 4`` says ``f(2)`` gives 4, ``with pytest.raises(ValueError):
f(-1)`` that ``f(-1)`` raises. The forms read:

- ``assert CALL == VALUE`` (either side), ``assert CALL is None`` (``True``, ``False``);
  ``CALL`` may be a name that holds its result (``result = f(2)`` earlier in the block,
  the name used since by assertions only);
- unittest's ``self.assertEqual(CALL, VALUE)`` (either order; ``assertEquals``,
  ``assertListEqual``, ``assertDictEqual``, ``assertTupleEqual``, ``assertSetEqual``,
  ``assertIs`` with ``None``/``True``/``False``), ``self.assertIsNone(CALL)``;
- ``with pytest.raises(E):`` or ``with self.assertRaises(E):`` around one statement that is
  the call (``E`` by its last name; a tuple of classes is any exception);
- ``inline-snapshot``'s ``assert CALL == snapshot(VALUE)``: ``VALUE``.

``VALUE`` is a literal (:func:`literal`: also ``math.inf``, ``float('nan')``); anything
else says nothing, and the call stays an input without an expected value. What an
assertion says is true or false (``assert is_valid(s)``, ``assert not f(x)``, ``assert
f(x) > 3``, ``assertTrue``, ``assertIn(a, b)``) is read apart, by :func:`truths`: the
expression runs whole (``callers.py``).
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from codequorum.behaviour.examples import UNREADABLE
from codequorum.core import pyast
from codequorum.ingest import humaneval

#: unittest's methods that assert their two arguments are equal.
EQUAL_METHODS = frozenset({"assertEqual", "assertEquals", "assertListEqual", "assertDictEqual",
                           "assertTupleEqual", "assertSetEqual", "assertIs"})
#: What a ``with`` statement names when its body must raise.
RAISES = frozenset({"raises", "assertRaises", "assertRaisesRegex"})
#: The values ``is`` compares with that an assertion may state.
_SINGLETONS = (None, True, False)


@dataclass(frozen=True)
class Expectation:
    """What an assertion says one call gives: ``expected``, or with ``raises`` that it raises
    (a class name, ``""`` for any exception)."""

    expected: Any = None
    raises: str | None = None


#: The names a test writes the float specials with (``math.inf``, ``float('nan')``).
_SPECIALS = {"inf": math.inf, "nan": math.nan}


def _special(node: ast.expr) -> float | None:
    """``math.inf``/``math.nan`` (negated too), ``float('inf')``, ``float('-inf')``,
    ``float('nan')``: the float, else None."""
    sign = 1.0
    while isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):  # no recursion
        sign, node = -sign, node.operand
    if sign < 0:
        inner = _special(node)
        return None if inner is None else -inner
    if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id in ("math", "np", "numpy") and node.attr in _SPECIALS):
        return _SPECIALS[node.attr]
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "float" and len(node.args) == 1 and not node.keywords
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
        text = node.args[0].value.strip().lower()
        sign = -1.0 if text.startswith("-") else 1.0
        word = text.lstrip("+-")
        word = "inf" if word == "infinity" else word
        return sign * _SPECIALS[word] if word in _SPECIALS else None
    return None


def literal(node: ast.expr, bound: Mapping[str, Any] | None = None) -> tuple[bool, Any]:
    """``(True, value)`` for a plain literal node (the float specials as tests write them
    included) or a name ``bound`` gives a value (a parametrized test's), else
    ``(False, None)``."""
    if bound and isinstance(node, ast.Name) and node.id in bound:
        return True, bound[node.id]
    if bound and isinstance(node, ast.Subscript):
        return _item(node, bound)
    special = _special(node)
    if special is not None:
        return True, special
    if isinstance(node, ast.BinOp):
        return _arithmetic(node, bound) if _operators(node) <= _MOST_OPERATORS else (False, None)
    try:
        value = pyast.literal_eval(node)
    except (TypeError, *UNREADABLE):
        return False, None
    return (True, value) if humaneval.is_plain(value) else (False, None)


def _item(node: ast.Subscript, bound: Mapping[str, Any]) -> tuple[bool, Any]:
    """``TESTS[text]``, ``row[0]``, ``case["want"]`` of a value a name is ``bound`` to:
    what it holds there, ``(False, None)`` where it holds nothing or is no literal."""
    ok, base = literal(node.value, bound)
    key: Any
    found, key = literal(node.slice, bound) if ok else (False, None)
    if not found:
        return False, None
    if not isinstance(base, dict | list | tuple | str) or isinstance(key, slice):
        return False, None
    try:
        return True, base[key]
    except (KeyError, IndexError, TypeError):
        return False, None


#: The operators of the arithmetic a test writes in its literals (``60 * 1000``).
_OPERATORS: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow}
#: The largest integer the arithmetic of a literal may make (and the largest power).
_LARGEST, _POWER = 2 ** 128, 128


#: Operators one literal's arithmetic may hold (a test file may hold a chain thousands long).
_MOST_OPERATORS = 32


def _operators(node: ast.BinOp) -> int:
    """How many operators ``node``'s arithmetic holds, counted without recursion (up to
    one more than :data:`_MOST_OPERATORS`)."""
    count, stack = 0, [node]
    while stack and count <= _MOST_OPERATORS:
        cur = stack.pop()
        count += 1
        stack.extend(n for n in (cur.left, cur.right) if isinstance(n, ast.BinOp))
    return count


def _arithmetic(node: ast.BinOp, bound: Mapping[str, Any] | None) -> tuple[bool, Any]:
    """``60 * 1000``, ``2 ** 10``, ``'a' + 'b'`` of literals, bounded (no huge powers)."""
    ok_a, a = literal(node.left, bound)
    ok_b, b = literal(node.right, bound)
    compute = _OPERATORS.get(type(node.op))
    if not (ok_a and ok_b) or compute is None:
        return False, None
    if isinstance(node.op, ast.Add) and isinstance(a, str) and isinstance(b, str):
        return True, a + b
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (a, b))
    if not numbers or (isinstance(node.op, ast.Pow) and abs(b) > _POWER):
        return False, None
    try:
        value = compute(a, b)
    except (ZeroDivisionError, OverflowError, ValueError):
        return False, None
    if (isinstance(value, int) and abs(value) > _LARGEST) or isinstance(value, complex):
        return False, None
    return True, value


@dataclass(frozen=True)
class Stated:
    """An assertion about one call as written: the ``expected`` side (``identity``: compared
    with ``is``), or the class it ``raises``. :meth:`resolve` reads the value."""

    expected: ast.expr | None = None
    identity: bool = False
    raises: str | None = None

    def resolve(self, bound: Mapping[str, Any] | None = None) -> Expectation | None:
        """The expectation, the names of a parametrized case ``bound``; None when the
        expected side is not a literal (or, compared with ``is``, not None/True/False)."""
        if self.expected is None:
            return Expectation(raises=self.raises)
        ok, value = literal(self.expected, bound)
        if not ok or (self.identity and not any(value is s for s in _SINGLETONS)):
            return None
        return Expectation(expected=value)


Held = dict[str, ast.Call]
T = TypeVar("T")


def _stated(call: ast.expr, other: ast.expr, identity: bool = False, held: Held | None = None
            ) -> tuple[ast.Call, Stated] | None:
    """``call`` is a call (or a name ``held`` says holds one's result) and ``other`` is
    not (but for a float special, ``float('nan')``)."""
    if held and isinstance(call, ast.Name) and call.id in held:
        call = held[call.id]
    other = _snapshot(other)
    if not isinstance(call, ast.Call) or (isinstance(other, ast.Call)
                                          and _special(other) is None):
        return None
    return call, Stated(expected=other, identity=identity)


def _snapshot(node: ast.expr) -> ast.expr:
    """The value an ``inline-snapshot`` shows, ``snapshot("a-b")`` (its one argument),
    else ``node``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id == "snapshot" and len(node.args) == 1 and not node.keywords:
        return node.args[0]
    return node


def _either(a: ast.expr, b: ast.expr, identity: bool = False, held: Held | None = None
            ) -> tuple[ast.Call, Stated] | None:
    return _stated(a, b, identity, held) or _stated(b, a, identity, held)


def _from_assert(node: ast.Assert, held: Held | None = None) -> tuple[ast.Call, Stated] | None:
    test = node.test
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return None
    op = test.ops[0]
    if not isinstance(op, (ast.Eq, ast.Is)):
        return None
    return _either(test.left, test.comparators[0], isinstance(op, ast.Is), held)


def _from_method(node: ast.Call, held: Held | None = None) -> tuple[ast.Call, Stated] | None:
    func = node.func
    if not isinstance(func, ast.Attribute) or node.keywords:
        return None
    if func.attr == "assertIsNone" and len(node.args) == 1:
        return _stated(node.args[0], ast.Constant(None), held=held)
    if func.attr in EQUAL_METHODS and len(node.args) >= 2:
        return _either(node.args[0], node.args[1], func.attr == "assertIs", held)
    return None


def _asserts(statement: ast.stmt) -> bool:
    """Whether a statement is an assertion (``assert``, ``self.assertEqual(...)``)."""
    if isinstance(statement, ast.Assert):
        return True
    value = statement.value if isinstance(statement, ast.Expr) else None
    return (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
            and value.func.attr.startswith("assert"))


#: Names held at once, at most (the latest): a file of thousands of ``r = f()`` lines must
#: not make thousands of copies of thousands of names.
MAX_HELD = 16


def hold(latest: dict[str, T], name: str, value: T) -> None:
    """``latest[name] = value``, the oldest name let go past :data:`MAX_HELD`."""
    latest.pop(name, None)
    latest[name] = value
    if len(latest) > MAX_HELD:
        del latest[next(iter(latest))]


def held_results(tree: ast.Module) -> dict[int, Held]:
    """``id(statement)`` -> the names that hold a call's result where the statement is
    (``result = f(2)`` earlier in its block, the name not used since but by assertions)."""
    out: dict[int, Held] = {}
    for node in ast.walk(tree):
        for block in (getattr(node, f, None) for f in ("body", "orelse", "finalbody")):
            if not isinstance(block, list):
                continue
            latest: Held = {}
            for statement in block:
                if not isinstance(statement, ast.stmt):
                    break
                if _asserts(statement):
                    if latest:
                        out[id(statement)] = dict(latest)
                    continue
                for n in ast.walk(statement):  # used otherwise (changed, passed on): dropped
                    if isinstance(n, ast.Name):
                        latest.pop(n.id, None)
                if (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                        and isinstance(statement.targets[0], ast.Name)
                        and isinstance(statement.value, ast.Call)):
                    hold(latest, statement.targets[0].id, statement.value)
    return out


def exception_name(node: ast.expr) -> str | None:
    """The class an expected raise names (``ValueError``, ``errors.ParseError``: its last
    name), ``""`` for a tuple of classes (any), None for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return "" if isinstance(node, ast.Tuple) else None


def _raised(item: ast.withitem) -> str | None:
    """The class a ``with`` item expects raised (``pytest.raises(E)``), else None."""
    ctx = item.context_expr
    if not isinstance(ctx, ast.Call) or not ctx.args:
        return None
    func = ctx.func
    name = func.attr if isinstance(func, ast.Attribute) else (
        func.id if isinstance(func, ast.Name) else "")
    return exception_name(ctx.args[0]) if name in RAISES else None


def _raising_call(statement: ast.stmt) -> ast.Call | None:
    """The call a statement in a ``with pytest.raises`` block makes first: ``f(x)``,
    ``y = f(x)``, and ``assert f(x)`` or ``assert f(x) == v`` (the call raises before the
    assertion is reached: what it asserts is never tested)."""
    value: ast.expr | None = None
    if isinstance(statement, (ast.Expr, ast.Assign)):
        value = statement.value
    elif isinstance(statement, ast.Assert):
        value = statement.test
        if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not):
            value = value.operand
        if isinstance(value, ast.Compare):
            value = value.left
    return value if isinstance(value, ast.Call) else None


def _from_with(node: ast.With) -> tuple[ast.Call, Stated] | None:
    if len(node.items) != 1 or len(node.body) != 1:
        return None
    wanted = _raised(node.items[0])
    value = _raising_call(node.body[0])
    if wanted is None or value is None:
        return None
    return value, Stated(raises=wanted)


def _raising_bodies(tree: ast.Module) -> set[int]:
    """``id`` of each statement inside a ``with pytest.raises(...)`` block (or
    ``assertRaises``): an ``assert`` there says the call raises, never that it is true."""
    return {id(statement) for node in ast.walk(tree) if isinstance(node, ast.With)
            and any(_raised(item) is not None for item in node.items)
            for statement in node.body}


#: unittest's methods that assert a comparison of their two arguments holds.
COMPARING_METHODS: dict[str, ast.cmpop] = {
    "assertIn": ast.In(), "assertNotIn": ast.NotIn(), "assertGreater": ast.Gt(),
    "assertGreaterEqual": ast.GtE(), "assertLess": ast.Lt(), "assertLessEqual": ast.LtE()}


def truths(tree: ast.Module) -> list[tuple[ast.expr, bool]]:
    """The expressions an assertion of ``tree`` says are true (or false) that none of
    :func:`expectations`' forms reads: ``assert is_valid(s)``, ``assert not f(x)``,
    ``assert f(x) > 3``, ``assert 2 in f(x)``, unittest's ``assertTrue``/``assertFalse``
    and its comparisons (``assertIn(a, b)`` is ``a in b``, ``assertIsInstance(a, C)``
    ``isinstance(a, C)``: :data:`TEMPLATED_METHODS`), ``X == pytest.approx(v)`` and
    ``assertAlmostEqual`` as the comparisons they make, each with what it says."""
    out: list[tuple[ast.expr, bool]] = []
    raising = _raising_bodies(tree)
    for node in ast.walk(tree):
        if id(node) in raising:
            continue
        if isinstance(node, ast.Assert) and _from_assert(node) is None:
            test, wanted = node.test, True
            if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                test, wanted = test.operand, False
            out.append((_approximated(test) or test, wanted))
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            found = _method_truth(node.value)
            if found is not None:
                out.append(found)
    return out


#: ``pytest.approx``'s tolerances when a test gives none (relative, absolute).
APPROX_DEFAULTS = (1e-6, 1e-12)


def _approximated(test: ast.expr) -> ast.expr | None:
    """``X == pytest.approx(v)`` (``approx`` alone too, either side; ``rel=``/``abs=``
    read) as the comparison it makes, ``abs(X - v) <= max(rel * abs(v), abs)``, which runs
    where pytest is not there; None for anything else (``approx`` of a sequence, a value
    that is not a number literal)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Eq)):
        return None
    for actual, other in ((test.left, test.comparators[0]), (test.comparators[0], test.left)):
        if not (isinstance(other, ast.Call) and len(other.args) == 1 and (
                (isinstance(other.func, ast.Attribute) and other.func.attr == "approx")
                or (isinstance(other.func, ast.Name) and other.func.id == "approx"))):
            continue
        ok, value = literal(other.args[0])
        tolerances = {k.arg: literal(k.value) for k in other.keywords}
        rel, absolute = APPROX_DEFAULTS
        rel = tolerances["rel"][1] if "rel" in tolerances else rel
        absolute = tolerances["abs"][1] if "abs" in tolerances else absolute
        numbers = (value, rel, absolute)
        if not ok or set(tolerances) - {"rel", "abs"} or not all(
                ok for ok, _v in tolerances.values()) or not all(
                isinstance(n, (int, float)) and not isinstance(n, bool) and math.isfinite(n)
                for n in numbers):
            return None
        return _template(f"abs(ACTUAL - ({value!r})) <= max({rel!r} * abs({value!r}), "
                         f"{absolute!r})", test, ACTUAL=actual)
    return None


def _template(text: str, where: ast.expr, **put: ast.expr) -> ast.expr:
    """The expression ``text`` with each name ``put`` names replaced by its expression,
    placed where ``where`` is."""
    made = pyast.parse(text, mode="eval").body

    class _Put(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.expr:
            return put.get(node.id, node)

    placed: ast.expr = _Put().visit(made)
    return ast.fix_missing_locations(ast.copy_location(placed, where))


#: unittest's methods that say an expression of their arguments (``LEFT``, ``RIGHT``) is
#: true, as that expression.
TEMPLATED_METHODS = {
    "assertIsNotNone": (1, "LEFT is not None"), "assertNotEqual": (2, "LEFT != RIGHT"),
    "assertIsInstance": (2, "isinstance(LEFT, RIGHT)"),
    "assertNotIsInstance": (2, "not isinstance(LEFT, RIGHT)"),
    "assertCountEqual": (2, "sorted(LEFT, key=repr) == sorted(RIGHT, key=repr)"),
}


def _method_truth(call: ast.Call) -> tuple[ast.expr, bool] | None:
    func = call.func
    templated = TEMPLATED_METHODS.get(func.attr) if isinstance(func, ast.Attribute) else None
    if templated is not None and len(call.args) == templated[0] and not call.keywords:
        return _template(templated[1], call, LEFT=call.args[0],
                         RIGHT=call.args[-1]), True
    if isinstance(func, ast.Attribute) and func.attr == "assertAlmostEqual" \
            and len(call.args) == 2 and all(k.arg == "places" for k in call.keywords):
        ok, places = literal(call.keywords[0].value) if call.keywords else (True, 7)
        if ok and isinstance(places, int) and not isinstance(places, bool):
            return _template(f"round(LEFT - RIGHT, {places}) == 0", call,
                             LEFT=call.args[0], RIGHT=call.args[1]), True
        return None
    if not isinstance(func, ast.Attribute) or call.keywords:
        return None
    if func.attr in ("assertTrue", "assertFalse") and len(call.args) == 1:
        return call.args[0], func.attr == "assertTrue"
    op = COMPARING_METHODS.get(func.attr)
    if op is None or len(call.args) != 2:
        return None
    compared = ast.Compare(left=call.args[0], ops=[op], comparators=[call.args[1]])
    return ast.copy_location(compared, call), True


def expectations(tree: ast.Module) -> dict[int, Stated]:
    """``id(call)`` -> what an assertion of ``tree`` states that call gives, for every call
    an assertion states, directly or through a name that holds its result (``result =
    f(2)`` then ``assert result == 4``); the first assertion of a call wins."""
    holds = held_results(tree)
    raising = _raising_bodies(tree)
    out: dict[int, Stated] = {}
    for node in ast.walk(tree):
        found = None
        if isinstance(node, ast.Assert) and id(node) not in raising:
            found = _from_assert(node, holds.get(id(node)))
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            found = _from_method(node.value, holds.get(id(node)))
        elif isinstance(node, ast.With):
            found = _from_with(node)
        if found is not None:
            out.setdefault(id(found[0]), found[1])
    return out


__all__ = ["COMPARING_METHODS", "EQUAL_METHODS", "MAX_HELD", "RAISES", "Expectation", "Stated",
           "exception_name", "expectations", "held_results", "hold", "literal", "truths"]
