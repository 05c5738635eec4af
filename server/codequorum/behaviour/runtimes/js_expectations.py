"""What a JavaScript or TypeScript test file's assertions say calls give, read with
tree-sitter (nothing runs): the JavaScript side of :mod:`codequorum.behaviour.expectations`.

The forms read:

- Jest, Vitest and Chai's ``expect(CALL)`` followed by an equality (``CALL`` may be a name
  that holds its result: ``const result = f(2);`` earlier in the block, the name used since
  by assertions only):
  ``.toBe(VALUE)``, ``.toEqual``, ``.toStrictEqual``, ``.to.equal``, ``.to.deep.equal``,
  ``.to.eql``, or ``.toBeNull()``, ``.toBeUndefined()``, ``.toBeNaN()`` (``expect(await
  CALL)`` too); a chain holding ``not`` says nothing;
- ``expect(() => CALL).toThrow()`` (``toThrowError``, Chai's ``.to.throw``, a snapshot of
  the error: ``toThrowErrorMatchingInlineSnapshot``), the class named by an identifier
  argument (``toThrow(TypeError)``), any throw otherwise;
- ``node:assert``'s and AVA's ``assert.strictEqual(CALL, VALUE)`` (``equal``,
  ``deepStrictEqual``, ``deepEqual``, ``t.is``, ``t.deepEqual``, either order) and
  ``assert.throws(() => CALL, E)``.

Other matchers say something of an expression of the value, run whole
(:func:`matcher_shape`): ``toHaveLength(n)`` of its ``.length``, ``toBeTruthy()``/
``toBeFalsy()`` (and ``assert(X)``, ``assert.ok(X)``) of ``!!X``, ``toContain``,
``toBeGreaterThan`` and kin, ``toBeCloseTo``, ``toMatch``, ``toBeDefined``, and Chai's
names for them (``lengthOf``, ``include``, ``above``, ``closeTo``...) and its properties
(``expect(X).to.be.true``, ``.null``, ``.ok``). An inline snapshot
(``toMatchInlineSnapshot(`"a-b"`)``) is the expected value where its text reads back as a
literal (:func:`snapshot_value`).
``CALL`` may also be an expression wrapping a call (``[...range(3)]``, ``f(x).length``):
what is stated is then said of that expression (``js_callers.py`` runs it whole).
``VALUE`` is a literal (``js_literals.py``), or a name a table-driven test's case binds
(``js_each.py``); anything else says nothing, and the call stays an input without an
expected value.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tree_sitter import Node

from codequorum.behaviour.expectations import Expectation, hold
from codequorum.behaviour.runtimes.js_literals import (
    NotLiteral,
    literal,
    node_text,
    parse_expression,
)

#: ``expect(x)``'s methods that say ``x`` equals their argument.
EQUALS = frozenset({"toBe", "toEqual", "toStrictEqual", "equal", "equals", "eq", "eql"})
#: ``expect(x)``'s methods that say what ``x`` is, without an argument.
IS = {"toBeNull": "null", "toBeUndefined": "undefined", "toBeNaN": "NaN"}
#: ``expect(() => x)``'s methods that say ``x`` throws.
THROWS = frozenset({"toThrow", "toThrowError", "throw", "throws",
                    "toThrowErrorMatchingSnapshot", "toThrowErrorMatchingInlineSnapshot"})
#: Words a Chai chain may hold between ``expect(x)`` and its method.
CHAIN_WORDS = frozenset({"to", "be", "been", "is", "that", "which", "and", "has", "have",
                         "with", "at", "of", "same", "deep", "strict", "does", "still"})
#: Assertion functions taking (actual, expected), as ``assert.strictEqual`` and AVA's ``t.is``.
ASSERT_EQUALS = frozenset({"strictEqual", "equal", "deepStrictEqual", "deepEqual", "is",
                           "same", "strictSame"})
#: Calls a test wraps a result in that give back an equal value: what is asserted of the
#: copy is said of the call inside.
COPIES = frozenset({"structuredClone"})
#: Assertion functions taking a function that must throw.
ASSERT_THROWS = frozenset({"throws"})
#: What an assertion object is named (``assert``, ``assert.strict``, AVA's ``t``).
ASSERT_OBJECTS = frozenset({"assert", "t", "strict"})

Key = tuple[int, int]
#: Names that hold a call's result where a statement is: ``const result = f(2);``.
Held = dict[str, Node]


@dataclass(frozen=True)
class JsStated:
    """An assertion about one call as written: the ``expected`` value's node, or a value
    the matcher itself names (``toBeNull``: ``named``), or the class it ``raises``.
    :meth:`resolve` reads the value."""

    expected: Node | None = None
    named: str | None = None
    raises: str | None = None
    #: what the matcher says of the value through an expression of it (``toHaveLength``:
    #: its ``.length``; ``toBeTruthy``: ``!!`` of it): the text before and after it
    shape: tuple[str, str] | None = None
    #: the value an inline snapshot shows, read already (in a 1-tuple: it may be ``null``)
    shown: tuple[Any] | None = None
    #: how the expression of a ``shape`` is named where its code is no reading matter
    #: (``parse("a=1") matching {...}``): the text before and after the value's
    said_as: tuple[str, str] | None = None

    def resolve(self, bound: Mapping[str, Any] | None = None) -> Expectation | None:
        """The expectation, the names of a table-driven case ``bound``; None when the
        expected value is not a literal."""
        if self.shown is not None:
            return Expectation(expected=self.shown[0])
        if self.named is not None:
            return Expectation(expected=literal_named(self.named))
        if self.expected is None:
            return Expectation(raises=self.raises)
        ok, value = _value(self.expected, bound)
        return Expectation(expected=value) if ok else None


Found = tuple[Node, JsStated]


def key(node: Node) -> Key:
    """The identity of a node of one tree: where it is."""
    return node.start_byte, node.end_byte


def _unwrapped(node: Node | None) -> Node | None:
    while node is not None and node.type in ("parenthesized_expression", "await_expression"):
        inner = node.named_children
        node = inner[-1] if inner else None
    return node


def _arguments(call: Node) -> list[Node]:
    args = call.child_by_field_name("arguments")
    return [] if args is None else [a for a in args.named_children if a.type != "comment"]


def _callee(call: Node) -> tuple[Node | None, str]:
    """(the object, the method's name) of ``object.method(...)``; (None, name) for a call
    of a bare name."""
    callee = call.child_by_field_name("function")
    if callee is None:
        return None, ""
    if callee.type == "identifier":
        return None, node_text(callee)
    prop = callee.child_by_field_name("property") if callee.type == "member_expression" else None
    return (callee.child_by_field_name("object"), node_text(prop)) if prop is not None else (
        None, "")


def _thrower(fn: Node | None) -> Node | None:
    """The call a function that must throw makes: ``() => f(x)``, ``() => { f(x); }``."""
    fn = _unwrapped(fn)
    if fn is None or fn.type not in ("arrow_function", "function_expression", "function"):
        return None
    body = fn.child_by_field_name("body")
    if body is not None and body.type == "statement_block":
        statements = [s for s in body.named_children if s.type != "comment"]
        if len(statements) != 1 or statements[0].type != "expression_statement":
            return None
        body = statements[0].named_children[0] if statements[0].named_children else None
    body = _unwrapped(body)
    return body if body is not None and body.type == "call_expression" else None


def _class_named(args: list[Node]) -> str:
    first = _unwrapped(args[0]) if args else None
    return node_text(first) if first is not None and first.type == "identifier" else ""


def _value(node: Node, bound: Mapping[str, Any] | None = None) -> tuple[bool, object]:
    try:
        return True, literal(node, bound)
    except (NotLiteral, ValueError, RecursionError):
        return False, None


def _held(node: Node | None, held: Held) -> Node | None:
    """``node`` unwrapped (through a copy: ``structuredClone(f(x))``), or the call whose
    result the name ``node`` holds."""
    node = _unwrapped(node)
    if node is not None and node.type == "identifier":
        return held.get(node_text(node), node)
    while node is not None and node.type == "call_expression":
        obj, name = _callee(node)
        args = _arguments(node)
        inner = _unwrapped(args[0]) if len(args) == 1 else None
        if obj is not None or name not in COPIES or inner is None \
                or inner.type != "call_expression":
            break
        node = inner
    return node


def _from_expect(call: Node, method: str, obj: Node, held: Held) -> Found | None:
    """``expect(X).chain.method(args)``, ``obj`` being what ``method`` is read on."""
    while obj.type == "member_expression":
        word = obj.child_by_field_name("property")
        if word is None or node_text(word) not in CHAIN_WORDS:
            return None
        obj = obj.child_by_field_name("object")  # type: ignore[assignment]
        if obj is None:
            return None
    inner, name = _callee(obj) if obj.type == "call_expression" else (None, "")
    given = _arguments(obj) if name == "expect" and inner is None else []
    if len(given) != 1:
        return None
    args = _arguments(call)
    if method in THROWS:
        thrower = _thrower(given[0])
        return None if thrower is None else (thrower, JsStated(raises=_class_named(args)))
    actual = _held(given[0], held)
    if actual is None or not (actual.type == "call_expression" or _calls_in(actual)):
        return None
    if method in IS:
        return None if args else (actual, JsStated(named=IS[method]))
    if len(args) == 1 and method in EQUALS and _asymmetric(args[0]):
        return actual, JsStated(named="true", shape=(
            f"({ASYMMETRIC})((expect) => ({node_text(args[0])}), ", ")"),
            said_as=("", f" equal to {' '.join(node_text(args[0]).split())}"))
    if len(args) == 1 and method in EQUALS:
        return actual, JsStated(expected=args[0])
    if method == "toMatchInlineSnapshot" and len(args) == 1:
        shown = snapshot_value(args[0])
        return None if shown is None else (actual, JsStated(shown=shown))
    shaped = matcher_shape(method, args)
    return None if shaped is None else (actual, shaped)


#: Characters of an inline snapshot read as a value, at most.
MAX_SNAPSHOT_CHARS = 8192


def snapshot_value(node: Node) -> tuple[Any] | None:
    """The value an inline snapshot shows (``toMatchInlineSnapshot(`"a-b"`)``, its lines
    indented to the call's), where its text reads back as a JavaScript literal: a string,
    a number, ``null``, ``undefined``, arrays and plain objects as Jest prints them
    (trailing commas); None for anything else (``Foo {``, ``Map {``, a substitution)."""
    if node.type != "template_string":
        return None
    try:
        text = literal(node)
    except (NotLiteral, ValueError, RecursionError):
        return None
    if len(str(text)) > MAX_SNAPSHOT_CHARS:
        return None
    expression = parse_expression("(" + textwrap.dedent(str(text)).strip() + "\n)")
    if expression is None:
        return None
    try:
        return (literal(expression),)
    except (NotLiteral, ValueError, RecursionError):
        return None


#: ``toMatchObject``'s test, as Jest reads it: every key of the expected object (deeply)
#: holds an equal value in the actual one; arrays match item by item, of one length.
SUBSET = ("(e, v) => { const m = (a, b) => { if (b === null || typeof b !== 'object') "
          "return Object.is(a, b); if (a === null || typeof a !== 'object') return false; "
          "if (Array.isArray(b)) return Array.isArray(a) && a.length === b.length "
          "&& b.every((x, i) => m(a[i], x)); return Object.keys(b).every((k) => k in a "
          "&& m(a[k], b[k])); }; return m(v, e); }")


#: Jest's equality where the expected value holds its asymmetric matchers
#: (``expect.any(String)``, ``expect.objectContaining({...})``, ``arrayContaining``,
#: ``stringContaining``, ``stringMatching``, ``closeTo``, ``anything``): ``make`` builds the
#: expected value from an ``expect`` of those; plain values compare as ``toEqual`` does
#: (``Object.is``, keys holding ``undefined`` left out, arrays item by item).
ASYMMETRIC = (
    "(make, v) => { const mark = Symbol('asymmetric'); const asym = (t) => ({ [mark]: t }); "
    "const is = (x, C) => Object(x) instanceof C || (C === Number && typeof x === 'number') "
    "|| (C === String && typeof x === 'string') || (C === Boolean && typeof x === 'boolean') "
    "|| (C === BigInt && typeof x === 'bigint') || (C === Function && typeof x === 'function'); "
    "const expect = { any: (C) => asym((x) => x != null && is(x, C)), "
    "anything: () => asym((x) => x != null), "
    "objectContaining: (o) => asym((x) => x != null && typeof x === 'object' "
    "&& Object.keys(o).every((k) => m(x[k], o[k]))), "
    "arrayContaining: (a) => asym((x) => Array.isArray(x) && a.every((y) => x.some((z) => "
    "m(z, y)))), stringContaining: (t) => asym((x) => typeof x === 'string' && x.includes(t)), "
    "stringMatching: (r) => asym((x) => typeof x === 'string' && (typeof r === 'string' "
    "? new RegExp(r) : r).test(x)), closeTo: (n, d = 2) => asym((x) => typeof x === 'number' "
    "&& Math.abs(x - n) < Math.pow(10, -d) / 2) }; "
    "const keys = (o) => Object.keys(o).filter((k) => o[k] !== undefined); "
    "const m = (a, b) => { if (b !== null && typeof b === 'object' && mark in b) "
    "return b[mark](a); if (b === null || typeof b !== 'object' || a === null "
    "|| typeof a !== 'object') return Object.is(a, b); if (Array.isArray(b)) "
    "return Array.isArray(a) && a.length === b.length && b.every((x, i) => m(a[i], x)); "
    "const ka = keys(a), kb = keys(b); return ka.length === kb.length "
    "&& kb.every((k) => m(a[k], b[k])); }; return m(v, make(expect)); }")


def _asymmetric(node: Node) -> bool:
    """Whether an expected value holds one of Jest's asymmetric matchers
    (``expect.any(String)`` and kin, not inside a function it holds)."""
    stack = [node]
    while stack:
        cur = stack.pop()
        if cur.type == "call_expression":
            callee = cur.child_by_field_name("function")
            holder = callee.child_by_field_name("object") if callee is not None \
                and callee.type == "member_expression" else None
            if holder is not None and node_text(holder) == "expect":
                return True
        if cur.type not in ("arrow_function", "function_expression", "function"):
            stack.extend(cur.named_children)
    return False


#: Matchers that say a comparison of the value with their argument holds (Jest's and
#: Chai's names).
COMPARISONS = {"toBeGreaterThan": ">", "toBeGreaterThanOrEqual": ">=", "toBeLessThan": "<",
               "toBeLessThanOrEqual": "<=", "above": ">", "gt": ">", "greaterThan": ">",
               "least": ">=", "gte": ">=", "below": "<", "lt": "<", "lessThan": "<",
               "most": "<=", "lte": "<="}
#: Matchers that say the value has a length (Jest's, Chai's).
LENGTHS = frozenset({"toHaveLength", "lengthOf", "length"})
#: Matchers that say the value includes their argument.
INCLUDES = frozenset({"toContain", "include", "includes", "contain", "contains"})
#: Chai's properties that end an assertion: the value is that one (``.to.be.true``), or
#: truthy (``.ok``).
PROPERTIES = {"true": "true", "false": "false", "null": "null", "undefined": "undefined",
              "NaN": "NaN"}


def matcher_shape(method: str, args: list[Node]) -> JsStated | None:
    """What a matcher other than an equality says, as a value of an expression of the
    actual one: ``toHaveLength(2)`` its ``.length`` is 2, ``toBeTruthy()`` ``!!`` of it is
    ``true``, ``toContain(3)`` its ``.includes(3)``, ``toBeGreaterThan(1)`` ``> 1``,
    ``toBeCloseTo(0.3)`` within half of ``10 ** -2``, ``toMatch(/re/)`` the pattern's
    ``test`` (``toMatch('a')``: ``includes``, as Jest reads a string), ``toMatchObject``
    every key it names (:data:`SUBSET`),
    ``toBeDefined()`` ``!== undefined``; None for any other (an argument is
    written into the expression as the test wrote it: one reading a name of the test's own
    keeps it from running)."""
    texts = [node_text(a) for a in args]
    if method in LENGTHS and len(args) == 1:
        return JsStated(expected=args[0], shape=("(", ").length"))
    if method in ("toBeTruthy", "toBeFalsy") and not args:
        return JsStated(named="true" if method == "toBeTruthy" else "false", shape=("!!(", ")"))
    if method == "toBeDefined" and not args:
        return JsStated(named="true", shape=("(", ") !== undefined"))
    if method in INCLUDES and len(args) == 1:
        return JsStated(named="true", shape=("(", f").includes({texts[0]})"))
    if method in ("closeTo", "approximately") and len(args) == 2:
        return JsStated(named="true", shape=("Math.abs((", f") - ({texts[0]})) <= ({texts[1]})"),
                        said_as=("", f" close to {texts[0]}"))
    if method in COMPARISONS and len(args) == 1:
        return JsStated(named="true", shape=("(", f") {COMPARISONS[method]} ({texts[0]})"))
    if method == "toBeCloseTo" and len(args) in (1, 2):
        digits = texts[1] if len(args) == 2 else "2"
        return JsStated(named="true", shape=(
            "Math.abs((", f") - ({texts[0]})) < Math.pow(10, -({digits})) / 2"),
            said_as=("", f" close to {texts[0]}"))
    if method == "toMatchObject" and len(args) == 1:
        return JsStated(named="true", shape=(f"({SUBSET})({texts[0]}, ", ")"),
                        said_as=("", f" matching {' '.join(texts[0].split())}"))
    if method in ("toMatch", "match", "matches") and len(args) == 1:  # a string: a part
        return JsStated(named="true", shape=(
            f"((p, v) => (typeof p === 'string' ? v.includes(p) : p.test(v)))({texts[0]}, ",
            ")"), said_as=("", f" matching {texts[0]}"))
    return None


def literal_named(name: str) -> object:
    """The canonical value of ``null``, ``undefined`` or ``NaN``."""
    node = parse_expression(name)
    if node is None:
        raise ValueError(name)
    return literal(node)


def _from_assert(call: Node, method: str, obj: Node, held: Held) -> Found | None:
    """``assert.strictEqual(actual, expected)``, ``assert.throws(fn, E)``."""
    holder = obj.child_by_field_name("property") if obj.type == "member_expression" else obj
    if holder is None or node_text(holder) not in ASSERT_OBJECTS:
        return None
    args = _arguments(call)
    if method in ASSERT_THROWS and args:
        thrower = _thrower(args[0])
        return None if thrower is None else (
            thrower, JsStated(raises=_class_named(args[1:2])))
    if method not in ASSERT_EQUALS or len(args) < 2:
        return None
    for actual, other in ((args[0], args[1]), (args[1], args[0])):
        call_node = _held(actual, held)
        if call_node is not None and call_node.type == "call_expression" and (
                _unwrapped(other) or other).type != "call_expression":
            return call_node, JsStated(expected=other)
    for actual, other in ((args[0], args[1]), (args[1], args[0])):  # ``[...f(1)]``
        if _calls_in(actual) and not _calls_in(other):
            return _unwrapped(actual) or actual, JsStated(expected=other)
    return None


def _calls_in(node: Node | None) -> bool:
    """Whether ``node`` holds a call (not inside a function it holds): an expression that
    wraps a call's result, ``[...f(1)]``, ``f(1).length``, ``Array.from(f(1))``."""
    stack = [node] if node is not None else []
    while stack:
        cur = stack.pop()
        if cur.type == "call_expression":
            return True
        if cur.type not in ("arrow_function", "function_expression", "function"):
            stack.extend(cur.named_children)
    return False


def _stated(call: Node, held: Held) -> Found | None:
    obj, method = _callee(call)
    if obj is None:
        return _truthy(call, held) if method == "assert" else None
    if method == "ok" and obj.type == "identifier" and node_text(obj) in ASSERT_OBJECTS:
        return _truthy(call, held)  # assert.ok(X), t.ok(X)
    return _from_expect(call, method, obj, held) or _from_assert(call, method, obj, held)


def _truthy(call: Node, held: Held) -> Found | None:
    """``assert(X)``, ``assert.ok(X)``: ``!!`` of ``X`` is ``true``."""
    args = _arguments(call)
    actual = _held(args[0], held) if args else None
    if actual is None or not (actual.type == "call_expression" or _calls_in(actual)):
        return None
    return actual, JsStated(named="true", shape=("!!(", ")"))


def _root_name(call: Node) -> str:
    """The name an assertion chain starts from: ``expect`` of ``expect(x).toBe(1)``,
    ``assert`` of ``assert.equal(...)``, ``t`` of ``t.is(...)``."""
    node: Node | None = call
    while node is not None and node.type in ("call_expression", "member_expression"):
        node = node.child_by_field_name("function" if node.type == "call_expression"
                                        else "object")
    return node_text(node) if node is not None and node.type == "identifier" else ""


def _asserts(statement: Node) -> bool:
    expr = statement.named_children[0] if (statement.type == "expression_statement"
                                           and statement.named_children) else None
    expr = _unwrapped(expr)
    return (expr is not None and expr.type in ("call_expression", "member_expression")
            and _root_name(expr) in ("expect", *ASSERT_OBJECTS))


def _declared_call(statement: Node) -> tuple[str, Node] | None:
    """``const result = f(2);`` (``let``, ``var``, ``await``): the name and the call."""
    if statement.type not in ("lexical_declaration", "variable_declaration"):
        return None
    declarators = [c for c in statement.named_children if c.type == "variable_declarator"]
    if len(declarators) != 1:
        return None
    name = declarators[0].child_by_field_name("name")
    value = _unwrapped(declarators[0].child_by_field_name("value"))
    if name is None or name.type != "identifier" or value is None \
            or value.type != "call_expression":
        return None
    return node_text(name), value


def _names_in(node: Node) -> set[str]:
    out: set[str] = set()
    stack = [node]
    while stack:
        cur = stack.pop()
        if cur.type in ("identifier", "shorthand_property_identifier"):
            out.add(node_text(cur))
        stack.extend(cur.children)
    return out


def held_results(root: Node) -> dict[Key, Held]:
    """:func:`key` of each statement -> the names that hold a call's result there (``const
    result = f(2);`` earlier in its block, the name used since by assertions only)."""
    out: dict[Key, Held] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if node.type not in ("program", "statement_block"):
            continue
        latest: Held = {}
        for statement in node.named_children:
            out[key(statement)] = dict(latest)
            if _asserts(statement):
                continue
            for name in _names_in(statement) & set(latest):  # used otherwise: dropped
                del latest[name]
            found = _declared_call(statement)
            if found is not None:
                hold(latest, *found)
    return out


def _chai_property(node: Node, held: Held) -> Found | None:
    """``expect(X).to.be.true`` (``false``, ``null``, ``undefined``, ``NaN``; ``ok``:
    truthy), an expression statement of Chai's: what it says of ``X``."""
    chain: list[str] = []
    obj: Node | None = node
    while obj is not None and obj.type == "member_expression":
        prop = obj.child_by_field_name("property")
        chain.append(node_text(prop) if prop is not None else "")
        obj = obj.child_by_field_name("object")
    last, words = (chain[0], chain[1:]) if chain else ("", [])
    if obj is None or obj.type != "call_expression" or _callee(obj) != (None, "expect") \
            or any(w not in CHAIN_WORDS for w in words) or len(_arguments(obj)) != 1:
        return None
    actual = _held(_arguments(obj)[0], held)
    if actual is None or not (actual.type == "call_expression" or _calls_in(actual)):
        return None
    if last == "ok":
        return actual, JsStated(named="true", shape=("!!(", ")"))
    return (actual, JsStated(named=PROPERTIES[last])) if last in PROPERTIES else None


def expectations(root: Node) -> dict[Key, JsStated]:
    """:func:`key` of a call -> what an assertion of the tree states that call gives, for
    every call an assertion states, directly or through a name that holds its result
    (``const result = f(2); expect(result).toBe(4);``); the first assertion of a call
    wins."""
    holds = held_results(root)
    out: dict[Key, JsStated] = {}
    stack: list[tuple[Node, Held]] = [(root, {})]
    while stack:
        node, held = stack.pop()
        held = holds.get(key(node), held) if node.is_named else held
        found = _stated(node, held) if node.type == "call_expression" else \
            _chai_property(node.named_children[0], held) \
            if node.type == "expression_statement" and node.named_children else None
        if found is not None:
            out.setdefault(key(found[0]), found[1])
        stack.extend((c, held) for c in reversed(node.children))
    return out


__all__ = ["ASSERT_EQUALS", "EQUALS", "THROWS", "JsStated", "expectations", "held_results", "key",
           "literal_named"]
