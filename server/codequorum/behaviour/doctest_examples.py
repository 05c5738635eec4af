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
``x.f``), or, for a special method, uses the operator or builtin that calls it (``3 in
sl`` for ``__contains__``, ``len(sl)``, ``sl[0]``, ``a + b``: :data:`OPERATOR_FORMS`), or
reads a name an earlier such example bound or used, or whose value such a call may change
(the object a method is called on, a name passed to the function: ``p.prepend(10)`` then
``next(p)``); an assignment shows nothing and only sets up the examples after it.
"""

from __future__ import annotations

import ast
import builtins
import doctest
from collections.abc import Iterator, Sequence
from dataclasses import replace

from codequorum.behaviour.examples import UNREADABLE, doctest_examples, is_literal_call
from codequorum.core import pyast
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


#: How an example calls a special method without naming it: the comparison operators, the
#: binary (and reflected) operators, in-place operators, unary operators, subscripts, and
#: the builtins that call one.
_COMPARE: dict[str, tuple[type[ast.cmpop], ...]] = {
    "__contains__": (ast.In, ast.NotIn), "__eq__": (ast.Eq, ast.NotEq), "__ne__": (ast.NotEq,),
    "__lt__": (ast.Lt,), "__le__": (ast.LtE,), "__gt__": (ast.Gt,), "__ge__": (ast.GtE,)}
_BINARY: dict[str, type[ast.operator]] = {
    "add": ast.Add, "sub": ast.Sub, "mul": ast.Mult, "truediv": ast.Div,
    "floordiv": ast.FloorDiv, "mod": ast.Mod, "pow": ast.Pow, "matmul": ast.MatMult,
    "and": ast.BitAnd, "or": ast.BitOr, "xor": ast.BitXor, "lshift": ast.LShift,
    "rshift": ast.RShift}
_UNARY: dict[str, type[ast.unaryop]] = {"__neg__": ast.USub, "__pos__": ast.UAdd,
                                        "__invert__": ast.Invert}
_SUBSCRIPT: dict[str, type[ast.expr_context]] = {
    "__getitem__": ast.Load, "__setitem__": ast.Store, "__delitem__": ast.Del}
_BUILTINS: dict[str, frozenset[str]] = {
    "__len__": frozenset({"len"}), "__repr__": frozenset({"repr"}),
    "__str__": frozenset({"str", "print", "format"}), "__hash__": frozenset({"hash"}),
    "__bool__": frozenset({"bool"}), "__abs__": frozenset({"abs"}),
    "__reversed__": frozenset({"reversed"}), "__next__": frozenset({"next"}),
    "__iter__": frozenset({"iter", "list", "tuple", "sorted", "set", "sum", "enumerate"}),
    "__int__": frozenset({"int"}), "__float__": frozenset({"float"}),
    "__round__": frozenset({"round"}), "__format__": frozenset({"format"})}


#: Where Python asks an object for its truth (``__bool__``): ``if p:``, ``while p:``,
#: ``x if p else y``, ``assert p``, ``not p``.
_TRUTH_TESTS = (ast.If, ast.While, ast.IfExp, ast.Assert)


def _operator_form(node: ast.AST, name: str) -> bool:
    """Whether ``node`` calls the special method ``name`` through its operator or builtin."""
    if name == "__bool__" and (isinstance(node, _TRUTH_TESTS) or (
            isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not))):
        return True
    if isinstance(node, ast.Compare):
        return any(isinstance(op, _COMPARE.get(name, ())) for op in node.ops)
    if isinstance(node, ast.BinOp | ast.AugAssign):
        return _binary_form(node, name.strip("_"))
    if isinstance(node, ast.UnaryOp):
        return name in _UNARY and isinstance(node.op, _UNARY[name])
    if isinstance(node, ast.Subscript):
        return name in _SUBSCRIPT and isinstance(node.ctx, _SUBSCRIPT[name])
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id in _BUILTINS.get(name, frozenset())
    return name == "__iter__" and isinstance(node, ast.For | ast.comprehension)


def _binary_form(node: ast.BinOp | ast.AugAssign, core: str) -> bool:
    """``a + b`` calls ``__add__`` (and ``__radd__``), ``a += b`` ``__iadd__``."""
    if core in _BINARY:
        return isinstance(node, ast.BinOp) and isinstance(node.op, _BINARY[core])
    kind, op = core[:1], _BINARY.get(core[1:])
    if op is None or not isinstance(node.op, op):
        return False
    return isinstance(node, ast.AugAssign) if kind == "i" else kind == "r"


def invokes(tree: ast.AST, name: str) -> bool:
    """Whether the example ``tree`` calls the special method ``name`` without naming it."""
    if not (name.startswith("__") and name.endswith("__")):
        return False
    return any(_operator_form(node, name) for node in ast.walk(tree))


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


def _touched(tree: ast.AST, name: str) -> set[str]:
    """Names whose value a call of ``name`` in ``tree`` may change: the object a method is
    called on (``p`` in ``p.prepend(10)``) and the names passed to it (``xs`` in
    ``shuffle(xs)``), so an example that shows them after the call (``next(p)``, ``xs``)
    is an input too."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == name and isinstance(
                node.value, ast.Name):
            out.add(node.value.id)
        if isinstance(node, ast.Call) and (
                (isinstance(node.func, ast.Name) and node.func.id == name)
                or (isinstance(node.func, ast.Attribute) and node.func.attr == name)):
            given = [*node.args, *(k.value for k in node.keywords)]
            out |= {a.id for a in given if isinstance(a, ast.Name)}
    return out


def _parsed(source: str) -> ast.Module | None:
    if len(source) > MAX_SOURCE_CHARS:
        return None
    try:
        return pyast.parse(source, mode="exec")
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


#: Names every example may read: Python's builtins and what doctest gives.
_GIVEN = frozenset(dir(builtins)) | {"__name__", "__builtins__"}


def module_names(source: str) -> frozenset[str] | None:
    """The names a module's top level binds (its imports, assignments, definitions), which
    its docstrings' examples may read; None where that cannot be told (``import *``, a
    text that does not parse)."""
    tree = _parsed_module(source)
    if tree is None:
        return None
    out: set[str] = set()
    stack: list[ast.AST] = list(tree.body)
    while stack:  # the top level, into ``if``/``try``/``with`` but not into definitions
        node = stack.pop()
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            return None
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
            continue
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
                             ast.GeneratorExp)):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        elif isinstance(node, ast.alias):
            out.add((node.asname or node.name).partition(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.add(node.name)
        stack.extend(ast.iter_child_nodes(node))
    return frozenset(out)


def _unbound(tree: ast.Module, bound: set[str], given: frozenset[str] | None) -> set[str]:
    """The names an example reads that nothing gives it: not the module's (``given``),
    not an earlier example's, not its own, not a builtin (``semver.compare(...)`` in a
    module that never imports ``semver``). Empty where ``given`` is None (not known)."""
    if given is None:
        return set()
    own = _bound_names(tree) | {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}
    read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
            and isinstance(n.ctx, ast.Load)}
    return read - own - bound - given - _GIVEN


def _cases(examples: Sequence[doctest.Example], name: str, may_grade: bool,
           given: frozenset[str] | None = None) -> Iterator[TestCase]:
    """The example cases of a docstring's ``examples`` for the function ``name``; one
    reading a name nothing gives it (:func:`_unbound`) would raise ``NameError`` in every
    version alike before reaching it: no input."""
    tainted = {name}
    bound: set[str] = set()
    sources: list[str] = []
    caller = ""  # the last example that called the function itself (``it = sl.irange(...)``)
    for example in examples:
        source = example.source
        tree = _parsed(source)
        if tree is None:
            sources.append(source)
            continue
        if _unbound(tree, bound, given):
            sources.append(source)
            continue
        bound |= _bound_names(tree)
        read, attrs = _names_in(tree)
        operator = invokes(tree, name)
        direct = name in attrs or name in read or operator
        calls = direct or bool(read & tainted)
        if calls:
            tainted |= _bound_names(tree) | (read if operator else set()) | _touched(tree, name)
        if calls and _shows(tree, example.want) and not is_literal_call(source, name):
            want = example.want if may_grade and example.want.strip() else None
            label = _label(tree) if direct or not caller else _after(_label(tree), caller)
            yield TestCase(kind="example", source=source, setup=_setup(sources),
                           expected=want, has_expected=want is not None,
                           flags=_flags(example), name=label)
        if direct:
            caller = _label(tree)
        sources.append(source)


def example_cases(fn: FunctionNode | ast.ClassDef, name: str, may_grade: bool,
                  given: frozenset[str] | None = None) -> list[TestCase]:
    """The examples of ``fn``'s docstring that call ``name`` and that the literal-call
    path does not read, each with the examples before it; expected text only when
    ``may_grade`` (the docstring is the user's); ``given``: the names its module binds
    (:func:`module_names`; None: not known), so an example reading none of them and
    nothing else gives it is left out."""
    doc = ast.get_docstring(fn, clean=True)
    if not doc or ">>>" not in doc:
        return []
    doc = "\n".join("" if len(line) > MAX_EXAMPLE_LINE_CHARS else line
                    for line in doc.splitlines())
    out: list[TestCase] = []
    seen: set[tuple[str, tuple[str, ...]]] = set()
    labels: set[str] = set()
    for case in _cases(doctest_examples(doc), name, may_grade, given):
        key = (case.source or "", case.setup)
        if key in seen:
            continue
        seen.add(key)
        case = _distinct_label(case, labels)
        labels.add(case.name)
        out.append(case)
        if len(out) >= MAX_EXAMPLES:
            break
    return out


def _after(label: str, earlier: str) -> str:
    """``list(it) (after it = sl.irange('c', 'f'))``: an example that shows what an earlier
    one's call of the function gave, labelled with that call, within :data:`LABEL_CHARS`
    twice over (the call is the point of the label)."""
    text = f"{label} (after {earlier})"
    return text if len(text) <= 2 * LABEL_CHARS else text[: 2 * LABEL_CHARS - 4] + "...)"


def _distinct_label(case: TestCase, labels: set[str]) -> TestCase:
    """``case``, its label telling it from an earlier example with the same code (``one(it)``
    after ``it = []`` and again after ``it = ['too', 'many']``): the example it follows."""
    if case.name not in labels or not case.setup:
        return case
    last = " ".join(case.setup[-1].split("#", 1)[0].split())
    name = f"{case.name} (after {last})"
    return replace(case, name=name if len(name) <= LABEL_CHARS
                   else name[: LABEL_CHARS - 4] + "...)")


#: Names an instance's expression may read besides literals: builtins that make values.
VALUE_BUILTINS = frozenset({"range", "list", "tuple", "dict", "set", "frozenset", "str",
                            "int", "float", "bool", "bytes", "complex", "sorted", "reversed"})
#: Instances of a class read from its examples, at most.
MAX_INSTANCES = 4


def class_node(tree: ast.Module, owner: str) -> ast.ClassDef | None:
    """The class ``owner`` (dotted for a nested class) defined in ``tree``."""
    body: list[ast.stmt] = tree.body
    found: ast.ClassDef | None = None
    for part in owner.split("."):
        found = next((n for n in body if isinstance(n, ast.ClassDef) and n.name == part),
                     None)
        if found is None:
            return None
        body = found.body
    return found


def _makes(node: ast.AST, cls: str) -> bool:
    """Whether ``node`` is ``cls(...)`` whose arguments read no name but
    :data:`VALUE_BUILTINS` (literals, ``range(100)``, ``list(range(19)) + [949]``)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == cls):
        return False
    parts = [*node.args, *(k.value for k in node.keywords)]
    return all((isinstance(n, ast.Name) and n.id in VALUE_BUILTINS) or
               not isinstance(n, (ast.Name, ast.Lambda, ast.NamedExpr, ast.Await, ast.Yield))
               for part in parts for n in ast.walk(part)) \
        and all(k.arg is not None for k in node.keywords)


def class_instances(source: str, owner: str, limit: int = MAX_INSTANCES) -> list[str]:
    """Expressions that make an instance of the class ``owner``, read from the ``>>>``
    examples of its docstring and its methods' (``Stats(range(100))``, ``Stats([2, 1,
    3])``): what a method without examples of its own is called on. Only the class called
    with values (no other names), distinct, in reading order."""
    tree = _parsed_module(source)
    node = None if tree is None else class_node(tree, owner)
    if node is None:
        return []
    cls = owner.rpartition(".")[2]
    holders: list[ast.AST] = [node, *(n for n in node.body
                                      if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]
    out: list[str] = []
    for holder in holders:
        doc = ast.get_docstring(holder, clean=True)  # type: ignore[arg-type]
        if not doc or ">>>" not in doc:
            continue
        for example in doctest_examples(doc):
            example_tree = _parsed(example.source)
            for sub in ast.walk(example_tree) if example_tree is not None else ():
                text = ast.unparse(sub) if _makes(sub, cls) else None
                if text is not None and text not in out and len(text) <= LABEL_CHARS:
                    out.append(text)
                    if len(out) >= limit:
                        return out
    return out


def class_example_cases(source: str, owner: str, name: str, may_grade: bool
                        ) -> list[TestCase]:
    """The examples of the class ``owner``'s docstring in the module ``source`` that call
    its method ``name`` (``p.peek()``, ``next(p)`` for ``__next__``, ``if p:`` for
    ``__bool__``): the inputs of a method whose own docstring has none."""
    tree = _parsed_module(source)
    node = None if tree is None else class_node(tree, owner)
    return [] if node is None else example_cases(node, name, may_grade)


def _parsed_module(source: str) -> ast.Module | None:
    """The module's text parsed, or None when it does not parse."""
    try:
        return pyast.parse(source)
    except UNREADABLE:
        return None


__all__ = ["MAX_EXAMPLES", "class_example_cases", "class_instances", "class_node",
           "example_cases", "invokes", "module_names"]
