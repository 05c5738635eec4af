"""The instances a Python method runs on when no example makes one.

A method whose class's examples make no instance had its inputs left out. Where the class
can be made without arguments (its own ``__init__`` requires none; without one, it is not
a dataclass with fields, a ``NamedTuple`` or an ``Enum``), or with values of the types its
``__init__``'s required parameters (a dataclass's fields) are written with
(``Range(1, -3)``, ``Stats([])``), its inputs run in turn on such an instance
(``Stack()``) and on instances its *fillers* filled: the class's methods
that take values and give nothing back (``-> None``, or without a ``return`` of a value
and with a use of ``self.``; not a dunder, a decorated one, nor one without parameters:
``clear()``), at most :data:`MAX_FILLERS`, each called :data:`CALLS` times on values of
its parameters' types (``int``, ``float``, ``str``, ``bool``; none written: ``int``;
another type its edge values that are literals, ``list[int]``: ``[]``, ``[0]``). A
filled instance is an expression evaluated in the module inside the sandbox, as a class
example's is: ``[(stack := Stack()), stack.push(1), stack.push(-3), stack.push(7)][0]``.
A method that changes its instance (assigns to an attribute of ``self``) also runs on an
instance it was called on once: ``[(counter := Counter()), counter.increment(7)][0]``, where
a version that stores the wrong state (adds 1 where it should add ``by``) parts.
"""

from __future__ import annotations

import ast

from codequorum.behaviour.doctest_examples import class_node
from codequorum.behaviour.edge_values import edge_values
from codequorum.behaviour.examples import UNREADABLE
from codequorum.behaviour.input_plan import resolve_annotation
from codequorum.core import pyast
from codequorum.core.model import Receiver

#: Fillers called, calls of each, and filled instances made (each on other values).
MAX_FILLERS = 2
CALLS = 3
FILLED = 2
#: The values a filler's parameter of each type is called with, in turn.
VALUES: dict[str, tuple[object, ...]] = {
    "int": (1, -3, 7, 42, 0, 2),
    "float": (1.5, -3.0, 7.25, 42.0, 0.0, 2.5),
    "str": ("a", "hello", "x y", "Hello World", "", "abcba"),
    "bool": (True, False, True, True, False, False),
}
#: The values each parameter a class or a filler needs is given, in turn.
Needs = tuple[tuple[object, ...], ...]
#: Bases and decorators of classes whose instances need their fields' values.
_FIELDED = {"NamedTuple", "Enum", "IntEnum", "StrEnum", "Flag", "TypedDict"}


def made_instances(source: str, owner: str, method: str) -> list[Receiver]:
    """An instance of the class ``owner`` (dotted when nested) of the module ``source``,
    bare or made with values of its ``__init__``'s types, and :data:`FILLED` filled ones
    (none without fillers), for its method ``method``; empty when the class is not found
    or needs values of types not known."""
    try:
        tree = pyast.parse(source)
    except UNREADABLE:
        return []
    node = class_node(tree, owner)
    needs = None if node is None else _made_with(node)
    if node is None or needs is None:
        return []
    made: list[Receiver] = [Receiver(owner, tuple(_values(needs, 0)))]
    fillers = [f for f in (_filler(n) for n in node.body
                           if isinstance(n, ast.FunctionDef) and n.name != method) if f]
    for k in range(FILLED if fillers else 0):
        made.append(Receiver(owner, source=_filled(owner, needs, fillers[:MAX_FILLERS],
                                                   k * CALLS)))
    again = _called_once(node, method)
    if again is not None:
        made.append(Receiver(owner, source=_filled(owner, needs, [again], ONCE_AT, calls=1)))
    return made


#: Where in :data:`VALUES` the one call of a method that changes its instance takes its
#: values (``7``, ``"x y"``: not ``1``, which a version adding 1 where it should add its
#: argument would also give).
ONCE_AT = 2


def _called_once(node: ast.ClassDef, method: str) -> tuple[str, Needs] | None:
    """The method ``method`` of the class ``node`` with its parameters' values, when it
    changes its instance (assigns to an attribute of ``self``): its inputs then also run on
    an instance it was called on once (``[(counter := Counter()), counter.increment(7)][0]``),
    where a version that stores the wrong state parts from the others. None otherwise."""
    fn = next((n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == method),
              None)
    if fn is None or fn.name.startswith("__") or fn.decorator_list or not _writes_self(fn):
        return None
    args = fn.args
    params = [*args.posonlyargs, *args.args]
    if not params or params[0].arg != "self" or any(d is None for d in args.kw_defaults):
        return None
    required = params[1:len(params) - len(args.defaults)] or params[1:2]
    found = [v for p in required if (v := _values_of(p.annotation)) is not None]
    return (fn.name, tuple(found)) if len(found) == len(required) else None


def _writes_self(fn: ast.FunctionDef) -> bool:
    """Whether the function (not one nested in it) assigns to an attribute of ``self``
    (``self.count += by``, ``self.total = ...``)."""
    stack: list[ast.AST] = list(fn.body)
    while stack:
        cur = stack.pop()
        targets = cur.targets if isinstance(cur, ast.Assign) else [cur.target] \
            if isinstance(cur, (ast.AugAssign, ast.AnnAssign)) else []
        if any(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
               and t.value.id == "self" for t in targets):
            return True
        if not isinstance(cur, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(cur))
    return False


def _made_with(node: ast.ClassDef) -> Needs | None:
    """The values the class is called with: none when it needs none, values for its
    ``__init__``'s (or a dataclass's fields') required ones when each is written with a
    type (:func:`_values_of`); None when it needs others (module docstring)."""
    names = {ast.unparse(b).rpartition(".")[2] for b in [*node.bases, *node.decorator_list]}
    init = next((n for n in node.body if isinstance(n, ast.FunctionDef)
                 and n.name == "__init__"), None)
    if init is not None:
        args = init.args
        positional = [*args.posonlyargs, *args.args][1:]
        if any(d is None for d in args.kw_defaults):
            return None
        return _known(positional[:len(positional) - len(args.defaults)])
    if names & _FIELDED:
        return None
    if not any(n.partition("(")[0] == "dataclass" for n in names):
        return ()
    fields = [s for s in node.body if isinstance(s, ast.AnnAssign) and s.value is None
              and isinstance(s.target, ast.Name)]
    return _known(fields)


def _known(params: list[ast.arg] | list[ast.AnnAssign]) -> Needs | None:
    """The values of parameters or fields, each of a written type (:func:`_values_of`);
    else None."""
    found = [v for p in params if p.annotation is not None
             and (v := _values_of(p.annotation)) is not None]
    return tuple(found) if len(found) == len(params) else None


def _values_of(annotation: ast.expr | None) -> tuple[object, ...] | None:
    """The values a parameter written ``annotation`` is given, in turn: :data:`VALUES`'s
    for a plain type (none written: ``int``'s), else its type's edge values that Python
    writes as literals (``list[int]``: ``[]``, ``[0]``, ``[0, 0]``, ...); None for none."""
    if annotation is None:
        return VALUES["int"]
    if ast.unparse(annotation) in VALUES:
        return VALUES[ast.unparse(annotation)]
    spec = resolve_annotation(annotation)
    found = tuple(v for v in edge_values(spec) if _written(v)) if spec is not None else ()
    return found or None


def _written(value: object) -> bool:
    """Whether ``repr(value)`` reads back as ``value`` (a literal of Python's)."""
    try:
        back = pyast.literal_eval(repr(value))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return type(back) is type(value) and back == value


def _filler(fn: ast.FunctionDef) -> tuple[str, Needs] | None:
    """A filler's name and its parameters' values (module docstring); None for another
    method."""
    if fn.name.startswith("__") or fn.decorator_list:
        return None
    args = fn.args
    params = [*args.posonlyargs, *args.args]
    if not params or params[0].arg != "self" or len(params) < 2 or args.vararg \
            or any(d is None for d in args.kw_defaults):
        return None
    if fn.returns is not None:
        if not (isinstance(fn.returns, ast.Constant) and fn.returns.value is None):
            return None
    elif _returns_value(fn) or not _uses_self(fn):
        return None
    required = params[1:len(params) - len(args.defaults)] or params[1:2]
    found = [v for p in required if (v := _values_of(p.annotation)) is not None]
    return (fn.name, tuple(found)) if len(found) == len(required) else None


def _returns_value(fn: ast.FunctionDef) -> bool:
    """Whether the function (not one nested in it) returns a value."""
    stack: list[ast.AST] = list(fn.body)
    while stack:
        cur = stack.pop()
        if isinstance(cur, ast.Return) and cur.value is not None:
            return True
        if not isinstance(cur, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(cur))
    return False


def _uses_self(fn: ast.FunctionDef) -> bool:
    return any(isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
               and n.value.id == "self" for n in ast.walk(fn))


def _filled(owner: str, needs: Needs, fillers: list[tuple[str, Needs]], start: int,
            calls: int = CALLS) -> str:
    """The expression that makes an instance (with the ``start``-th values of ``needs``)
    and calls each filler ``calls`` times on it, ``start``-th values first, then gives the
    instance."""
    cls = owner.rpartition(".")[2]
    var = cls[:1].lower() + cls[1:]
    var = var if var.isidentifier() and var != cls else "obj"
    made = [f"{var}.{name}({_arguments(types, start + i)})"
            for name, types in fillers for i in range(calls)]
    return f"[({var} := {owner}({_arguments(needs, start)})), {', '.join(made)}][0]"


def _values(needs: Needs, i: int) -> list[object]:
    """The ``i``-th values of ``needs``, the ``k``-th parameter's ``i + k``-th."""
    return [values[(i + k) % len(values)] for k, values in enumerate(needs)]


def _arguments(needs: Needs, i: int) -> str:
    """:func:`_values`, written as Python writes them."""
    return ", ".join(repr(v) for v in _values(needs, i))


__all__ = ["CALLS", "FILLED", "MAX_FILLERS", "ONCE_AT", "VALUES", "made_instances"]
