"""An instance filled through its class's own methods, for a method no example builds one for.

A method drawn on a bare instance (``new Stack()``) sees an empty one: ``peekOr(0)`` gives
its fallback in every version, and versions that read the wrong end part only once the
stack holds something. The class's *fillers* are its methods that take values and give
nothing back: declared ``: void`` in TypeScript, or without a ``return`` of a value and
with ``this.`` in their body in JavaScript (``push(x)``, ``add(key, value)``); a method
without parameters (``clear()``) is none. The filled instance is a fresh one with each
filler (at most :data:`MAX_FILLERS`) called :data:`CALLS` times on drawn values of its
parameters' types, replayed in the sandbox before the method's call as an example's setup is.
A class whose constructor needs values is made with drawn values of its parameters'
declared types (``new Range(1, -3)``), and is not made when they have none.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tree_sitter import Node

from codequorum.behaviour.runtimes.js_literals import NotLiteral, node_text
from codequorum.behaviour.runtimes.js_usage import (
    first_node,
    functions_in,
    guessed_types,
    parameter_nodes,
    params_of,
)
from codequorum.behaviour.runtimes.ts_draws import type_values
from codequorum.behaviour.runtimes.ts_parameters import class_type_parameters, parameter_types
from codequorum.core.errors import UserError
from codequorum.core.limits import InputLimitError
from codequorum.core.model import Receiver
from codequorum.core.parsing import parse

#: Fillers called, and calls of each.
MAX_FILLERS = 2
CALLS = 3


@dataclass(frozen=True)
class Fillers:
    """A class's fillers as one text defines them: each one's name and parameter types,
    and the types they are drawn with (the file's and the class's type parameters)."""

    cls: str
    methods: tuple[tuple[str, tuple[str, ...]], ...]
    aliases: Mapping[str, str]
    #: The types of the constructor's required parameters (none: it needs no value).
    made: tuple[str, ...] = ()

    def receiver(self, start: int = 1) -> Receiver | None:
        """A fresh instance (made with the ``start``-th drawn values of the constructor's
        types) with each filler called :data:`CALLS` times, on the ``start``-th drawn
        values and on; None when nothing of it can be drawn."""
        try:
            args = tuple(type_values(t, start + k, self.aliases) for k, t in enumerate(self.made))
        except NotLiteral:
            return None
        steps: list[tuple[str, tuple[Any, ...]]] = []
        for name, types in self.methods:
            try:
                steps += [(name, tuple(type_values(t, i + k, self.aliases)
                                       for k, t in enumerate(types)))
                          for i in range(start, start + CALLS)]
            except NotLiteral:
                continue
        return Receiver(self.cls, args, steps=tuple(steps)) if steps or args else None


def fillers(texts: Sequence[str], entry: str, aliases: Mapping[str, str]) -> Fillers | None:
    """The fillers of ``entry``'s class in the first text that defines some or whose
    constructor needs values of declared types; None for a function, a class without
    either, or one whose constructor needs values of no declared type."""
    for text, short, method, mine in _in_each_text(texts, entry):
        ctor = next((fn for fn in mine if fn.name == "constructor"), None)
        made: list[str] | None = []
        if ctor is not None and _required(ctor.text):
            made = parameter_types(ctor.text, "constructor")
            if not made:
                return None
        methods = [(fn.name, tuple(parameter_types(fn.text, fn.name)
                                   or guessed_types(fn.text, fn.name) or ()))
                   for fn in mine if fn.name not in (method, "constructor") and _fills(fn.text)]
        methods = [m for m in methods if m[1]][:MAX_FILLERS]
        if methods or made:
            known = {**class_type_parameters(text, short), **aliases}
            return Fillers(short, tuple(methods), {k: v or "number" for k, v in known.items()},
                           tuple(made or ()))
    return None


def _in_each_text(texts: Sequence[str], entry: str
                  ) -> Iterator[tuple[str, str, str, list[Any]]]:
    """Per text: the text, the method ``entry``'s class (its last dotted name), the method's
    own name, and the methods the text defines in that class; nothing for a function."""
    cls, _, method = entry.rpartition(".")
    if not cls:
        return
    short = cls.rpartition(".")[2]
    for text in texts:
        yield text, short, method, [
            fn for fn in functions_in(text) if fn.kind == "method"
            and fn.qualified_name.rpartition(".")[0].rpartition(".")[2] == short]


def _required(text: str) -> bool:
    """Whether a function's first parameter is required (no default, not optional)."""
    params = params_of(text)
    first = next(iter(parameter_nodes(params)), None)
    return first is not None and first.type == "required_parameter" \
        and first.child_by_field_name("value") is None \
        and (first.child_by_field_name("pattern") or first).type != "rest_pattern"


def _fills(text: str) -> bool:
    """Whether a method is a filler (module docstring)."""
    root = _method_node(text)
    params = root.child_by_field_name("parameters") if root is not None else None
    if root is None or params is None or not parameter_nodes(params):
        return False
    ret = root.child_by_field_name("return_type")
    if ret is not None:
        return node_text(ret).lstrip(":").strip() == "void"
    if any(c.type in ("get", "set", "static", "async", "*") for c in root.children[:3]):
        return False
    body = root.child_by_field_name("body")
    return body is not None and "this." in node_text(body) and not _returns_value(body)


def _method_node(text: str) -> Node | None:
    """The method a method's text is, read as a class's body."""
    try:
        root = parse("class C {\n" + text + "\n}", "typescript").root_node
    except (InputLimitError, UserError, ValueError):
        return None
    return first_node(root, "method_definition")


def _returns_value(body: Node) -> bool:
    """Whether a body (not its nested functions) returns a value."""
    stack = list(body.named_children)
    while stack:
        cur = stack.pop()
        if cur.type == "return_statement" and cur.named_children:
            return True
        if cur.type not in ("function_declaration", "function_expression", "arrow_function",
                            "method_definition", "class_declaration", "class"):
            stack.extend(cur.named_children)
    return False


def stateful(texts: Sequence[str], entry: str) -> str | None:
    """The class of the method ``entry`` when the first text that defines the method has it
    change its instance (an assignment or ``++``/``--`` to a ``this.`` member: ``this.#count
    += by``, ``this.total = ...``) and the class is made without values: a call of it after
    the same call made once (``counter.increment(7) after new Counter(),
    counter.increment(7)``) is where a version that mishandles its state parts (it stores
    the wrong count, it starts over). None otherwise."""
    for _text, short, method, mine in _in_each_text(texts, entry):
        own = next((fn for fn in mine if fn.name == method), None)
        if own is None:
            continue
        ctor = next((fn for fn in mine if fn.name == "constructor"), None)
        if ctor is not None and _required(ctor.text):
            return None
        root = _method_node(own.text)
        body = root.child_by_field_name("body") if root is not None else None
        return short if body is not None and _writes_this(body) else None
    return None


#: The nodes that change what their left side names.
_WRITES = frozenset({"assignment_expression", "augmented_assignment_expression",
                     "update_expression"})


def _writes_this(body: Node) -> bool:
    """Whether a body (not its nested functions) assigns to or steps a ``this.`` member."""
    stack = list(body.named_children)
    while stack:
        cur = stack.pop()
        if cur.type in _WRITES:
            target = cur.child_by_field_name("left") or cur.child_by_field_name("argument")
            if target is not None and node_text(target).startswith("this."):
                return True
        if cur.type not in ("function_declaration", "function_expression", "method_definition",
                            "class_declaration", "class"):
            stack.extend(cur.named_children)
    return False


__all__ = ["CALLS", "MAX_FILLERS", "Fillers", "fillers", "stateful"]
