"""The instances a JavaScript or TypeScript method's examples build, read without running
anything: a binding ``const s = new Stack<number>()`` with literal arguments, then calls on
it with literal arguments (``s.push(1);``), each replayed in the sandbox before a later call
of the example (``s.peek() // => 2``) on a fresh instance of its class.

A binding whose arguments are not all literals, a statement on the instance that is not a
call with literal arguments (``s.push(x)``, ``s.items = []``), a line of two statements
or more than :data:`MAX_STEPS` calls spoil the instance: its later calls are no example.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from tree_sitter import Node

from codequorum.behaviour.runtimes import js_values
from codequorum.behaviour.runtimes.js_literals import (
    NotLiteral,
    call_arguments,
    node_text,
    parse_expression,
)
from codequorum.core.errors import UserError
from codequorum.core.limits import InputLimitError
from codequorum.core.model import Receiver
from codequorum.core.parsing import parse

#: Calls replayed on an instance before an example's call, at most.
MAX_STEPS = 6
#: Characters of an example's label, as Python's (``doctest_examples.LABEL_CHARS``).
LABEL_CHARS = 80
_NAME = r"[A-Za-z_$][\w$]*"
_BINDING = re.compile(rf"^(?:const|let|var)\s+({_NAME})\s*(?::[^=]*)?=\s*(.*)$", re.S)
_NEW = re.compile(rf"^new\s+({_NAME})\s*(?:<[^()]*>)?\s*(\(.*\))?$", re.S)
#: A statement that starts with a name: what it does to an instance of that name.
_ON = re.compile(rf"^({_NAME})\s*(?:[.\[=]|\?\.|\+\+|--)")


@dataclass
class Instance:
    """One instance an example binds: its class, its constructor's literal arguments, the
    calls made on it so far, and whether a statement spoiled it."""

    cls: str
    args: tuple[Any, ...] = ()
    steps: list[tuple[str, tuple[Any, ...]]] = field(default_factory=list)
    spoiled: bool = False
    #: The steps are a chain (``new Bag().add(1).add(2)``), each on what the one before gave.
    chained: bool = False

    def receiver(self, method: str | None = None) -> Receiver:
        """What a call on the instance as it is now runs on."""
        return Receiver(self.cls, self.args, steps=tuple(self.steps), method=method,
                        chained=self.chained)

    def add(self, method: str, args: tuple[Any, ...] | None) -> None:
        """A call made on the instance (None: not all literals), replayed before later ones."""
        if args is None or len(self.steps) >= MAX_STEPS:
            self.spoiled = True
        else:
            self.steps.append((method, args))

    def made(self) -> str:
        """``new Stack()``, ``new Range(1, 5)``."""
        return "new " + js_values.show_call(self.cls, self.args)

    def label(self, var: str, method: str, args: tuple[Any, ...]) -> str:
        """``s.peek() after new Stack(), s.push(1), s.push(2)``, shortened; on an instance
        made inline (``var`` empty, no step) ``new Box(2).volume()``, or through a chain
        ``new Bag().add(1).distinct()``."""
        if self.chained or (not var and not self.steps):
            text = self.made() + "".join(f".{js_values.show_call(m, a)}"
                                         for m, a in (*self.steps, (method, args)))
            return text if len(text) <= LABEL_CHARS else text[:LABEL_CHARS - 3] + "..."
        calls = [self.made(), *(f"{var}.{js_values.show_call(m, a)}" for m, a in self.steps)]
        text = f"{var}.{js_values.show_call(method, args)} after {', '.join(calls)}"
        return text if len(text) <= LABEL_CHARS else text[:LABEL_CHARS - 3] + "..."


def receiver_label(receiver: Receiver, var: str, method: str, args: tuple[Any, ...]) -> str:
    """The label of a call of ``method`` on ``receiver``'s instance, as an example's reads
    (``s.push(7) after new Stack(), s.push(1)``)."""
    instance = Instance(receiver.name, receiver.args, list(receiver.steps),
                        chained=receiver.chained)
    return instance.label(var, method, args)


def binding(line: str) -> tuple[str, Instance] | None:
    """``const s = new Stack<number>()`` -> ``("s", Instance("Stack"))``; a binding of
    anything else (``const s = make()``, ``new C(x)``) a spoiled instance, since its name's
    later calls run on what the example cannot give; None for a line that binds nothing."""
    m = _BINDING.match(line.strip().rstrip(";").strip())
    if m is None:
        return None
    made = _NEW.match(m.group(2).strip())
    if made is not None and statements(line) > 1:
        return m.group(1), Instance(made.group(1), spoiled=True)
    if made is None:
        return m.group(1), Instance("", spoiled=True)
    call = parse_expression("f" + (made.group(2) or "()"))
    try:
        if call is None or call.type != "call_expression":
            raise NotLiteral(made.group(2) or "")
        return m.group(1), Instance(made.group(1), call_arguments(call))
    except (NotLiteral, ValueError):
        return m.group(1), Instance(made.group(1), spoiled=True)


def statements(line: str) -> int:
    """How many statements a line holds (``s.push(1); s.push(2);`` two): a line of more
    is no step, since an example's reader takes its first call only."""
    try:
        root = parse(line, "typescript").root_node
    except (InputLimitError, UserError, ValueError):
        return 0
    return sum(c.type != "comment" for c in root.named_children)


def statement_on(line: str) -> str | None:
    """The name a statement starts with (``s`` of ``s.push(1);``, ``s.items = []``)."""
    m = _ON.match(line.strip())
    return m.group(1) if m else None


#: The nodes of a class declaration.
_CLASSES = frozenset({"class_declaration", "abstract_class_declaration"})


def class_comment(source: str, grammar: str, owner: str) -> str:
    """The comments right above the class ``owner`` (its last dotted part) in ``source``
    (its JSDoc with the class's examples), "" when there are none or it does not parse."""
    try:
        root = parse(source, grammar).root_node
    except (InputLimitError, UserError, ValueError):
        return ""
    name = owner.rpartition(".")[2]
    stack = [root]
    while stack:
        node = stack.pop()
        named = node.child_by_field_name("name") if node.type in _CLASSES else None
        if named is not None and node_text(named) == name:
            parent = node.parent
            return _comments_before(parent if parent is not None
                                    and parent.type == "export_statement" else node)
        stack.extend(reversed(node.named_children))
    return ""


def _comments_before(node: Node) -> str:
    """The comments right before ``node``, no blank line between, in reading order."""
    found: list[str] = []
    line = node.start_point[0]
    prev = node.prev_named_sibling
    while prev is not None and prev.type == "comment" and prev.end_point[0] >= line - 1:
        found.append(node_text(prev))
        line = prev.start_point[0]
        prev = prev.prev_named_sibling
    return "\n".join(reversed(found))


__all__ = ["LABEL_CHARS", "MAX_STEPS", "Instance", "binding", "class_comment",
           "statement_on", "statements"]
