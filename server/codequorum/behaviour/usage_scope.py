"""What one version's function says about its own names, for :mod:`usage_types`: its
parameters, the loop variables that walk a parameter (``for x in q``, ``for k, v in
q.items()``, ``for i, x in enumerate(q)``), the names bound to a compiled pattern
(``pat = re.compile(...)``), the names that only ever hold a parameter (``cur = start``),
and which parameters it only moves, compares and computes with."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult)


class Element(NamedTuple):
    """An element of parameter ``param``: one it walks (``for x in q``) or, where
    ``indexed``, one taken by index (``q[i]``, a mapping's value)."""

    param: str
    indexed: bool


@dataclass(frozen=True)
class Scope:
    """One version's function and the facts about its names."""

    fn: FunctionNode
    params: frozenset[str]
    #: loop variable -> the element of the parameter it walks, where it walks only that one
    loops: dict[str, Element]
    #: names bound to ``re.compile(...)``
    patterns: frozenset[str]
    #: the parameters and the names the function assigns (no module is one of them)
    bound: frozenset[str]
    #: alias -> the parameter it holds, where every assignment of it is ``alias = param``
    aliases: dict[str, str]
    #: a name an import binds -> what it names (``it`` -> ``itertools``,
    #: ``itertools_pairwise`` -> ``itertools.pairwise``): :func:`imported_names`
    imports: dict[str, str]
    #: the functions of the module and of the version beside this one, by name: a
    #: parameter passed to one is what that function's parameter is (``is_prime(n)``)
    helpers: dict[str, FunctionNode]
    #: how many helpers deep this function is read (a helper's helper is read once more)
    depth: int = 0

    @classmethod
    def of(cls, fn: FunctionNode, imports: dict[str, str] | None = None,
           helpers: dict[str, FunctionNode] | None = None, depth: int = 0) -> Scope:
        args = fn.args
        params = frozenset(a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs))
        stored = frozenset(n.id for n in ast.walk(fn) if isinstance(n, ast.Name)
                           and isinstance(n.ctx, ast.Store))
        own = {**(imports or {}), **_imports(ast.walk(fn))}
        return cls(fn, params, _loops(fn, params), _patterns(fn), params | stored,
                   _aliases(fn, params), own, dict(helpers or {}), depth)

    def helper(self, node: ast.Call) -> FunctionNode | None:
        """The helper this call calls by its bare name (not one the function rebinds,
        nor the function itself)."""
        func = node.func
        if not isinstance(func, ast.Name) or func.id in self.bound or func.id == self.fn.name:
            return None
        return self.helpers.get(func.id)

    def called(self, node: ast.Call) -> str:
        """:func:`called_name`, by the names its imports stand for (``it.tee`` ->
        ``itertools.tee``)."""
        name = called_name(node)
        head, dot, rest = name.partition(".")
        if head in self.imports and head not in self.bound:
            return self.imports[head] + dot + rest
        return name

    def aliases_of(self, name: str) -> list[str]:
        """The names that only ever hold parameter ``name``."""
        return [alias for alias, param in self.aliases.items() if param == name]

    def is_pattern(self, node: ast.AST) -> bool:
        """``re.compile(...)`` or a name bound to one."""
        if isinstance(node, ast.Name):
            return node.id in self.patterns
        return _is_compile(node)


def top_functions(tree: ast.Module) -> dict[str, FunctionNode]:
    """The functions at the top of a module, by name (the helpers a function may call)."""
    return {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef,
                                                            ast.AsyncFunctionDef))}


def imported_names(tree: ast.AST) -> dict[str, str]:
    """The names the imports anywhere in ``tree`` bind, each to what it names: ``import
    itertools as it`` -> ``{"it": "itertools"}``, ``from itertools import pairwise as
    ip`` -> ``{"ip": "itertools.pairwise"}`` (relative imports are the module's own)."""
    return _imports(ast.walk(tree))


def _imports(nodes: Iterator[ast.AST]) -> dict[str, str]:
    found: dict[str, str] = {}
    for node in nodes:
        if isinstance(node, ast.Import):
            found.update((a.asname, a.name) for a in node.names if a.asname)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.update((a.asname or a.name, f"{node.module}.{a.name}") for a in node.names
                         if a.name != "*")
    return found


def _aliases(fn: FunctionNode, params: frozenset[str]) -> dict[str, str]:
    """Names stored only by ``alias = param`` (one target, one parameter, every time)."""
    held: dict[str, set[str | None]] = {}
    plain: set[int] = set()  # the targets of ``name = value`` (read with their value)
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            value = node.value
            source = value.id if isinstance(value, ast.Name) and value.id in params else None
            held.setdefault(node.targets[0].id, set()).add(source)
            plain.add(id(node.targets[0]))
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) \
                and id(node) not in plain:
            held.setdefault(node.id, set()).add(None)  # a loop target, a tuple's part...
    return {alias: src for alias, sources in held.items() if len(sources) == 1
            for src in sources if src is not None and alias not in params}


def _is_compile(node: ast.AST) -> bool:
    func = node.func if isinstance(node, ast.Call) else None
    return isinstance(func, ast.Attribute) and func.attr == "compile" \
        and isinstance(func.value, ast.Name) and func.value.id == "re"


def _patterns(fn: FunctionNode) -> frozenset[str]:
    return frozenset(t.id for node in ast.walk(fn) if isinstance(node, ast.Assign)
                     and _is_compile(node.value) for t in node.targets
                     if isinstance(t, ast.Name))


def _param(node: ast.AST, params: frozenset[str]) -> str | None:
    return node.id if isinstance(node, ast.Name) and node.id in params else None


def _shape(it: ast.AST, params: frozenset[str], count: int) -> list[Element | None]:
    """The element of a parameter each of a loop's ``count`` names takes: ``x`` of ``for x
    in q``; ``k, v`` of ``q.items()`` (a key, then a value); ``v`` of ``q.values()``, ``k``
    of ``q.keys()``; ``x`` of ``for i, x in enumerate(q)``."""
    if (q := _param(it, params)) is not None:
        return [Element(q, False)] if count == 1 else [None] * count
    if not isinstance(it, ast.Call) or len(it.args) > 1:
        return [None] * count
    func = it.func
    if isinstance(func, ast.Attribute) and not it.args \
            and (q := _param(func.value, params)) is not None:
        shapes = {"items": [Element(q, False), Element(q, True)], "keys": [Element(q, False)],
                  "values": [Element(q, True)]}
        shape: list[Element | None] = list(shapes.get(func.attr, []))
        return shape if len(shape) == count else [None] * count
    if isinstance(func, ast.Name) and func.id == "enumerate" and it.args and count == 2 \
            and (q := _param(it.args[0], params)) is not None:
        return [None, Element(q, False)]
    return [None] * count


def _walked(target: ast.AST, it: ast.AST, params: frozenset[str]) -> Iterator[
        tuple[str, Element | None]]:
    """Each name a loop binds and the element of a parameter it takes, if any."""
    names = target.elts if isinstance(target, ast.Tuple) else [target]
    for node, element in zip(names, _shape(it, params, len(names)), strict=True):
        if isinstance(node, ast.Name):
            yield node.id, element


def _loops(fn: FunctionNode, params: frozenset[str]) -> dict[str, Element]:
    walked: dict[str, set[Element | None]] = {}
    for node in ast.walk(fn):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            for var, element in _walked(node.target, node.iter, params):
                walked.setdefault(var, set()).add(element)
    return {var: src for var, sources in walked.items() if len(sources) == 1
            for src in sources if src is not None and var not in params}


def element_of(node: ast.AST, scope: Scope) -> Element | None:
    """The parameter ``node`` is an element of: ``x`` of ``for x in q``, ``q[i]``, or
    ``q[i] + q[j]``; None otherwise."""
    if isinstance(node, ast.Name):
        return scope.loops.get(node.id)
    if isinstance(node, ast.Subscript):
        value = node.value
        if isinstance(value, ast.Name) and value.id in scope.params \
                and not isinstance(node.slice, ast.Slice):
            return Element(value.id, True)
    if isinstance(node, ast.BinOp) and isinstance(node.op, _ARITHMETIC):
        left = element_of(node.left, scope)
        return left if left is not None and left == element_of(node.right, scope) else None
    return None


#: Calls that give only a number (a parameter compared with one is a number too).
NUMBER_RESULTS = frozenset({"len", "abs", "sum", "round", "int", "float", "ord", "math.floor",
                            "math.ceil"})


def called_name(node: ast.Call) -> str:
    """``f`` or ``module.f`` of a call; empty for anything else."""
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return f"{func.value.id}.{func.attr}"
    return ""
_COMPUTED = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)
_MOVED = (ast.Return, ast.Yield, ast.Expr, ast.Assign, ast.AnnAssign, ast.UnaryOp,
          ast.BoolOp, ast.IfExp, ast.FormattedValue)
#: Builtins any value may be given to.
_ANY_VALUE = frozenset({"print", "repr", "bool", "id", "hash", "type"})
#: Builtins a packed ``[a, b]`` or ``(a, b)`` of numbers may be given to.
_OF_VALUES = frozenset({"sorted", "min", "max", "sum", "len", "set", "list", "tuple",
                        "reversed"})


def _number_only(node: ast.AST) -> bool:
    """A number literal, ``-x``, ``len(...)`` and the like, ``n - 1``, ``x / 2``."""
    if isinstance(node, ast.Constant):
        return type(node.value) in (int, float)
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.op, (ast.USub, ast.UAdd))
    if isinstance(node, ast.Call):
        return called_name(node) in NUMBER_RESULTS
    return isinstance(node, ast.BinOp) and isinstance(
        node.op, (ast.Sub, ast.Div, ast.FloorDiv, ast.Pow))


def _numeric(node: ast.AST) -> bool:
    """Whether this expression can only be a number: a number literal, ``-x``, ``len(...)``
    and the like, or arithmetic no string or list has (``n - 1``, ``x / 2``), or holds one
    (``(n - 1) * d``), and no string or list (``"ab" * 2``). ``p + q`` alone joins strings
    and lists too. Iterative: a version's sum may be thousands of terms long."""
    stack, number = [node], False
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.List, ast.ListComp, ast.Tuple, ast.JoinedStr)) or (
                isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes))):
            return False
        number = number or _number_only(node)
        if isinstance(node, ast.BinOp):
            stack += [node.left, node.right]
    return number


def _plain_argument(node: ast.AST, call: ast.Call) -> bool:
    """An argument any number serves: of ``print``, ``repr`` and the like, a pack given to
    ``sorted``, ``sum`` and the like, or one of several values of ``min``/``max``."""
    func = call.func
    if not isinstance(func, ast.Name) or node not in call.args or call.keywords:
        return False
    if isinstance(node, (ast.Tuple, ast.List)):
        return func.id in _OF_VALUES
    return func.id in _ANY_VALUE or (func.id in ("min", "max") and len(call.args) > 1)


def _plain_read(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """Whether this read moves the value (returned, assigned, packed in a tuple or list that
    is itself moved or sorted, summed...), compares it (not ``in``), computes with it
    (``- * / // % **``, or ``+`` with what can only be a number), takes the least or
    greatest of several values (``max(a, b)``) or gives it where any value goes
    (``print(p)``, ``repr(p)``): uses any number serves."""
    parent = parents.get(id(node))
    while isinstance(parent, (ast.Tuple, ast.List)):  # packed: what is done with the pack
        node, parent = parent, parents.get(id(parent))
    if isinstance(parent, ast.Assign) and isinstance(node, ast.Name) and any(
            isinstance(t, (ast.Tuple, ast.List)) for t in parent.targets):
        return False  # ``a, b = p`` unpacks it: a sequence, no number
    if isinstance(parent, ast.Compare):
        return not any(isinstance(op, (ast.In, ast.NotIn)) for op in parent.ops)
    if isinstance(parent, ast.BinOp):
        other = parent.right if parent.left is node else parent.left
        return isinstance(parent.op, _COMPUTED) and (
            not isinstance(parent.op, ast.Add) or _numeric(other))
    if isinstance(parent, ast.Call):
        return _plain_argument(node, parent)
    if isinstance(parent, ast.AugAssign):
        return parent.value is node
    return isinstance(parent, _MOVED)


def only_plain(scope: Scope, names: tuple[str, ...]) -> bool:
    """Whether ``names[0]`` is a parameter of the function and every read of it and of its
    other ``names`` (aliases) is plain (:func:`_plain_read`): nothing asks more of its type
    than a number gives, so a number is a fair value for it. True when nothing reads it."""
    if names[0] not in scope.params:
        return False
    parents = {id(child): parent for parent in ast.walk(scope.fn)
               for child in ast.iter_child_nodes(parent)}
    return all(_plain_read(n, parents) for n in ast.walk(scope.fn)
               if isinstance(n, ast.Name) and n.id in names and isinstance(n.ctx, ast.Load))


__all__ = ["NUMBER_RESULTS", "Element", "Scope", "called_name", "element_of", "imported_names",
           "only_plain", "top_functions"]
