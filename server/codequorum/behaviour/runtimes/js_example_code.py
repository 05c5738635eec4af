"""Examples that call the function inside code of their own, run whole in the sandbox.

``js_inputs`` reads an example that is a call with literal arguments as values. Real
examples often are not one: the call's result spread or read (``[...chunks(xs, 2)]``,
``Array.from(range(3))``, ``slugify(s).length``), a curried call (``add(5)(10)``), a
callback argument (``groupBy(xs, (x) => x.kind)``), a name of the module
(``label(Color.Green)``), a constant an earlier line of the example declares
(``const fns = [...]``, then ``allPass(12, fns) // => true``), a TypeScript cast
(``"a" as string | undefined``). Such an example becomes the source of a JavaScript
function of no parameter that makes those declarations and returns the expression's value
(:func:`example_source`); the harness evaluates it where the version's names are (its
module's top level, or the version's own script) and calls it, and its value is graded
against the expected literal as a call's is.

An example runs only where every name it reads is one the run gives (:func:`reads`): the
function, the declarations before it, the module's top-level names (in its module) or the
names every version declares (alone), JavaScript's globals; else it would raise on every
version alike. Nothing here runs anything: tree-sitter only.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from tree_sitter import Node

from codequorum.behaviour.runtimes.js_outside import outside_names
from codequorum.behaviour.runtimes.ts_strip import NotStrippable, strip_types
from codequorum.core.parsing import node_text, parse
from codequorum.ingest.version_helpers import declared_names

#: Characters of an example's code, at most (its declarations and expression).
MAX_SOURCE_CHARS = 4000
#: Declarations before an example kept as its setup, at most (the nearest ones).
MAX_SETUP = 12
_DECLARATIONS = frozenset({"lexical_declaration", "variable_declaration"})
_NAMED_DECLARATIONS = frozenset({"function_declaration", "generator_function_declaration",
                                 "class_declaration"})


def grammar(language: str) -> str:
    """The grammar an example of a ``language`` file is read with."""
    return "typescript" if language == "typescript" else "javascript"


def _statement(text: str, language: str) -> Node | None:
    """The one statement ``text`` is, or None (it does not parse, or holds more)."""
    root = parse(text.strip(), grammar(language)).root_node
    if root.has_error or len(root.named_children) != 1:
        return None
    return root.named_children[0]


def incomplete(text: str, language: str) -> bool:
    """Whether ``text`` does not parse: the first line of a statement written over several
    (``var users = [``), or no code at all."""
    return parse(text.strip(), grammar(language)).root_node.has_error


def one_statement(text: str, language: str) -> bool:
    """Whether ``text`` (lines joined) parses as one statement, and not as a label before
    one (``Alternatively:`` then ``const xs = [1];``: prose, then code)."""
    root = parse(text.strip(), grammar(language)).root_node
    found = [c for c in root.named_children if c.type != "comment"]
    return not root.has_error and len(found) == 1 and found[0].type != "labeled_statement"


class Binding(NamedTuple):
    """What an example's line binds for the lines after it: the names, the text of the
    value (empty for several), whether it declares them (else it assigns them again)."""

    names: list[str]
    value: str
    declares: bool


def binding(line: str, language: str) -> Binding | None:
    """The :class:`Binding` of a declaration (``const fns = [(x) => x > 3];``, a function
    or a class the example declares), an assignment of a name (``result = f(1);``) or of
    a property of one (``Rectangle.prototype.area = function () {...}``: it binds no
    name, it goes with the name it sets); None for any other line."""
    node = _statement(line, language)
    if node is None:
        return None
    if node.type in _DECLARATIONS:
        declarators = [c for c in node.named_children if c.type == "variable_declarator"]
        value = declarators[0].child_by_field_name("value") if len(declarators) == 1 else None
        return Binding(declared_names(node, grammar(language)),
                       node_text(value) if value else "", True)
    if node.type in _NAMED_DECLARATIONS:
        return Binding(declared_names(node, grammar(language)), "", True)
    assigned = node.named_children[0] if node.type == "expression_statement" and \
        node.named_children else None
    if assigned is None or assigned.type != "assignment_expression":
        return None
    left, right = assigned.child_by_field_name("left"), assigned.child_by_field_name("right")
    if left is None or right is None:
        return None
    if left.type == "identifier":
        return Binding([node_text(left)], node_text(right), False)
    root = left
    while root.type == "member_expression" and root.child_by_field_name("object") is not None:
        root = root.child_by_field_name("object")  # type: ignore[assignment]
    return Binding([], "", False) if root is not left and root.type == "identifier" else None


@dataclass
class Setup:
    """The lines of an example before the one run (its declarations and assignments; a
    name declared again replaces the declaration before, as a reader of the example takes
    it: ``const keys2`` twice in one ``@example``), and the names that hold a call of the
    function (``result``: name -> the call)."""

    short: str
    language: str
    #: (the line, the names it declares, the names it reads or sets)
    lines: list[tuple[str, frozenset[str], frozenset[str]]] = field(default_factory=list)
    kept: dict[str, str] = field(default_factory=dict)
    #: The lines that are :meth:`step`s.
    steps: set[str] = field(default_factory=set)

    def add(self, line: str, bound: Binding) -> None:
        names = frozenset(bound.names)
        if self.short in names:
            return  # the example's own function of that name would stand in the version's place
        if bound.declares:  # the lines of the name's earlier value go with it
            self.lines = [held for held in self.lines if not (held[1] | held[2]) & names]
        self.lines.append((line, names if bound.declares else frozenset(),
                           _identifiers(line, self.language)))
        del self.lines[:-MAX_SETUP]  # the nearest ones
        for name in names:
            self.kept.pop(name, None)
        if bound.value and calls(bound.value, self.short, self.language):
            self.kept.update(dict.fromkeys(names, bound.value))

    def step(self, expression: str) -> None:
        """A call of the function alone, no value shown (``pullAll(array, ['a']);``): a
        step of the setup, after which a name it passed may show what it changed
        (``console.log(array); // => ['b']``)."""
        call = _expression(expression, self.language)
        node = call.named_children[0] if call is not None and call.named_children else None
        if node is None or node.type != "call_expression" or \
                not _names(node.child_by_field_name("function"), self.short):
            return
        arguments = node.child_by_field_name("arguments")
        passed = [node_text(a) for a in (arguments.named_children if arguments else ())
                  if a.type == "identifier"]
        line = expression.strip().rstrip(";") + ";"
        self.steps.add(line)
        self.lines.append((line, frozenset(), _identifiers(line, self.language)))
        del self.lines[:-MAX_SETUP]
        shown = " ".join(line.split())
        self.kept.update({name: f"{shown} {name}" for name in passed})

    def declared(self) -> frozenset[str]:
        """The names the setup declares (an object the example makes, ``const r = ...``)."""
        return frozenset().union(*(held[1] for held in self.lines))

    def texts(self, expression: str) -> list[str]:
        """The lines ``expression`` needs, in their order: those declaring a name it reads,
        or setting or passing one, and so on back (a line declaring only what it does not
        read is left out, so a constant made of another function of the library costs no
        example that does not read it); the :meth:`step`s only for an expression showing a
        name one passed."""
        needed = set(_identifiers(expression, self.language))
        shows = expression.strip() in self.kept
        out: list[str] = []
        for line, declared, touched in reversed(self.lines):
            if line in self.steps and not shows:
                continue
            if declared & needed or (not declared and touched & needed):
                out.append(line)
                needed |= touched
        return out[::-1]


def _identifiers(line: str, language: str) -> frozenset[str]:
    """Every name ``line`` (one statement) reads or sets."""
    return frozenset(node_text(at) for at in _walk(_statement(line, language))
                     if at.type == "identifier")


def _walk(node: Node | None) -> Iterator[Node]:
    """``node`` and every named node below it."""
    stack = [node] if node is not None else []
    while stack:
        at = stack.pop()
        yield at
        stack.extend(at.named_children)


def _expression(text: str, language: str) -> Node | None:
    """The statement ``text`` is when it is one expression, else None."""
    node = _statement(text, language)
    return node if node is not None and node.type == "expression_statement" else None


def calls(expression: str, short: str, language: str) -> bool:
    """Whether ``expression`` (one expression) calls ``short``: by its name
    (``add(5)(10)``, ``[...chunks(xs, 2)]``) or on a namespace (``Text.slugify(s)``)."""
    return any(at.type == "call_expression" and _names(at.child_by_field_name("function"), short)
               for at in _walk(_expression(expression, language)))


def _names(callee: Node | None, short: str) -> bool:
    if callee is None:
        return False
    if callee.type == "identifier":
        return node_text(callee) == short
    if callee.type == "member_expression":
        prop = callee.child_by_field_name("property")
        obj = callee.child_by_field_name("object")
        return prop is not None and obj is not None and obj.type == "identifier" and \
            node_text(prop) == short
    return False


def without_namespace(text: str, short: str, language: str, given: Collection[str]) -> str:
    """``text`` (one statement) with each call of ``short`` on a namespace the run does not
    give (lodash's ``_.chunk(xs, 2)``, Ramda's ``R.add(2, 3)``, ``utils.slug(s)`` in a
    README's words) made a call of ``short`` itself: the run gives the function by its
    name. Unchanged where no such call stands."""
    text = text.strip()
    source = text.encode("utf-8")
    cuts: list[tuple[int, int]] = []
    for at in _walk(_statement(text, language)):
        callee = at.child_by_field_name("function") if at.type == "call_expression" else None
        if callee is None or callee.type != "member_expression" or not _names(callee, short):
            continue
        namespace = callee.child_by_field_name("object")
        prop = callee.child_by_field_name("property")
        if namespace is not None and prop is not None and node_text(namespace) not in given:
            cuts.append((callee.start_byte, prop.start_byte))
    for start, end in sorted(cuts, reverse=True):
        source = source[:start] + source[end:]
    return source.decode("utf-8") if cuts else text


def reads_one(expression: str, names: Collection[str], language: str) -> bool:
    """Whether ``expression`` (one expression) reads one of ``names`` (``result``, which an
    earlier line of the example declared with the function's value)."""
    return bool(names) and any(at.type == "identifier" and node_text(at) in names
                               for at in _walk(_expression(expression, language)))


def example_source(expression: str, setup: Sequence[str], language: str) -> str | None:
    """The JavaScript function the harness calls for an example: ``setup`` declared, then
    ``expression``'s value returned (an ``async`` function when it awaits: its value is
    what the promise settles to). None when it does not parse, is too long, or has
    TypeScript with run-time meaning."""
    body = "\n".join([*setup, f"return (\n{expression.strip()}\n);"])
    awaits = "await" in expression or any("await" in line for line in setup)
    source = f"({'async ' if awaits else ''}function () {{\n{body}\n}});\n"
    if len(source) > MAX_SOURCE_CHARS:
        return None
    root = parse(source, grammar(language)).root_node
    if root.has_error:
        return None
    if language == "typescript":
        try:
            source = strip_types(source)
        except NotStrippable:
            return None
    return source


def library_bindings(names: Collection[str], expression: str, setup: Sequence[str],
                     members: Sequence[tuple[str, str]]) -> list[str]:
    """Declarations binding each of ``names`` the example calls functions on (``R`` of
    ``R.propEq(2, 'a')``) to an object of its package's functions ``members`` (name, how
    the module requires the file giving it: its export of that name, else its default);
    a name it does not read as a namespace gets none (it stays unread, and the example
    does not run)."""
    text = "\n".join([*setup, expression])
    pairs = ", ".join(
        f"{json.dumps(name)}: ((m) => ({json.dumps(name)} in m ? m[{json.dumps(name)}] "
        f": m.default))(require({json.dumps(spec)}))" for name, spec in members)
    return [f"const {name} = {{ {pairs} }};" for name in sorted(names)
            if re.search(rf"(?<![\w$.]){re.escape(name)}\s*\.", text)]


def library_specifier(module_path: str, file: str) -> str:
    """How the module at ``module_path`` requires ``file`` (both paths of the view):
    ``./propEq.js``, ``../lib/propEq.js``."""
    rel = posixpath.relpath(file, posixpath.dirname(module_path) or ".")
    return rel if rel.startswith("../") else f"./{rel}"


def reads(source: str) -> frozenset[str]:
    """The names an example's source reads that it does not declare and no run gives."""
    return outside_names(source, "javascript")


def top_level_names(texts: Iterable[str], language: str) -> frozenset[str]:
    """The names every one of ``texts`` (a module, or each version) declares at its top
    level; empty for none."""
    found: list[set[str]] = []
    for text in texts:
        root = parse(text, grammar(language)).root_node
        names: set[str] = set()
        for node in root.named_children:
            names.update(declared_names(node, grammar(language)))
        found.append(names)
    return frozenset(set.intersection(*found)) if found else frozenset()


__all__ = ["Binding", "Setup", "binding", "calls", "example_source", "grammar", "incomplete",
           "library_bindings", "library_specifier", "one_statement", "reads", "reads_one",
           "top_level_names", "without_namespace"]
