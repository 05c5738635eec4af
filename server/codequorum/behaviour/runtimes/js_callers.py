"""Calls of a JavaScript or TypeScript function with literal arguments in its module's view
and the workspace's files that name it: how its module, the modules beside it and its
tests call it (read with tree-sitter; nothing runs).

The JavaScript side of :mod:`codequorum.behaviour.callers`, under its bounds: the files of
``ModuleContext.files`` (the module's own first) and ``ModuleContext.callers``, the
characters of a file parsed, the calls taken. A call counts when it names the function
(``f(...)``; ``obj.f(...)`` for a method; for a plain function ``lib.f(...)`` only through
its module: ``exports``, a name the file imports from it or from a package,
``require('./mod').f``, never a string's ``s.trim()``; a tagged template ``f`...` ``) and every
argument is a literal (``js_literals.py``; a tagged template's are its strings array and
its substitutions, each a literal); a call inside a function of that name (recursion) does not. A
method's call on an instance the call makes, ``new SemVer('1.2.3-beta').comparePre('1.2.3')``,
keeps the constructor's literal arguments: the instance its test runs on. A file
named ``*.test.js``, ``*.spec.ts``, ``test.js`` or under a ``test``/``tests``/``__tests__``
folder is a test, and what its assertions say a call gives (``expect(f(1)).toBe(2)``,
``expect(() => f(NaN)).toThrow()``: ``js_expectations.py``) comes with the call; a
table-driven test's call (``test.each``) is read once per row (``js_each.py``). An
assertion counts only where the test runs the call in a plain state (no set-up hook, nothing
called before it that could change what the function gives: ``js_plain.py``). An assertion
on an expression wrapping one such call, ``expect([...range(3)]).toEqual([0, 1, 2])``,
``Array.from(f(x)).length``, gives that expression too, run whole as a code example is
(``js_example_code.py``): graded as the test grades it, beside the bare call.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from tree_sitter import Node

from codequorum.behaviour.callers import (
    MAX_CALLS,
    MAX_FILE_CHARS,
    MAX_FOUND,
    MAX_GRADED,
    Taken,
    keep,
    taken,
)
from codequorum.behaviour.expectations import Expectation
from codequorum.behaviour.runtimes import js_example_code
from codequorum.behaviour.runtimes.js_each import Case, case_bindings
from codequorum.behaviour.runtimes.js_expectations import JsStated, Key, expectations, key
from codequorum.behaviour.runtimes.js_literals import NotLiteral, call_arguments, node_text
from codequorum.behaviour.runtimes.js_local_literals import held_at
from codequorum.behaviour.runtimes.js_plain import plain_calls
from codequorum.behaviour.runtimes.js_values import show_call
from codequorum.core.limits import InputLimitError
from codequorum.core.model import ModuleContext
from codequorum.core.parsing import parse

#: Folders whose files are tests.
TEST_FOLDERS = frozenset({"test", "tests", "__tests__", "spec"})
#: Function-like nodes whose name is read to leave recursion out.
_DEFINITIONS = frozenset({"function_declaration", "generator_function_declaration",
                          "method_definition", "variable_declarator", "pair"})


@dataclass(frozen=True)
class JsCall:
    """Literal arguments of one call, whether a test made it, where it is
    (``test/inc.js:12``), for a method called on ``new Owner(...)`` that instance's
    constructor arguments (None: called on something else), and what the test's
    assertion says it gives (None: no assertion states it)."""

    args: tuple[Any, ...]
    in_test: bool
    where: str
    receiver: tuple[Any, ...] | None = None
    expectation: Expectation | None = None
    #: where the assertion states what an expression wrapping the call gives
    #: (``[...range(3)]``, ``f(x).length``, a matcher's ``!!(f(x))``): that expression's
    #: label, and the source of a function of no parameter returning it
    #: (``js_example_code.example_source``)
    wrapped: tuple[str, str] | None = None


def is_test_file(path: str) -> bool:
    """``x.test.js``, ``x.spec.ts``, ``test.js``, or a file under a test folder."""
    p = PurePosixPath(path)
    stem = p.name.split(".")
    return (stem[0] in ("test", "tests") or any(s in ("test", "spec") for s in stem[1:-1])
            or any(part in TEST_FOLDERS for part in p.parts[:-1]))


def grammar(path: str) -> str:
    """The tree-sitter grammar of a file, from its suffix."""
    if path.endswith(".tsx"):
        return "tsx"
    return "typescript" if path.endswith((".ts", ".mts", ".cts")) else "javascript"


#: What a plain function is called through in any file (``exports.f(...)``): its module.
_SELF_RECEIVERS = frozenset({"this", "exports", "module"})


def _leftmost(node: Node) -> Node:
    """The object a chain of member reads starts from (``a`` of ``a.b.c``)."""
    while node.type in ("member_expression", "parenthesized_expression", "non_null_expression"):
        inner = node.child_by_field_name("object") if node.type == "member_expression" \
            else (node.named_children[0] if node.named_children else None)
        if inner is None:
            break
        node = inner
    return node


def _through_ok(obj: Node, through: frozenset[str], importer: str, module: str | None) -> bool:
    """Whether ``obj.f(...)`` calls the function of ``module`` from the file ``importer``:
    ``obj`` starts from a name in ``through`` (the module's exports, a name the file
    imports from it) or is ``require(...)`` of it; a string's ``s.trim()``, a parameter's
    or a local's method is another function of the same name."""
    start = _leftmost(obj)
    if start.type in ("identifier", "this"):
        return node_text(start) in through
    fn = start.child_by_field_name("function") if start.type == "call_expression" else None
    args = start.child_by_field_name("arguments") if fn is not None else None
    if fn is None or args is None or node_text(fn) != "require" or module is None:
        return False
    first = args.named_children[0] if args.named_children else None
    return first is not None and first.type == "string" and _from_module(
        node_text(first)[1:-1], importer, module)


def _names(call: Node, name: str, through: tuple[frozenset[str], str, str | None] | None
           ) -> bool:
    """``name(...)``, or ``obj.name(...)``: any ``obj`` for a method (``through`` None),
    else one :func:`_through_ok` allows."""
    callee = call.child_by_field_name("function")
    if callee is None:
        return False
    if callee.type == "identifier":
        return node_text(callee) == name
    prop = callee.child_by_field_name("property") if callee.type == "member_expression" else None
    if prop is None or node_text(prop) != name:
        return False
    obj = callee.child_by_field_name("object")
    return through is None or (obj is not None and _through_ok(obj, *through))


def _defines(node: Node, name: str) -> bool:
    if node.type not in _DEFINITIONS:
        return False
    key = node.child_by_field_name("name") or node.child_by_field_name("key")
    return key is not None and node_text(key) == name


def _calls(root: Node, name: str,
           through: tuple[frozenset[str], str, str | None] | None = None) -> list[Node]:
    """Calls of ``name`` in reading order (through what :func:`_names` allows), none
    inside a definition of ``name``."""
    out: list[Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if _defines(node, name):
            continue
        if node.type == "call_expression" and _names(node, name, through):
            out.append(node)
        stack.extend(reversed(node.children))
    return out


def _names_class(text: str, owner: str) -> bool:
    """Whether ``new text(...)`` makes an ``owner`` (``Geo.Plane.Box``): its full name or
    the last parts of it (``Plane.Box``, ``Box``, as code inside its namespace names it)."""
    text = "".join(text.split())
    return owner == text or owner.endswith("." + text)


def _receiver(call: Node, owner: str) -> tuple[Any, ...] | None:
    """The literal arguments of ``new owner(...)`` when the call is a method called on it."""
    callee = call.child_by_field_name("function")
    obj = callee.child_by_field_name("object") if callee is not None else None
    while obj is not None and obj.type == "parenthesized_expression" and obj.named_children:
        obj = obj.named_children[0]
    if obj is None or obj.type != "new_expression":
        return None
    ctor = obj.child_by_field_name("constructor")
    if ctor is None or not _names_class(node_text(ctor), owner):
        return None
    return _arguments(obj) if obj.child_by_field_name("arguments") is not None else ()


def _arguments(call: Node, bound: Case | None = None) -> tuple[Any, ...] | None:
    try:
        return call_arguments(call, bound)
    except (NotLiteral, ValueError):
        return None


#: What a module's file may end with, left out when an import names it.
_SUFFIXES = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")


def _stem(path: str) -> str:
    for suffix in _SUFFIXES:
        if path.endswith(suffix):
            return path[:-len(suffix)]
    return path


def _names_module(specifier: str, importer: str, module: str) -> bool:
    """Whether an import of ``specifier`` in the file ``importer`` loads the file
    ``module`` (workspace paths): a relative path to it, with or without its suffix (a
    TypeScript file imported as ``./fmt.js`` too), or to a folder holding it, whose index
    gathers its files (``import { slug } from '../src'``, ``src/index.ts`` re-exporting
    ``./utils``: a test imports a library's functions so)."""
    if not specifier.startswith("."):
        return False  # a package: not a file of this workspace that we can tell
    target = _stem(posixpath.normpath(posixpath.join(posixpath.dirname(importer), specifier)))
    own = _stem(module)
    if target.endswith("/index"):
        target = target[:-len("/index")]
    return target == own or (target not in (".", "..") and not target.startswith("../")
                             and own.startswith(target + "/"))


def _bound_names(node: Node) -> set[str]:
    """The local names an import clause or a ``require`` binding's pattern binds."""
    out: set[str] = set()
    stack = [node]
    while stack:
        cur = stack.pop()
        if cur.type == "import_specifier":
            alias = cur.child_by_field_name("alias") or cur.child_by_field_name("name")
            out.add(node_text(alias) if alias is not None else "")
            continue
        if cur.type in ("identifier", "shorthand_property_identifier_pattern"):
            out.add(node_text(cur))
        elif cur.type == "pair_pattern":
            value = cur.child_by_field_name("value")
            out.update([node_text(value)] if value is not None else [])
            continue
        stack.extend(cur.named_children)
    return out


def _imports(root: Node) -> Iterator[tuple[str, set[str]]]:
    """Each top-level import of the file: its specifier and the names it binds (ESM
    ``import``, and ``const {a} = require('x')``)."""
    for statement in root.named_children:
        if statement.type == "import_statement":
            source = statement.child_by_field_name("source")
            clause = next((c for c in statement.named_children if c.type == "import_clause"),
                          None)
            if source is not None and clause is not None:
                yield node_text(source)[1:-1], _bound_names(clause)
        elif statement.type in ("lexical_declaration", "variable_declaration"):
            for declarator in statement.named_children:
                value = declarator.child_by_field_name("value")
                bound = declarator.child_by_field_name("name")
                fn = value.child_by_field_name("function") if value is not None and \
                    value.type == "call_expression" else None
                args = value.child_by_field_name("arguments") if fn is not None and \
                    value is not None else None
                if fn is None or node_text(fn) != "require" or args is None or bound is None \
                        or not args.named_children or args.named_children[0].type != "string":
                    continue
                yield node_text(args.named_children[0])[1:-1], _bound_names(bound)


def _from_module(specifier: str, importer: str, module: str) -> bool:
    """Whether ``specifier`` may load ``module`` from ``importer``: a relative path to it
    (:func:`_names_module`) or a package (the workspace's own, perhaps: not told apart)."""
    return not specifier.startswith(".") or _names_module(specifier, importer, module)


def receivers(root: Node, importer: str, module: str | None) -> frozenset[str]:
    """The names a plain function of ``module`` is called through in the file
    ``importer`` (``lib.f(...)``, ``_.f(...)``): its module's exports, and in another
    file the names it imports from that module or a package; ``module`` None: the
    module's own file, where only its exports are."""
    names = set(_SELF_RECEIVERS)
    if module is not None:
        for spec, bound in _imports(root):
            if _from_module(spec, importer, module):
                names |= bound
    return frozenset(names)


def imports_function(root: Node, importer: str, module: str, name: str) -> bool:
    """Whether the file ``importer`` binds ``name`` by importing the file ``module``: a
    test calling a ``name`` it takes from elsewhere asserts what another function gives."""
    return any(name in names and _names_module(spec, importer, module)
               for spec, names in _imports(root))


def _bare_calls(root: Node, name: str) -> set[Key]:
    """:func:`key` of each call of the bare name ``name`` (``f(...)``, not ``o.f(...)``)."""
    out: set[Key] = set()
    stack = [root]
    while stack:
        cur = stack.pop()
        fn = cur.child_by_field_name("function") if cur.type == "call_expression" else None
        if fn is not None and fn.type == "identifier" and node_text(fn) == name:
            out.add(key(cur))
        stack.extend(cur.children)
    return out


def _file_calls(path: str, root: Node, name: str, owner: str | None,
                module: str | None) -> Iterator[JsCall]:
    """Every literal call of ``name`` in one file, in reading order, each with what the
    file's tests assert it gives (a table-driven test's once per row)."""
    in_test = is_test_file(path)
    plain = plain_calls(root, name) if in_test else set()
    if in_test and module is not None and not imports_function(root, path, module, name):
        plain -= _bare_calls(root, name)  # a bare call of a name it did not take from us
    stated_all = expectations(root) if in_test else {}
    said = {k: v for k, v in stated_all.items() if k in plain}
    cases = case_bindings(root, plain) if in_test else {}
    through = None if owner else (receivers(root, path, module), path, module)
    calls = _calls(root, name, through)
    language = "javascript" if grammar(path) == "javascript" else "typescript"
    for call in calls:
        receiver = _receiver(call, owner) if owner else None
        stated = said.get(key(call))
        direct = stated if stated is not None and stated.shape is None else None
        wrapper = _wrapper(call, stated_all, calls) \
            if key(call) in plain and owner is None else None
        where = f"{path}:{call.start_point[0] + 1}"
        for case in cases.get(key(call), [{}]):
            bound = {**held_at(call, case), **case} if in_test else case
            args = _arguments(call, bound)
            if args is None:
                continue
            yield JsCall(args, in_test, where, receiver,
                         None if direct is None else direct.resolve(bound))
            found = _wrapped(wrapper, call, args, bound, language) if wrapper else None
            if found is not None:
                yield JsCall(args, True, where, None, found[2], (found[0], found[1]))


#: How far above a call an assertion's expression wrapping it is looked for.
_WRAPPER_DEPTH = 6


def _wrapper(call: Node, stated: dict[Key, JsStated], calls: list[Node]
             ) -> tuple[Node, JsStated] | None:
    """The expression an assertion states something of that wraps ``call`` and no other
    call of the function (``expect([...range(3)]).toEqual([0, 1, 2])``), or ``call``
    itself where the matcher says it of an expression of its value (``toHaveLength``,
    ``toBeTruthy``, ``assert.ok``); None where an assertion states its value plainly or
    none states anything."""
    node: Node | None = call
    for _ in range(_WRAPPER_DEPTH):
        if node is None or node.type.endswith(("statement", "declaration")):
            return None
        found = stated.get(key(node))
        if found is not None and node is call and found.shape is None:
            return None  # ``expect(f(1)).toBe(2)``: the call's own expected value
        if found is not None:
            inner = [c for c in calls if key(node)[0] <= key(c)[0] and key(c)[1] <= key(node)[1]]
            return (node, found) if len(inner) == 1 else None
        node = node.parent
    return None


def _wrapped(wrapper: tuple[Node, JsStated], call: Node, args: tuple[Any, ...],
             bound: Case, language: str) -> tuple[str, str, Expectation] | None:
    """The label of the wrapping expression with the call written with its literal
    ``args`` (a table's row, a name the test holds a literal in: read already; a matcher's
    shape around it, or its words where the shape's code is no reading matter), the source
    of a function of no parameter returning it, and what the assertion states of it; None
    where it does not parse or says nothing."""
    node, stated = wrapper
    callee = call.child_by_field_name("function")
    if callee is None or callee.type != "identifier":
        return None
    data = node.text or b""
    start, end = call.start_byte - node.start_byte, call.end_byte - node.start_byte
    written = show_call(node_text(callee), args).encode("utf-8")
    inner = (data[:start] + written + data[end:]).decode("utf-8", "replace")
    text = stated.shape[0] + inner + stated.shape[1] if stated.shape is not None else inner
    label = stated.said_as[0] + inner + stated.said_as[1] if stated.said_as is not None \
        else text
    said = stated.resolve(bound)
    source = js_example_code.example_source(text, [], language)
    return None if source is None or said is None else (label, source, said)


def literal_calls(context: ModuleContext, name: str, limit: int = MAX_CALLS) -> Taken[JsCall]:
    """Distinct literal calls of ``name`` in the view's files and the workspace's files
    that name it, the module's own file first, in reading order: those a test grades up to
    :data:`~codequorum.behaviour.callers.MAX_GRADED`, the others up to ``limit``
    (:func:`~codequorum.behaviour.callers.taken`); for a method, those on an instance of
    its class the call makes come first."""
    files = [*sorted(context.files, key=lambda f: f[0] != context.path), *context.callers]
    owner = context.owner if context.kind == "method" else None
    out: list[JsCall] = []
    seen: dict[str, int] = {}
    for path, text in files:
        if len(text) > MAX_FILE_CHARS or name not in text or path.endswith(".json"):
            continue
        try:
            root = parse(text, grammar(path)).root_node
        except InputLimitError:
            continue
        for found in _file_calls(path, root, name, owner,
                                 context.path if path != context.path else None):
            keep(out, seen, repr((found.args, found.receiver, found.wrapped)), found)
            if len(out) >= MAX_FOUND:
                break
        if len(out) >= MAX_FOUND:
            break
    if owner is None:
        return taken(out, limit)
    first = taken([c for c in out if c.receiver is not None], limit)  # on an instance made
    graded = sum(c.expectation is not None for c in first)
    rest = taken([c for c in out if c.receiver is None], limit - (len(first) - graded),
                 MAX_GRADED - graded)
    both: Taken[JsCall] = Taken([*first, *rest])
    both.graded_left_out = first.graded_left_out + rest.graded_left_out
    return both


__all__ = ["JsCall", "imports_function", "is_test_file", "literal_calls"]
