"""A parameter's type guessed from how the versions use it, where nothing annotates it
(read with :mod:`ast`; nothing runs).

Each use is a vote for a kind, and the strongest kind any version's use asks for wins:

- a mapping: ``p.items()``, ``p.keys()``, ``p.values()``, ``p.get(...)``, ``p.setdefault``,
  ``{**p}``, ``f(**p)``;
- a string: ``p.lower()``, ``p.split()``, ``p.startswith(...)`` and the other ``str``
  methods no list has, ``p + "..."``, an f-string or ``%`` format of it, ``p == "..."``,
  ``p in "..."``, ``ord(p)``, an argument of a ``str``-only method (``s.replace(p, ...)``,
  ``s.split(p)``, ``s.strip(p)``...) or of ``re.findall(pattern, p)`` and the other
  :mod:`re` functions and compiled-pattern methods;
- a list: ``p[i]``, ``p[a:b]``, ``len(p)``, ``for x in p``, ``x in p``, ``f(*p)``,
  ``p.append`` and the other list methods, ``xs.extend(p)``, ``sorted(p)``, ``sum(p)``,
  ``map(f, p)``, ``filter(f, p)``, ``Counter(p)``, ``heapq.heapify(p)``,
  ``heapq.nlargest(k, p)``, ``itertools.combinations(p, k)``, ``tee(p)``, ``islice(p, n)``,
  ``statistics.mean(p)``, ``reduce(f, p)``, ``math.prod(p)`` and their kin, by their
  module's name, bare, or under the name an import gives them (``it.tee``);
- a number: arithmetic with it (``p + 1``, ``p * q``, ``-p``; not ``p + q``, which joins
  strings and lists too), a comparison with a number or with ``len(...)``, ``abs(...)``,
  ``sum(...)``, ``range(p)``, ``int(p)``, ``str(p)``, ``gcd(p, q)``, ``math.isqrt(p)``,
  ``[0] * p``, a slice bound ``x[:p]``, an index ``x[p]`` of what is no parameter (a
  lambda's item), ``k`` in ``heapq.nlargest(k, ...)``, ``combinations(xs, k)`` or
  ``islice(xs, k)``; a float when it meets a float literal or true division, or in
  ``float(p)``, ``math.isnan(p)``, ``math.radians(p)``, ``sin(p)`` and the other functions
  of a real;
- an element of another parameter ``q`` (an ``int`` for a list, a ``str`` for a string, a
  mapping's key or value): ``p`` compared with ``x`` of ``for x in q`` (also ``k, v`` of
  ``q.items()``, ``x`` of ``enumerate(q)``), with ``q[i]`` or ``q[i] + q[j]``, or ``p in
  q``, ``q.count(p)``, ``q.index(p)``, ``q.append(p)``, ``q.insert(i, p)``;
- a sum is what its terms are: ``tuple(a + b)`` asks a sequence of both;
- a function: ``p(...)``, ``map(p, xs)``, ``filter(p, xs)``, ``reduce(p, xs)`` and the
  other library functions that take a function first (it is given the functions
  :mod:`codequorum.behaviour.edge_values` makes for a ``Callable``: one of a number, then
  the identity);
- an argument of a helper (a function of the module or of the version: ``is_prime(n)``)
  is what the helper's own uses of its parameter ask for, :data:`HELPER_DEPTH` deep.

Where no use asks for a kind, a parameter that every version only moves (returns, assigns,
packs), compares and computes with (``+`` only beside what can only be a number: ``a + b``
alone joins strings and lists too), or never reads, is a number: nothing in the versions
asks more of it (``swap_numbers(a, b)``, ``check_isosceles(x, y, z)``). One read passed to an
unknown function or an unknown method keeps it unknown.

The result is a ``test_inputs.TypeSpec`` (``("list", ("int",))``), or None when the
versions do nothing telling with it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from typing import Any

from codequorum.behaviour.usage_scope import (
    NUMBER_RESULTS,
    Element,
    Scope,
    called_name,
    element_of,
    only_plain,
)

Spec = tuple[Any, ...]
FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef

_MAPPING_METHODS = frozenset({"items", "keys", "values", "get", "setdefault", "popitem"})
_STR_METHODS = frozenset({
    "lower", "upper", "strip", "lstrip", "rstrip", "split", "rsplit", "splitlines",
    "startswith", "endswith", "replace", "find", "rfind", "isdigit", "isalpha", "isalnum",
    "isspace", "isupper", "islower", "title", "capitalize", "casefold", "encode", "format",
    "partition", "rpartition", "zfill", "center", "ljust", "rjust", "swapcase", "expandtabs",
    "translate", "isnumeric", "isdecimal", "isidentifier", "isprintable", "removeprefix",
    "removesuffix",
})
#: ``str``-only methods and how many leading arguments of theirs are strings.
_STR_ARG_METHODS = {"replace": 2, "split": 1, "rsplit": 1, "startswith": 1, "endswith": 1,
                    "find": 1, "rfind": 1, "strip": 1, "lstrip": 1, "rstrip": 1,
                    "partition": 1, "rpartition": 1, "removeprefix": 1, "removesuffix": 1}
#: Compiled-pattern methods and the position of the string they search.
_PATTERN_METHODS = {"findall": 0, "finditer": 0, "search": 0, "match": 0, "fullmatch": 0,
                    "split": 0, "sub": 1, "subn": 1}
_LIST_METHODS = frozenset({"append", "extend", "insert", "pop", "sort", "reverse", "remove",
                           "index", "count", "copy", "clear"})
_SEQUENCE_CALLS = frozenset({"len", "sorted", "sum", "min", "max", "list", "tuple", "set",
                             "enumerate", "reversed", "any", "all", "zip", "iter", "aiter"})
#: Functions of :mod:`math` that take integers or reals (also imported bare).
_MATH_NUMBERS = ("sqrt", "floor", "ceil", "isqrt", "gcd", "lcm", "comb", "perm", "factorial",
                 "log2", "log10", "trunc")
_NUMBER_CALLS = frozenset({"range", "abs", "round", "divmod", "math.log", "bin", "hex", "chr",
                           "int", *_MATH_NUMBERS, *(f"math.{f}" for f in _MATH_NUMBERS)})
#: Math functions of an angle or a real (also imported bare: ``from math import sin``).
_REAL_FUNCTIONS = ("radians", "degrees", "sin", "cos", "tan", "asin", "acos", "atan",
                   "atan2", "exp", "hypot")
_FLOAT_CALLS = frozenset({"float", "math.isnan", "math.isinf", "math.isfinite",
                          *_REAL_FUNCTIONS, *(f"math.{f}" for f in _REAL_FUNCTIONS)})
#: Methods whose argument (at that position) is an element of the receiver:
#: ``q.count(p)``, ``q.insert(i, p)``.
_ELEMENT_ARGS = {"count": 0, "index": 0, "remove": 0, "append": 0, "insert": 1}
_LIST, _LIST_COUNT = ("list",), ("list", "int")
#: Standard-library functions and the kinds of their arguments, per module; each is known
#: by its module's name (``itertools.tee``) and bare (``from itertools import tee``).
_LIBRARY: dict[str, dict[str, tuple[str | None, ...]]] = {
    "itertools": {
        **{f: _LIST_COUNT for f in ("combinations", "combinations_with_replacement",
                                    "permutations", "batched", "tee")},
        **{f: _LIST for f in ("cycle", "accumulate", "groupby", "pairwise")},
        **{f: _LIST * 4 for f in ("chain", "zip_longest", "product")},
        "islice": ("list", "int", "int", "int"), "compress": ("list", "list"),
        **{f: ("callable", "list") for f in ("starmap", "dropwhile", "takewhile",
                                             "filterfalse")},
    },
    "statistics": {f: _LIST for f in ("mean", "median", "mode", "stdev", "variance",
                                      "fmean", "multimode", "pstdev", "pvariance")},
    "collections": {"deque": _LIST, "Counter": _LIST},
    "functools": {"reduce": ("callable", "list")},
    "random": {"sample": _LIST_COUNT, "choice": _LIST, "shuffle": _LIST, "choices": _LIST},
    "heapq": {"heapify": _LIST, "heappop": _LIST, "heappush": _LIST, "heappushpop": _LIST,
              "nlargest": ("int", "list"), "nsmallest": ("int", "list")},
    "math": {"prod": _LIST, "fsum": _LIST},
}
_RE_SEARCH = ("str", "str")
_RE_SUB = ("str", None, "str")
#: Calls whose argument at a position asks for a kind (None: nothing telling).
_ARGUMENT_KINDS: dict[str, tuple[str | None, ...]] = {
    "map": ("callable", "list", "list", "list"), "filter": ("callable", "list"),
    "str": ("int",), "ord": ("str",), "re.compile": ("str",),
    **{name: kinds for module, functions in _LIBRARY.items() for f, kinds in functions.items()
       for name in (f, f"{module}.{f}")},
    **{f"re.{f}": _RE_SEARCH for f in ("findall", "finditer", "search", "match",
                                       "fullmatch", "split")},
    "re.sub": _RE_SUB, "re.subn": _RE_SUB,
}
#: Calls that take a count first; their iterable is told only after a literal count, since
#: a version may swap the two (``heapq.nlargest(nums, k)``), and a list would outrank ``k``.
_COUNT_FIRST = frozenset({"heapq.nlargest", "heapq.nsmallest", "nlargest", "nsmallest"})
#: The kinds in the order a stronger use overrides a weaker one.
_RANK = {"int": 1, "float": 2, "list": 3, "str": 4, "dict": 5, "callable": 6}
_SPECS: dict[str, Spec] = {"int": ("int",), "float": ("float",), "list": ("list", ("int",)),
                           "str": ("str",), "dict": ("dict", ("str",), ("int",)),
                           "callable": ("callable", ("int",), 1)}


def _is(node: ast.AST | None, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _holds(node: ast.AST | None, name: str) -> bool:
    """``name`` itself or one of the terms of a sum (``a + b``): a sum is what its terms
    are, so ``tuple(a + b)`` asks a sequence of both. Iterative: a sum may be thousands of
    terms long."""
    stack = [node]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            stack += [node.left, node.right]
        elif _is(node, name):
            return True
    return False


def _number_kind(other: ast.AST) -> str:
    return "float" if isinstance(other, ast.Constant) and isinstance(other.value, float) \
        else "int"


def _constant_kind(node: ast.AST) -> str | None:
    """``int``, ``float`` or ``str`` for a literal of that type (not ``True``)."""
    if isinstance(node, ast.Constant) and type(node.value) in (int, float, str):
        return {int: "int", float: "float", str: "str"}[type(node.value)]
    return None


def _binop_votes(node: ast.BinOp, name: str) -> Iterable[str]:
    """What ``name``, or a term of a sum standing as an operand (``(a + b) / 2``), is asked
    by this operation."""
    for mine, other in ((node.left, node.right), (node.right, node.left)):
        if not _holds(mine, name):
            continue
        repeats = isinstance(node.op, ast.Mult)  # ``"-" * p``, ``[0] * p``
        if isinstance(other, (ast.Constant, ast.JoinedStr)) and isinstance(
                getattr(other, "value", ""), str):
            yield "int" if repeats else "str"
        elif isinstance(node.op, ast.Mod) and mine is node.left:
            yield "int"
        elif isinstance(node.op, ast.Div):
            yield "float"
        elif isinstance(other, (ast.List, ast.ListComp)):
            yield "int" if repeats else "list"
        elif isinstance(node.op, ast.Add) and not isinstance(other, ast.Constant):
            continue  # ``a + b`` joins strings and lists as well as numbers
        else:
            yield _number_kind(other)


def _indexed_or_iterated(node: ast.AST, name: str) -> bool:
    """``name[...]``, ``for x in name``, ``async for x in name``, ``[... for x in name]``."""
    if isinstance(node, ast.Subscript):
        return _is(node.value, name)
    return isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)) and _is(node.iter, name)


def _membership_kind(container: ast.AST) -> str | None:
    """What ``p in container`` asks of ``p`` for a literal container: ``"aeiou"``,
    ``(1, 2)``."""
    if isinstance(container, (ast.List, ast.Tuple, ast.Set)) and container.elts:
        kinds = {_constant_kind(e) for e in container.elts}
        return kinds.pop() if len(kinds) == 1 else None
    return "str" if _constant_kind(container) == "str" else None


def _pair_votes(op: ast.cmpop, other: ast.AST, on_left: bool) -> Iterator[str]:
    """What one comparison of the parameter with ``other`` asks of it."""
    if isinstance(op, (ast.In, ast.NotIn)):
        if not on_left:
            yield "list"
        elif (kind := _membership_kind(other)) is not None:
            yield kind
    elif isinstance(op, (ast.Is, ast.IsNot)):
        return
    elif (kind := _constant_kind(other)) is not None:
        yield kind
    elif isinstance(other, ast.Call) and called_name(other) in NUMBER_RESULTS:
        yield "int"


def _compare_votes(node: ast.Compare, name: str) -> Iterator[str]:
    operands = [node.left, *node.comparators]
    for i, op in enumerate(node.ops):
        left, right = operands[i], operands[i + 1]
        if _holds(left, name):
            yield from _pair_votes(op, right, True)
        if _holds(right, name):
            yield from _pair_votes(op, left, False)


def _argument_kinds(node: ast.Call, scope: Scope) -> tuple[str | None, ...]:
    """The kind each positional argument of this call asks for, where the callee is known:
    a listed function, a compiled pattern's method, a ``str``-only method."""
    func = node.func
    if (called := scope.called(node)) in _COUNT_FIRST and node.args \
            and isinstance(node.args[0], ast.Name):
        return ("int",)  # ``nlargest(xs, k)`` is written too: the iterable is not told
    if called in _ARGUMENT_KINDS:
        return _ARGUMENT_KINDS[called]
    helper = scope.helper(node)
    if helper is not None:
        return _helper_kinds(helper, scope)
    if not isinstance(func, ast.Attribute):
        return ()
    if scope.is_pattern(func.value) and func.attr in _PATTERN_METHODS:
        return (None,) * _PATTERN_METHODS[func.attr] + ("str",)
    if func.attr in _STR_ARG_METHODS and _may_be_str(func.value, scope):
        return ("str",) * _STR_ARG_METHODS[func.attr]
    return ()


#: How many helpers deep a parameter's use is followed (``f`` -> ``g`` -> ``h``).
HELPER_DEPTH = 2


def _helper_kinds(helper: FunctionNode, scope: Scope) -> tuple[str | None, ...]:
    """The kind each positional parameter of a helper the function calls asks for, by its
    own uses (:data:`HELPER_DEPTH` helpers deep at most)."""
    if scope.depth >= HELPER_DEPTH:
        return ()
    inner = Scope.of(helper, scope.imports, scope.helpers, scope.depth + 1)
    args = helper.args
    return tuple(_own_kind([inner], a.arg) or None for a in (*args.posonlyargs, *args.args))


def _may_be_str(node: ast.AST, scope: Scope) -> bool:
    """Whether a method's receiver may be a string: a string literal, a name the function
    binds itself (not a module: ``np.split(a, 2)``, ``re.split(...)``), an item of one, or
    what a ``str`` method returns."""
    if isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Name):
        return node.id in scope.bound and node.id not in scope.patterns
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr in _STR_METHODS and _may_be_str(node.func.value, scope)
    return isinstance(node, ast.JoinedStr) or _constant_kind(node) == "str"


def _argument_votes(node: ast.Call, name: str, scope: Scope) -> Iterator[str]:
    """What being an argument of this call asks for (by the callee and the position)."""
    kinds = _argument_kinds(node, scope)
    for i, arg in enumerate(node.args):
        if isinstance(arg, ast.Starred) and _is(arg.value, name):
            yield "list"
        elif i < len(kinds) and kinds[i] == "callable":
            if _is(arg, name):  # the function itself, not one that reads it
                yield "callable"
        elif _holds(arg, name) and i < len(kinds) and kinds[i] is not None:
            yield str(kinds[i])
    if any(k.arg is None and _is(k.value, name) for k in node.keywords):
        yield "dict"


#: The kind a type checked with ``isinstance(p, T)`` names.
_TYPE_KINDS = {"int": "int", "float": "float", "str": "str", "list": "list", "tuple": "list",
               "dict": "dict"}


def _checked_kinds(node: ast.Call, name: str) -> Iterator[str]:
    """``isinstance(p, str)``, ``isinstance(p, (int, float))``: the version handles that
    type, so a value of it reaches the branch (the strongest named wins, by rank)."""
    if called_name(node) != "isinstance" or len(node.args) != 2 or not _is(node.args[0], name):
        return
    types = node.args[1]
    for t in types.elts if isinstance(types, ast.Tuple) else [types]:
        if isinstance(t, ast.Name) and t.id in _TYPE_KINDS:
            yield _TYPE_KINDS[t.id]


def _call_votes(node: ast.Call, name: str, scope: Scope) -> Iterator[str]:
    yield from _argument_votes(node, name, scope)
    yield from _checked_kinds(node, name)
    if any(_holds(a, name) for a in node.args):
        called = scope.called(node)
        if called in ("min", "max") and len(node.args) > 1:
            return  # ``max(a, b)`` takes the values themselves
        if called in _SEQUENCE_CALLS:
            yield "list"
        elif called in _NUMBER_CALLS:
            yield "int"
        elif called in _FLOAT_CALLS:
            yield "float"


def _slice_bound(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Slice) and any(
        _is(b, name) for b in (node.lower, node.upper, node.step))


def _index_of_other(node: ast.AST, name: str, scope: Scope) -> bool:
    """``x[p]`` where ``x`` is no parameter (a lambda's item, a local list): ``p`` is an
    index. A parameter's ``q[p]`` says nothing: ``q`` may be a mapping."""
    return isinstance(node, ast.Subscript) and _is(node.slice, name) and not (
        isinstance(node.value, ast.Name) and node.value.id in scope.params)


def _extended_by(node: ast.AST, name: str) -> bool:
    """``xs.extend(p)``: ``p`` is a sequence."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
        and node.func.attr == "extend" and len(node.args) == 1 and _is(node.args[0], name)


def _votes(node: ast.AST, name: str, scope: Scope) -> Iterable[str]:
    """The kinds one node's use of ``name`` asks for."""
    if isinstance(node, ast.Attribute) and _is(node.value, name):
        if node.attr in _MAPPING_METHODS:
            yield "dict"
        elif node.attr in _STR_METHODS:
            yield "str"
        elif node.attr in _LIST_METHODS:
            yield "list"
    elif _indexed_or_iterated(node, name):
        yield "list"
    elif _slice_bound(node, name) or _index_of_other(node, name, scope):
        yield "int"
    elif _extended_by(node, name):
        yield "list"
    elif isinstance(node, ast.Compare):
        yield from _compare_votes(node, name)
    elif isinstance(node, ast.Call) and _is(node.func, name):
        yield "callable"
    elif isinstance(node, ast.Call):
        yield from _call_votes(node, name, scope)
    elif isinstance(node, ast.Dict) and any(
            k is None and _is(v, name) for k, v in zip(node.keys, node.values, strict=True)):
        yield "dict"
    elif isinstance(node, ast.BinOp):
        yield from _binop_votes(node, name)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and _is(node.operand,
                                                                                  name):
        yield "int"
    elif isinstance(node, ast.AugAssign) and _is(node.target, name):
        yield _number_kind(node.value)


def _method_peer(node: ast.Call, name: str, scope: Scope) -> Iterator[Element]:
    """``q.count(p)``, ``q.index(p)``, ``q.remove(p)``, ``q.append(p)``, ``q.insert(i,
    p)``: ``p`` is an element of parameter ``q``."""
    func = node.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
            and func.value.id in scope.params and func.value.id != name \
            and (at := _ELEMENT_ARGS.get(func.attr)) is not None \
            and len(node.args) > at and _is(node.args[at], name):
        yield Element(func.value.id, False)


def _peers(node: ast.AST, name: str, scope: Scope) -> Iterator[Element]:
    """The parameters ``name`` is an element of at this node: ``p == x`` for ``x`` of
    ``for x in q``, ``p < q[i]``, ``p in q``, ``q.count(p)``."""
    if isinstance(node, ast.Call):
        yield from _method_peer(node, name, scope)
    if not isinstance(node, ast.Compare):
        return
    operands = [node.left, *node.comparators]
    for i, op in enumerate(node.ops):
        for mine, other in ((operands[i], operands[i + 1]), (operands[i + 1], operands[i])):
            if not _is(mine, name):
                continue
            if isinstance(op, (ast.In, ast.NotIn)):
                peer = Element(other.id, False) if mine is operands[i] and isinstance(
                    other, ast.Name) and other.id in scope.params else None
            else:
                peer = None if isinstance(op, (ast.Is, ast.IsNot)) else element_of(other, scope)
            if peer is not None and peer.param != name:
                yield peer


def _element_kind(kind: str, indexed: bool) -> str:
    """The kind of an element of a parameter of ``kind``: a list's ``int``, a string's
    ``str``; a mapping's key (``for k in d``, ``p in d``) or value (``d[k]``)."""
    if kind == "dict":
        return "int" if indexed else "str"
    return {"list": "int", "str": "str"}.get(kind, "")


def _strongest(kinds: Iterable[str]) -> str:
    return max(kinds, key=lambda k: _RANK[k], default="")


def _own_kind(scopes: list[Scope], name: str) -> str:
    """The strongest kind the uses of ``name`` itself ask for (no peer's), its aliases'
    uses counted as its own (``cur = start``, then ``cur + 1``)."""
    return _strongest(kind for scope in scopes for held in (name, *scope.aliases_of(name))
                      for node in ast.walk(scope.fn) for kind in _votes(node, held, scope))


def usage_spec(functions: Iterable[FunctionNode], name: str,
               imports: dict[str, str] | None = None,
               helpers: dict[str, FunctionNode] | None = None) -> Spec | None:
    """The type the uses of parameter ``name`` in ``functions`` (the versions) ask for; a
    number where no use asks for a type and every version only moves, compares and
    computes with it (:func:`usage_scope.only_plain`), or never reads it. ``imports``: the
    names the module's imports bind (:func:`usage_scope.imported_names`), so that a
    library's function is known under another name (``it.tee``, ``itertools_pairwise``);
    ``helpers``: the functions of the module and the versions, whose parameters' uses
    speak for what is passed to them (``is_prime(n)``)."""
    scopes = [Scope.of(fn, imports, helpers) for fn in functions]
    own = _own_kind(scopes, name)
    peers = {peer for scope in scopes for held in (name, *scope.aliases_of(name))
             for node in ast.walk(scope.fn) for peer in _peers(node, held, scope)}
    elements = [_element_kind(_own_kind(scopes, peer.param), peer.indexed)
                for peer in sorted(peers)]
    spec = _SPECS.get(_strongest(k for k in (own, *elements) if k))
    if spec is None and scopes and all(only_plain(scope, (name, *scope.aliases_of(name)))
                                       for scope in scopes):
        return _SPECS["int"]
    return spec


__all__ = ["usage_spec"]
