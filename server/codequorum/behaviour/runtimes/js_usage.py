"""Types of untyped JavaScript parameters, read from their use in the body.

Where a function has no example, no TypeScript type and no test, its parameters are drawn
as the types their use suggests (the JavaScript side of ``behaviour/usage_types.py``), from
one walk of each version's tree (iterative, so no depth of code recurses):

- **direct use**: a string method on it (``s.toUpperCase()``) a ``string``; an array method,
  ``.length``, indexing, spreading, ``for ... of``, ``Array.from`` an array; ``.get``/``.set``
  a ``Map``; ``.has``/``.add``/``.size`` a ``Set``; ``for ... in``, ``Object.keys`` and its
  kin a record; arithmetic and ordering a ``number``; a call of it a function;
- **its elements**: the variable of ``for (const w of words)`` and the parameter of a
  callback handed to an array method (``words.map(w => ...)``; ``reduce``'s second) read
  the same way: ``w.toUpperCase()`` makes ``words`` a ``string[]``;
- **what it meets**: an argument a string searches for (``s.split(c)``, ``s.includes(c)``
  on a string ``s``) is a ``string``, as is a value compared with ``===`` to a string
  (a literal, a string's character or element, a string method's result).

A parameter nothing tells of is a ``number`` (:func:`guessed_types`); a version that only
hands a parameter on says nothing, and the first version that shows its use decides
(:func:`guessed_across`).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from tree_sitter import Node

from codequorum.behaviour.runtimes.js_literals import node_text
from codequorum.core.parsing import FunctionInfo, functions, parse

STRING_METHODS = {"toUpperCase", "toLowerCase", "split", "charAt", "charCodeAt", "trim",
                  "startsWith", "endsWith", "replace", "replaceAll", "padStart", "padEnd",
                  "repeat", "substring", "substr", "match", "localeCompare", "codePointAt",
                  "trimStart", "trimEnd", "normalize", "matchAll", "search"}
ARRAY_METHODS = {"map", "filter", "reduce", "forEach", "push", "pop", "shift", "sort", "every",
                 "some", "find", "findIndex", "join", "flat", "reverse", "splice", "concat",
                 "reduceRight", "flatMap", "findLast", "findLastIndex", "unshift", "fill"}
NUMBER_OPERATORS = {"*", "/", "-", "%", "**", "<", ">", "<=", ">=", "++", "--", "&", "|", "^"}
#: Methods only a ``Map`` (of the drawn kinds) has, and those a ``Set`` has too.
MAP_METHODS = {"get", "set"}
SET_METHODS = {"has", "add", "size", "delete"}
#: Calls whose argument is iterated as an array (``Array.from(xs)``, ``Promise.all(xs)``).
ITERATING_CALLS = {"Array.from", "Promise.all", "Promise.allSettled", "Promise.race",
                   "Promise.any", "Object.groupBy", "Map.groupBy"}
#: Constructors that iterate their argument (``new Set(xs)``).
ITERATED_BY_NEW = {"Set", "Map", "WeakSet", "WeakMap"}
#: Calls that read their argument's own keys: a record.
KEYED_CALLS = {"Object.keys", "Object.values", "Object.entries", "Object.getOwnPropertyNames"}
#: String methods whose first argument is itself a string (what they search for).
STRING_ARGUMENT = {"split", "startsWith", "endsWith", "replace", "replaceAll", "localeCompare",
                   "includes", "indexOf", "lastIndexOf"}
#: Of those, the ones an array has too: the argument is then one of its elements.
ELEMENT_ARGUMENT = {"includes", "indexOf", "lastIndexOf"}
#: String methods that give a string.
STRING_RESULTS = {"charAt", "toUpperCase", "toLowerCase", "trim", "trimStart", "trimEnd",
                  "substring", "substr", "padStart", "padEnd", "repeat", "normalize", "at"}
#: Array methods whose callback's first parameter is an element (``reduce``'s second).
CALLBACK_ELEMENT = {"map", "filter", "forEach", "every", "some", "find", "findIndex",
                    "flatMap", "findLast", "findLastIndex", "sort"}
EQUALITY = {"===", "==", "!==", "!="}
#: The kinds a use shows, strongest first, and the type each draws.
KINDS: tuple[tuple[str, str], ...] = (("function", "Function"), ("string", "string"),
                                      ("map", "Map<string, number>"), ("set", "Set<number>"),
                                      ("record", "Record<string, number>"), ("array", ""),
                                      ("number", "number"))
NAME = re.compile(r"[A-Za-z_$][\w$]*")
#: Rounds of :meth:`Uses.resolved`: how far a string is followed from name to name.
ROUNDS = 3


@dataclass
class Uses:
    """What one walk saw, by name: the kinds each use shows, the names standing for its
    elements, the names an argument searches (receiver, method), the names compared."""

    kinds: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    elements: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    searched: dict[str, set[tuple[str, str]]] = field(default_factory=lambda: defaultdict(set))
    compared: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))

    def resolved(self) -> dict[str, str]:
        """Each name's strongest kind (see :data:`KINDS`): its own uses, then, a few rounds
        over every name (linear, no recursion), what it meets and whose element it is."""
        names = set(self.kinds) | set(self.elements) | set(self.searched) | set(self.compared)
        names |= {e for es in self.elements.values() for e in es}
        kinds = {n: set(self.kinds.get(n, ())) | ({"array"} if self.elements.get(n) else set())
                 for n in names}
        for _ in range(ROUNDS):
            now = {n: _strongest(k) for n, k in kinds.items()}
            strings = {n for n, k in now.items() if k == "string"}
            strings |= {e for owner in strings for e in self.elements.get(owner, ())}
            string_elements = {n for n in names if _strongest(
                {now.get(e) or "" for e in self.elements.get(n, ())}) == "string"}
            for name in names:
                if name in strings or self._meets_string(name, strings, string_elements):
                    kinds[name].add("string")
        return {n: k for n, k in ((n, _strongest(k)) for n, k in kinds.items()) if k}

    def _meets_string(self, name: str, strings: set[str], string_elements: set[str]) -> bool:
        for receiver, method in self.searched.get(name, ()):
            if method not in ELEMENT_ARGUMENT or receiver in strings \
                    or receiver in string_elements:
                return True
        return any(other == "string" or other in strings for other in self.compared.get(name, ()))

    def type_of(self, name: str, kinds: dict[str, str]) -> str | None:
        """The type to draw for the name (``kinds``: :meth:`resolved`), None when its use
        shows none."""
        kind = kinds.get(name)
        if kind != "array":
            return dict(KINDS).get(kind) if kind else None
        element = _strongest({kinds.get(e) or "" for e in self.elements.get(name, ())})
        return {"string": "string[]", "array": "number[][]",
                "record": "Record<string, number>[]"}.get(element or "", "number[]")


def _strongest(kinds: set[str]) -> str | None:
    return next((k for k, _ in KINDS if k in kinds), None)


def functions_in(text: str) -> list[FunctionInfo]:
    """The functions of ``text``; of a method alone (``peek(): T { ... }``, as a method's
    versions are kept), that method, read as a class's body."""
    found = functions(text, "typescript")
    return found or functions("class C {\n" + text + "\n}", "typescript")


def params_of(text: str) -> Node | None:
    """The parameters of a function's text; a method alone (``peek(): T { ... }``) is
    read as a class's body."""
    tree = parse(text, "typescript")
    if tree.root_node.has_error:
        tree = parse("class C {\n" + text + "\n}", "typescript")
    return first_node(tree.root_node, "formal_parameters")


def first_node(root: Node, node_type: str) -> Node | None:
    """The first node of ``node_type`` under ``root``, breadth first."""
    stack = [root]
    while stack:
        cur = stack.pop(0)
        if cur.type == node_type:
            return cur
        stack.extend(cur.named_children)
    return None


def named_function(text: str, entry: str) -> tuple[FunctionInfo, Node | None] | None:
    """The first function of ``text`` named as ``entry`` ends (``Stack.peek``: ``peek``)
    and its parameters (None when they are not read); None when there is none."""
    for fn in functions_in(text):
        if fn.name.split(".")[-1] == entry.split(".")[-1]:
            return fn, params_of(fn.text)
    return None


def guessed_types(text: str, entry: str) -> list[str] | None:
    """Each parameter's type as its use in the body suggests (see the module docstring);
    ``number`` when nothing says. None when the function or its parameters are not plain
    names."""
    found = shown_uses(text, entry)
    return None if found is None else [t or "number" for t in found]


def guessed_across(texts: Sequence[str], entry: str) -> list[str] | None:
    """Each parameter's type from the first of ``texts`` whose body shows its use (a version
    that only hands it on says nothing), ``number`` when none does; None when no text has
    the function with plain parameters."""
    readings = [r for r in (shown_uses(t, entry) for t in texts if t) if r is not None]
    if not readings:
        return None
    first = readings[0]
    return [next((t for r in readings if len(r) == len(first) and (t := r[k])), "number")
            for k in range(len(first))]


def shown_uses(text: str, entry: str) -> list[str | None] | None:
    """Each parameter's type its use shows, None for one whose use shows none; None when
    the function or its parameters are not plain names."""
    found = named_function(text, entry)
    params = found[1] if found is not None else None
    if params is None:
        return None
    names = [node_text(p.child_by_field_name("pattern") or p) for p in params.named_children]
    if not all(NAME.fullmatch(n) for n in names):
        return None
    uses = read_uses(params.parent or params)
    kinds = uses.resolved()
    return [uses.type_of(name, kinds) for name in names]


def read_uses(root: Node) -> Uses:
    """One walk of ``root``: every use :class:`Uses` keeps."""
    uses = Uses()
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.named_children)
        reader = _READERS.get(node.type)
        if reader is not None:
            reader(node, uses)
    return uses


def _member(node: Node, uses: Uses) -> None:
    obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
    if obj is None or prop is None or obj.type != "identifier":
        return
    method = node_text(prop)
    kind = ("string" if method in STRING_METHODS else "map" if method in MAP_METHODS
            else "set" if method in SET_METHODS
            else "array" if method in ARRAY_METHODS or method == "length" else "")
    if kind:
        uses.kinds[node_text(obj)].add(kind)


def _subscript(node: Node, uses: Uses) -> None:
    obj = node.child_by_field_name("object")
    if obj is not None and obj.type == "identifier":
        uses.kinds[node_text(obj)].add("array")


def _spread(node: Node, uses: Uses) -> None:
    inner = node.named_children[0] if node.named_children else None
    if inner is not None and inner.type == "identifier":
        uses.kinds[node_text(inner)].add("array")


def _arithmetic(node: Node, uses: Uses) -> None:
    op = node.child_by_field_name("operator")
    sign = node_text(op).rstrip("=") if op is not None else ""
    if sign in NUMBER_OPERATORS:
        for child in node.named_children:
            if child.type == "identifier":
                uses.kinds[node_text(child)].add("number")
    if op is not None and node_text(op) in EQUALITY:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is not None and right is not None:
            _compare(left, right, uses)
            _compare(right, left, uses)


def _compare(one: Node, other: Node, uses: Uses) -> None:
    """``one === other``: what ``other`` is tells what ``one`` is (a string's)."""
    if one.type != "identifier":
        return
    name = node_text(one)
    if other.type in ("string", "template_string"):
        uses.compared[name].add("string")
    elif other.type == "identifier":
        uses.compared[name].add(node_text(other))
    elif other.type == "subscript_expression":
        obj = other.child_by_field_name("object")
        if obj is not None and obj.type == "identifier":
            uses.elements[node_text(obj)].add(name)
    elif other.type == "call_expression":
        callee = other.child_by_field_name("function")
        prop = callee.child_by_field_name("property") if callee is not None \
            and callee.type == "member_expression" else None
        if prop is not None and node_text(prop) in STRING_RESULTS - {"at"}:
            uses.compared[name].add("string")


def _update(node: Node, uses: Uses) -> None:
    for child in node.named_children:
        if child.type == "identifier":
            uses.kinds[node_text(child)].add("number")


def _loop(node: Node, uses: Uses) -> None:
    right, left = node.child_by_field_name("right"), node.child_by_field_name("left")
    op = node.child_by_field_name("operator")
    if right is None or right.type != "identifier":
        return
    owner = node_text(right)
    if op is not None and node_text(op) == "in":
        uses.kinds[owner].add("record")
        return
    uses.kinds[owner].add("array")
    if left is not None and left.type == "identifier":
        uses.elements[owner].add(node_text(left))


def _call(node: Node, uses: Uses) -> None:
    callee = node.child_by_field_name("function")
    args = node.child_by_field_name("arguments")
    if callee is None:
        return
    first = args.named_children[0] if args is not None and args.named_children else None
    called = node_text(callee)
    if callee.type == "identifier":
        uses.kinds[called].add("function")
    elif first is not None and first.type == "identifier" and called in ITERATING_CALLS:
        uses.kinds[node_text(first)].add("array")
    elif first is not None and first.type == "identifier" and called in KEYED_CALLS:
        uses.kinds[node_text(first)].add("record")
    if callee.type == "member_expression" and args is not None:
        _method_call(callee, args, uses)


def _construct(node: Node, uses: Uses) -> None:
    """``new Set(xs)``, ``new Map(pairs)``: an iterable, drawn as an array."""
    args = node.child_by_field_name("arguments")
    first = args.named_children[0] if args is not None and args.named_children else None
    made = node.child_by_field_name("constructor")
    if first is not None and first.type == "identifier" and made is not None \
            and node_text(made) in ITERATED_BY_NEW:
        uses.kinds[node_text(first)].add("array")


def _method_call(callee: Node, args: Node, uses: Uses) -> None:
    """``q.m(x, ...)``: ``x`` searched in ``q``, or the elements its callback takes."""
    obj, prop = callee.child_by_field_name("object"), callee.child_by_field_name("property")
    if obj is None or prop is None or obj.type != "identifier" or not args.named_children:
        return
    receiver, method = node_text(obj), node_text(prop)
    first = args.named_children[0]
    if method in STRING_ARGUMENT and first.type == "identifier":
        uses.searched[node_text(first)].add((receiver, method))
    position = 1 if method in ("reduce", "reduceRight") else 0 if method in CALLBACK_ELEMENT \
        else None
    element = _callback_parameter(first, position) if position is not None else None
    if element is not None:
        uses.elements[receiver].add(element)
    if method == "sort" and first.type in ("arrow_function", "function_expression"):
        second = _callback_parameter(first, 1)
        if second is not None:
            uses.elements[receiver].add(second)


def _callback_parameter(fn: Node, position: int) -> str | None:
    """The name of a callback's parameter at ``position`` (``w => ...``, ``(a, w) => ...``)."""
    if fn.type not in ("arrow_function", "function_expression"):
        return None
    single = fn.child_by_field_name("parameter")
    if single is not None:
        return node_text(single) if position == 0 and single.type == "identifier" else None
    params = fn.child_by_field_name("parameters")
    named = params.named_children if params is not None else []
    if position >= len(named):
        return None
    pattern = named[position].child_by_field_name("pattern") or named[position]
    return node_text(pattern) if pattern.type == "identifier" else None


_READERS = {
    "member_expression": _member,
    "subscript_expression": _subscript,
    "spread_element": _spread,
    "binary_expression": _arithmetic,
    "augmented_assignment_expression": _arithmetic,
    "update_expression": _update,
    "for_in_statement": _loop,
    "call_expression": _call,
    "new_expression": _construct,
}


__all__ = ["functions_in", "guessed_across", "guessed_types", "params_of", "read_uses",
           "shown_uses"]
