"""Which calls of a JavaScript or TypeScript test file run in a plain state: the JavaScript
side of :mod:`codequorum.behaviour.plain_tests`.

``i18n.activate('fr'); expect(ordinal(1)).toBe('1er')`` says what ``ordinal`` gives under a
French locale, not what it gives: such an assertion must not grade the versions. A call is
plain when no block around it (the file, a ``describe`` callback) holds a set-up hook
(``beforeEach``, ``beforeAll``, ``before``, ``setup``: it runs before each test of its
block), and in each block around it nothing before it calls anything but the function
itself, the runner, assertions and a few globals that make values (:data:`HARMLESS`).
Read with tree-sitter.
"""

from __future__ import annotations

from tree_sitter import Node

from codequorum.behaviour.runtimes.js_each import test_helpers
from codequorum.behaviour.runtimes.js_expectations import (
    ASSERT_EQUALS,
    ASSERT_OBJECTS,
    EQUALS,
    IS,
    THROWS,
    Key,
    key,
)
from codequorum.behaviour.runtimes.js_literals import node_text

#: The test runner's own calls.
RUNNER = frozenset({"describe", "it", "test", "each", "only", "suite", "context", "expect",
                    "require", "import"})
#: Globals and methods that make values and change nothing a function gives.
HARMLESS = frozenset({"Number", "String", "Boolean", "BigInt", "Symbol", "Array", "from",
                      "of", "Object", "entries", "keys", "values", "fromEntries", "Date",
                      "Map", "Set", "JSON", "stringify", "parse", "isArray", "freeze",
                      "throws", "rejects", "resolves", "toThrow", "toThrowError", "not",
                      "to", "be", "deep", "forEach", "raw", "toString", "join", "concat",
                      "slice", "split", "trim", "toUpperCase", "toLowerCase", "repeat",
                      "padStart", "padEnd", "map", "filter", "flat", "includes",
                      "startsWith", "endsWith", "structuredClone"})
#: Hooks that run before the tests and may change what a function gives.
HOOKS = frozenset({"beforeEach", "beforeAll", "before", "setup", "suiteSetup"})
#: Where a statement list ends a function's or the file's reading order.
_FUNCTIONS = frozenset({"arrow_function", "function_expression", "function",
                        "function_declaration", "method_definition"})


def _callee(call: Node) -> str:
    fn = call.child_by_field_name("function")
    if fn is None:
        return ""
    if fn.type == "call_expression":  # test.each(table)(title, fn): the runner's
        return _callee(fn)
    if fn.type == "member_expression":
        prop = fn.child_by_field_name("property")
        return node_text(prop) if prop is not None else ""
    return node_text(fn)


def _calls(node: Node) -> list[Node]:
    """The calls in ``node``, not those inside a function it holds."""
    out: list[Node] = []
    stack = [node]
    while stack:
        cur = stack.pop()
        if cur is not node and cur.type in _FUNCTIONS:
            continue
        if cur.type == "call_expression":
            out.append(cur)
        stack.extend(cur.children)
    return out


def _on_expect(fn: Node) -> bool:
    """Whether a method is read on ``expect(...)``'s chain (``expect(x).not.toBeTruthy``):
    an assertion, whatever its matcher, changes nothing a function gives."""
    node: Node | None = fn
    while node is not None and node.type == "member_expression":
        node = node.child_by_field_name("object")
    if node is not None and node.type == "identifier" and node_text(node) == "expect":
        return True  # an asymmetric matcher: expect.any(String)
    inner = node.child_by_field_name("function") if node is not None and \
        node.type == "call_expression" else None
    return inner is not None and inner.type == "identifier" and node_text(inner) == "expect"


def _foreign(call: Node, name: str, helpers: frozenset[str] = frozenset()) -> bool:
    callee = _callee(call)
    fn = call.child_by_field_name("function")
    if fn is not None and fn.type == "member_expression":
        holder = fn.child_by_field_name("object")
        if holder is not None and node_text(holder) in ASSERT_OBJECTS:
            return False  # assert.strictEqual, t.is
        if _on_expect(fn):
            return False  # expect(x).toBeTruthy(), expect(x).to.have.length(2)
    known = RUNNER | HARMLESS | EQUALS | THROWS | ASSERT_EQUALS | ASSERT_OBJECTS | frozenset(IS)
    return callee != name and callee not in known and callee not in helpers


def _statements(block: Node) -> list[Node]:
    body = block.child_by_field_name("body") if block.type in _FUNCTIONS else block
    if body is None:
        return []
    if body.type != "statement_block" and block.type in _FUNCTIONS:
        return [body]  # an arrow with an expression body
    return [c for c in body.named_children if c.type != "comment"]


def _functions(node: Node) -> list[Node]:
    """The outermost functions inside ``node``."""
    out: list[Node] = []
    stack = list(node.children)
    while stack:
        cur = stack.pop()
        if cur.type in _FUNCTIONS:
            out.append(cur)
            continue
        stack.extend(cur.children)
    return out


def _sets_up(statements: list[Node]) -> bool:
    """Whether one of a block's statements is a set-up hook (``beforeEach(...)``): it runs
    before every test of the block, wherever it stands."""
    for statement in statements:
        expr = statement.named_children[0] if (statement.type == "expression_statement"
                                               and statement.named_children) else None
        if expr is not None and expr.type == "call_expression" and _callee(expr) in HOOKS:
            return True
    return False


def plain_calls(root: Node, name: str) -> set[Key]:
    """``js_expectations.key`` of every call of the file made in a plain state (module
    docstring). Each function's statements are read in order; a function a statement holds
    is read in its own order, from the state before that statement (without recursion: a
    file may nest functions thousands deep)."""
    helpers = _clean_helpers(root, name)
    plain: set[Key] = set()
    pending = [root]
    while pending:
        node = pending.pop()
        statements = _statements(node)
        if _sets_up(statements):
            continue  # a hook's block (the file, a describe): nothing in it is plain
        tainted = False
        for statement in statements:
            calls = _calls(statement)
            if not tainted:
                plain.update(key(c) for c in calls)
                pending.extend(_functions(statement))
            tainted = tainted or any(_foreign(c, name, helpers) for c in calls)
    return plain


def _clean_helpers(root: Node, name: str) -> frozenset[str]:
    """The test file's helpers (``function check(input, want) {...}``) that call nothing
    but the function, the runner, assertions and harmless globals: calling one changes
    nothing (``js_each.py`` reads its calls as cases)."""
    return frozenset(helper for helper, fn in test_helpers(root).items()
                     if not any(_foreign(c, name) for c in _all_calls(fn)))


def _all_calls(fn: Node) -> list[Node]:
    """Every call in ``fn``'s body, those of the functions it holds too."""
    out: list[Node] = []
    stack = [fn.child_by_field_name("body")]
    while stack:
        cur = stack.pop()
        if cur is None:
            continue
        if cur.type == "call_expression":
            out.append(cur)
        stack.extend(cur.children)
    return out


__all__ = ["HARMLESS", "HOOKS", "RUNNER", "plain_calls"]
