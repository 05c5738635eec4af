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

A parameter handed to a helper (a function of the version or its module) is what the
helper's parameter is: its written plain type, else its use, two helpers deep. A name
declared to hold a parameter (``let str = input``) speaks for it; ``typeof p === 'string'``,
``re.test(p)`` and ``encodeURI(p)`` say a string. A parameter nothing tells of is a
``number`` (:func:`guessed_types`), drawn once as ``undefined`` too across versions (an
optional ``options``); a version that only hands a parameter on says nothing, and the first
version that shows its use decides (:func:`guessed_across`).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypeVar

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
#: Methods only a ``Date`` has.
DATE_METHODS = {f"{verb}{utc}{part}" for verb in ("get", "set") for utc in ("", "UTC")
                for part in ("FullYear", "Month", "Date", "Hours", "Minutes", "Seconds",
                             "Milliseconds")} | {
    "getDay", "getUTCDay", "getTime", "setTime", "getTimezoneOffset", "toISOString",
    "toDateString", "toTimeString", "toLocaleDateString", "toLocaleTimeString", "toUTCString"}
#: Calls whose argument is iterated as an array (``Array.from(xs)``, ``Promise.all(xs)``).
ITERATING_CALLS = {"Array.from", "Promise.all", "Promise.allSettled", "Promise.race",
                   "Promise.any", "Object.groupBy", "Map.groupBy"}
#: Constructors that iterate their argument (``new Set(xs)``).
ITERATED_BY_NEW = {"Set", "Map", "WeakSet", "WeakMap"}
#: Global functions whose first argument is a string.
STRING_CALLS = {"encodeURI", "encodeURIComponent", "decodeURI", "decodeURIComponent", "atob",
                "btoa", "JSON.parse", "escape", "unescape"}
#: Methods only a ``RegExp`` has, whose first argument is the string it searches.
REGEX_METHODS = {"test", "exec"}
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
                                      ("date", "Date"),
                                      ("record", "Record<string, number>"), ("array", ""),
                                      ("number", "number"))
NAME = re.compile(r"[A-Za-z_$][\w$]*")
T = TypeVar("T")
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
    #: name -> (a function called by its name, the position it is passed at)
    passed: dict[str, set[tuple[str, int]]] = field(default_factory=lambda: defaultdict(set))

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


def parameter_nodes(params: Node | None) -> list[Node]:
    """The parameters of a ``formal_parameters`` node, without the comments written between
    them (``condition: any, // why`` then ``message?: string``)."""
    return [] if params is None else [p for p in params.named_children if p.type != "comment"]


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
    found = functions_in(text)
    for fn in [f for f in found if f.qualified_name == entry] or found:  # ``A.constructor``
        if fn.name.split(".")[-1] == entry.split(".")[-1]:
            return fn, params_of(fn.text)
    return None


def guessed_types(text: str, entry: str) -> list[str] | None:
    """Each parameter's type as its use in the body suggests (see the module docstring);
    ``number`` when nothing says. None when the function or its parameters are not plain
    names."""
    found = shown_uses(text, entry, helpers_in([text]))
    return None if found is None else [t or "number" for t in found]


def guessed_across(texts: Sequence[str], entry: str,
                   helpers: dict[str, str] | None = None) -> list[str] | None:
    """Each parameter's type from the first of ``texts`` whose body shows its use (a version
    that only hands it on says nothing), :data:`UNTOLD` when none does; None when no text has
    the function with plain parameters. ``helpers`` (:func:`helpers_in`): the functions a
    parameter handed on may be read in (those of ``texts`` are)."""
    known = {**(helpers or {}), **helpers_in(texts)}
    readings = [r for r in (shown_uses(t, entry, known) for t in texts if t) if r is not None]
    if not readings:
        return None
    first = readings[0]
    return [next((t for r in readings if len(r) == len(first) and (t := r[k])), UNTOLD)
            for k in range(len(first))]


#: What a parameter no use tells of is drawn as: a number, and once ``undefined`` (an
#: optional ``options`` handed on to another module's function takes nothing better).
UNTOLD = "number | undefined"


#: How many helpers deep a parameter handed on is followed (``f`` -> ``g`` -> ``h``).
HELPER_DEPTH = 2
#: A helper's parameter's written type that is drawn as it is (``value: string``).
PLAIN_TYPES = {"string", "number", "boolean", "string[]", "number[]", "boolean[]"}


def helpers_in(texts: Sequence[str]) -> dict[str, str]:
    """The functions of ``texts`` by their plain names, and the classes by theirs (their
    constructors), each to the text that holds it: the helpers a function may hand a
    parameter to (``split(input)``, ``new SemVer(version)``)."""
    out: dict[str, str] = {}
    for text in texts:
        for fn in functions(text, "typescript") if text else ():
            owner, _dot, _name = fn.qualified_name.rpartition(".")
            if fn.kind == "function":  # a method is reached through its instance only
                out.setdefault(fn.name, text)
            elif fn.name == "constructor" and owner and "." not in owner:
                out.setdefault(owner, text)
    return out


def _helper_entry(text: str, callee: str) -> str:
    """The function a helper's name stands for in its text: the class's constructor for
    a class (``SemVer`` -> ``SemVer.constructor``), else the function itself."""
    made = f"{callee}.constructor"
    return made if any(fn.qualified_name == made for fn in functions_in(text)) else callee


def shown_uses(text: str, entry: str, helpers: dict[str, str] | None = None,
               depth: int = 0) -> list[str | None] | None:
    """Each parameter's type its use shows, None for one whose use shows none; None when
    the function or its parameters are not plain names. A parameter only handed to a
    helper (a function of ``helpers``), or whose own use shows no more than an array of
    numbers (``s.length``, ``s[0]``: a string's too), is what the helper's parameter is:
    its written plain type, else its use (:data:`HELPER_DEPTH` deep)."""
    found = named_function(text, entry)
    params = found[1] if found is not None else None
    if params is None:
        return None
    names = [node_text(p.child_by_field_name("pattern") or p) for p in parameter_nodes(params)]
    if not all(NAME.fullmatch(n) for n in names):
        return None
    uses = read_uses(params.parent or params)
    kinds = uses.resolved()
    shown = [uses.type_of(name, kinds) for name in names]
    if helpers and depth < HELPER_DEPTH:
        own = entry.split(".")[-1]
        shown = [t if t not in (None, LENGTH_ONLY) else
                 _handed_on(uses.passed.get(n, set()), own, helpers, depth, names) or t
                 for n, t in zip(names, shown, strict=True)]
    return shown


#: The type of a parameter only measured or indexed: a helper's reading tells it better.
LENGTH_ONLY = "number[]"


def _handed_on(passed: set[tuple[str, int]], own: str, helpers: dict[str, str],
               depth: int, params: Sequence[str] = ()) -> str | None:
    """The type of the first helper's parameter a name is passed as that tells one; a call
    on a module object (``util.split(p)``) reaches its helper, a call of a parameter's own
    method (``s.split(sep)``) none."""
    for called, position in sorted(passed):
        owner, _dot, callee = called.rpartition(".")
        if owner in params or callee == own or callee not in helpers:
            continue
        entry = _helper_entry(helpers[callee], callee)
        written = _written_types(helpers[callee], entry)
        if written is not None and position < len(written) and written[position]:
            return written[position]
        theirs = shown_uses(helpers[callee], entry, helpers, depth + 1)
        if theirs is not None and position < len(theirs) and theirs[position]:
            return theirs[position]
    return None


def _written_types(text: str, name: str) -> list[str | None] | None:
    """Each parameter's written type where it is a plain one (:data:`PLAIN_TYPES`)."""
    found = named_function(text, name)
    params = found[1] if found is not None else None
    if params is None:
        return None
    out: list[str | None] = []
    for p in parameter_nodes(params):
        written = p.child_by_field_name("type")
        kind = node_text(written).lstrip(":").strip() if written is not None else ""
        out.append(kind if kind in PLAIN_TYPES else None)
    return out


def read_uses(root: Node) -> Uses:
    """One walk of ``root``: every use :class:`Uses` keeps; a name declared to hold another
    (``let str = input``) and never assigned again speaks for it."""
    uses = Uses()
    held: dict[str, str] = {}
    assigned: set[str] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.named_children)
        reader = _READERS.get(node.type)
        if reader is not None:
            reader(node, uses)
        if node.type == "variable_declarator":
            name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
            if name is not None and value is not None and name.type == "identifier" \
                    and value.type == "identifier":
                held[node_text(name)] = node_text(value)
        elif node.type in ("assignment_expression", "augmented_assignment_expression"):
            left = node.child_by_field_name("left")
            if left is not None and left.type == "identifier":
                assigned.add(node_text(left))
    for alias, source in held.items():
        if alias not in assigned and alias != source:
            _speak_for(uses.kinds, alias, source)
            _speak_for(uses.elements, alias, source)
            _speak_for(uses.searched, alias, source)
            _speak_for(uses.compared, alias, source)
            _speak_for(uses.passed, alias, source)
    return uses


def _speak_for(table: dict[str, set[T]], alias: str, source: str) -> None:
    """The uses of ``alias`` counted as ``source``'s."""
    if alias in table:
        table[source] |= table[alias]


def _member(node: Node, uses: Uses) -> None:
    obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
    if obj is None or prop is None or obj.type != "identifier":
        return
    method = node_text(prop)
    parent = node.parent
    if method not in ("length", "size") and not (
            parent is not None and parent.type == "call_expression"
            and parent.child_by_field_name("function") == node):
        return  # ``options.split ?? f``: a property read, not a string's method
    kind = ("string" if method in STRING_METHODS else "map" if method in MAP_METHODS
            else "set" if method in SET_METHODS else "date" if method in DATE_METHODS
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


#: What ``typeof p === '...'`` says ``p`` is (a version checking for it handles it).
TYPEOF_KINDS = {"string": "string", "number": "number", "function": "function"}


def _compare(one: Node, other: Node, uses: Uses) -> None:
    """``one === other``: what ``other`` is tells what ``one`` is (a string's);
    ``typeof p === 'string'``: the type it names."""
    if one.type == "unary_expression" and other.type == "string":
        op, arg = one.child_by_field_name("operator"), one.child_by_field_name("argument")
        named = node_text(other)[1:-1]
        if op is not None and node_text(op) == "typeof" and arg is not None \
                and arg.type == "identifier" and named in TYPEOF_KINDS:
            uses.kinds[node_text(arg)].add(TYPEOF_KINDS[named])
        return
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


#: What Babel and TypeScript add to an imported module's name in the CommonJS they write
#: (``_assertString``, ``assertString_1``).
_COMPILED_IMPORT = re.compile(r"^_+|_\d+$")


def _helper_name(callee: Node) -> str | None:
    """The name of the function a call may reach among the helpers: ``split(p)``, a
    required or imported module's ``util.split(p)``, a compiled module's
    ``(0, util_1.split)(p)``, and its default export by the module's name (a file's default
    export is most often the function it is named after: ``(0, _assertString.default)(p)``
    reaches ``assertString``); None for anything else (``this.m(p)``, ``a.b.c(p)``)."""
    while callee.type == "parenthesized_expression" and callee.named_children:
        inner = callee.named_children[-1]
        callee = inner.named_children[-1] if inner.type == "sequence_expression" \
            and inner.named_children else inner
    if callee.type == "identifier":
        return node_text(callee)
    owner = callee.child_by_field_name("object") if callee.type == "member_expression" else None
    name = callee.child_by_field_name("property")
    if owner is None or name is None or owner.type != "identifier":
        return None
    if node_text(name) == "default":  # ``_assertString.default``, ``assertString_1.default``
        return _COMPILED_IMPORT.sub("", node_text(owner)) or None
    return f"{node_text(owner)}.{node_text(name)}"  # a parameter's own method is not one


def _call(node: Node, uses: Uses) -> None:
    callee = node.child_by_field_name("function")
    args = node.child_by_field_name("arguments")
    if callee is None:
        return
    first = args.named_children[0] if args is not None and args.named_children else None
    called = node_text(callee)
    helper = _helper_name(callee)
    if helper is not None:
        for position, arg in enumerate(args.named_children if args is not None else ()):
            if arg.type == "identifier":
                uses.passed[node_text(arg)].add((helper, position))
    if callee.type == "identifier":
        uses.kinds[called].add("function")
    elif first is not None and first.type == "identifier" and called in ITERATING_CALLS:
        uses.kinds[node_text(first)].add("array")
    elif first is not None and first.type == "identifier" and called in KEYED_CALLS:
        uses.kinds[node_text(first)].add("record")
    if first is not None and first.type == "identifier" and (
            called in STRING_CALLS or (callee.type == "member_expression"
                                       and called.rpartition(".")[2] in REGEX_METHODS)):
        uses.kinds[node_text(first)].add("string")  # ``re.test(s)``, ``encodeURI(s)``
    if callee.type == "member_expression" and args is not None:
        _method_call(callee, args, uses)


def _construct(node: Node, uses: Uses) -> None:
    """``new Set(xs)``, ``new Map(pairs)``: an iterable, drawn as an array; ``new
    SemVer(v)``: handed to that class's constructor (a helper, when it is one)."""
    args = node.child_by_field_name("arguments")
    first = args.named_children[0] if args is not None and args.named_children else None
    made = node.child_by_field_name("constructor")
    if made is None or made.type != "identifier":
        return
    if first is not None and first.type == "identifier" and node_text(made) in ITERATED_BY_NEW:
        uses.kinds[node_text(first)].add("array")
        return
    for position, arg in enumerate(args.named_children if args is not None else ()):
        if arg.type == "identifier":
            uses.passed[node_text(arg)].add((node_text(made), position))


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
    named = parameter_nodes(params)
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


__all__ = ["functions_in", "guessed_across", "guessed_types", "helpers_in", "parameter_nodes",
           "params_of", "read_uses", "shown_uses"]
