"""The code around a function, for the prompt: whole statements, never part of one.

The window shows the file's statements in their order, with the function replaced by a
placeholder line. It always holds the file's imports, the headers of the scopes the
function sits in (its class with the class's docstring, an enclosing function) and their
closing lines; then the statements nearest the function — first in its own scope, then
outwards — each whole when it fits, else as its signature (``def helper(x): ...``) when
it is a definition, else left out. Left-out statements show as one ``# ...`` line. A
statement is never cut, so the model never sees a docstring without its ``def`` (and
never takes a neighbour's half docstring for the one it should write).

Bounds: ``context_lines`` lines of neighbouring statements on each side of the function,
:data:`MAX_CONTEXT_CHARS` characters in all, a statement longer than
:data:`MAX_STATEMENT_CHARS` shown as its signature, at most :data:`MAX_IMPORTS` imports.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import tree_sitter

if TYPE_CHECKING:
    from codequorum.core.parsing import FunctionInfo

MAX_CONTEXT_CHARS = 6000
MAX_STATEMENT_CHARS = MAX_CONTEXT_CHARS // 3
MAX_IMPORTS = 40

IMPORT_TYPES = frozenset(
    {
        "import_statement",
        "import_from_statement",
        "future_import_statement",
        "import_declaration",
        "use_declaration",
        "preproc_include",
        "package_clause",
        "package_declaration",
    }
)

CLASS_TYPES = frozenset(
    {
        "class_definition",
        "class_declaration",
        "abstract_class_declaration",
        "interface_declaration",
        "enum_declaration",
        "record_declaration",
        "impl_item",
        "trait_item",
        "class_specifier",
        "struct_specifier",
        "class",
    }
)

FUNCTION_TYPES = frozenset(
    {
        "function_definition",
        "function_declaration",
        "generator_function_declaration",
        "method_definition",
        "method_declaration",
        "constructor_declaration",
        "compact_constructor_declaration",
        "function_item",
        "create_function",
    }
)

#: Wrappers whose inner definition is in a field: decorators, ``export``.
_WRAPPERS = {"decorated_definition": "definition", "export_statement": "declaration"}


def surrounding_code(
    tree: tree_sitter.Tree, data: bytes, function: FunctionInfo, context_lines: int, lang: str
) -> str:
    """The window of code around ``function`` (see the module), "" when the file holds
    nothing but the function."""
    window = _Window(data.decode("utf-8", errors="replace").split("\n"), lang, context_lines)
    levels = _levels(tree, function)
    if not levels:
        return ""
    window.place_function(levels[-1], function)
    for outer, inner in itertools.pairwise(levels):
        window.open_scope(outer.path_member, inner.scope)
    window.add_imports(levels[0].members)
    for level in reversed(levels):
        window.add_neighbours(level)
    return window.render()


# --------------------------------------------------------------------------- scopes


@dataclass(frozen=True)
class _Unit:
    """A statement with the comment lines right above it (and a comment on its last
    line), or a run of comment lines alone: what is shown or left out as one."""

    nodes: tuple[tree_sitter.Node, ...]

    @property
    def main(self) -> tree_sitter.Node:
        """The statement (the last comment for a run of comments)."""
        return next((n for n in self.nodes if not _is_comment(n)), self.nodes[-1])

    @property
    def start_byte(self) -> int:
        return self.nodes[0].start_byte

    @property
    def end_byte(self) -> int:
        return self.nodes[-1].end_byte

    @property
    def start_point(self) -> tuple[int, int]:
        return self.nodes[0].start_point

    @property
    def end_point(self) -> tuple[int, int]:
        return self.nodes[-1].end_point


@dataclass(frozen=True)
class _Level:
    """One scope on the way from the file down to the function: the scope node (the
    tree's root, a class, an enclosing function), its statements, and which of them holds
    the function."""

    scope: tree_sitter.Node
    members: tuple[_Unit, ...]
    path_index: int

    @property
    def path_member(self) -> _Unit:
        """The statement that holds the function."""
        return self.members[self.path_index]


def _levels(tree: tree_sitter.Tree, function: FunctionInfo) -> list[_Level]:
    """The scopes around the function, outermost (the file) first."""
    node = tree.root_node.descendant_for_byte_range(function.start_byte, function.end_byte)
    scopes: list[tree_sitter.Node] = []
    while node is not None and node.parent is not None:
        parent = node.parent
        body = parent.child_by_field_name("body")
        if (parent.type in CLASS_TYPES or parent.type in FUNCTION_TYPES) and body is not None \
                and body.start_byte <= function.start_byte < body.end_byte:
            scopes.append(parent)
        node = parent
    levels: list[_Level] = []
    for scope in [tree.root_node, *reversed(scopes)]:
        members = _units(_members(scope))
        index = next((i for i, m in enumerate(members)
                      if m.start_byte <= function.start_byte < m.end_byte), None)
        if index is None:
            break
        levels.append(_Level(scope, members, index))
    return levels


def _members(scope: tree_sitter.Node) -> tuple[tree_sitter.Node, ...]:
    """The statements of a scope: the root's children, else its body's."""
    holder = scope if scope.parent is None else scope.child_by_field_name("body")
    return tuple(holder.named_children) if holder is not None else ()


def _units(nodes: tuple[tree_sitter.Node, ...]) -> tuple[_Unit, ...]:
    """Statements grouped with the comment lines right above them; a comment on the last
    line of a statement goes with it."""
    units: list[list[tree_sitter.Node]] = []
    pending: list[tree_sitter.Node] = []
    for node in nodes:
        row = node.start_point[0]
        if _is_comment(node) and not pending and units and row == units[-1][-1].end_point[0]:
            units[-1].append(node)
        elif pending and row == pending[-1].end_point[0] + 1:
            pending.append(node)
        else:
            if pending:
                units.append(pending)
            pending = [node]
        if pending and not _is_comment(pending[-1]):
            units.append(pending)
            pending = []
    if pending:
        units.append(pending)
    return tuple(_Unit(tuple(u)) for u in units)


def _is_comment(node: tree_sitter.Node) -> bool:
    return node.type.endswith("comment")


def _definition(member: tree_sitter.Node) -> tree_sitter.Node:
    """The definition inside a decorated or exported statement (else the statement)."""
    inner = member.child_by_field_name(_WRAPPERS.get(member.type, ""))
    return inner if inner is not None else member


def _class_docstring(scope: tree_sitter.Node, members: tuple[tree_sitter.Node, ...]
                     ) -> tree_sitter.Node | None:
    """A Python class's docstring statement."""
    if scope.type != "class_definition" or not members:
        return None
    first = members[0]
    inner = first.named_children[0] if first.named_children else None
    if first.type == "expression_statement" and inner is not None and inner.type == "string":
        return first
    return None


# --------------------------------------------------------------------------- the window


@dataclass
class _Window:
    """The rows of the file chosen so far, each with the text it shows (None: a row the
    placeholder stands for), and what is left of the bounds."""

    lines: list[str]
    lang: str
    context_lines: int
    shown: dict[int, str | None] = field(default_factory=dict)
    chars: int = 0
    used_before: int = 0
    used_after: int = 0
    first_row: int = 0
    last_row: int = 0
    has_context: bool = False

    # ------------------------------------------------------------ what is always shown

    def place_function(self, level: _Level, function: FunctionInfo) -> None:
        """The placeholder over the statement that holds the function (its decorators and
        the comment lines right above it included)."""
        member = level.path_member
        self.first_row, self.last_row = member.start_point[0], member.end_point[0]
        indent = " " * function.start_point[1]
        comment = _comment(self.lang)
        self.shown[self.first_row] = f"{indent}{comment} ... `{function.name}` goes here ..."
        for row in range(self.first_row + 1, self.last_row + 1):
            self.shown[row] = None

    def open_scope(self, member: _Unit, scope: tree_sitter.Node) -> None:
        """The header and the closing lines of a scope the function sits in (the rows of
        ``member``, the statement holding it, around the scope's own statements), and a
        Python class's docstring."""
        members = _members(scope)
        top, bottom = members[0].start_point[0], members[-1].end_point[0]
        self._take(range(member.start_point[0], top))
        self._take(range(bottom + 1, member.end_point[0] + 1))
        docstring = _class_docstring(scope, members)
        if docstring is not None and self._size(docstring) <= MAX_STATEMENT_CHARS:
            self._take(_rows(docstring))

    def add_imports(self, members: tuple[_Unit, ...]) -> None:
        """The file's imports, whole (at most :data:`MAX_IMPORTS`)."""
        imports = [m for m in members if m.main.type in IMPORT_TYPES][:MAX_IMPORTS]
        for member in imports:
            if self._size(member) <= MAX_STATEMENT_CHARS:
                self._take(_rows(member))
                self.has_context = True

    # ------------------------------------------------------------ the neighbours

    def add_neighbours(self, level: _Level) -> None:
        """The statements of one scope, nearest the function first, each whole, as its
        signature, or not at all, within the bounds."""
        if self.context_lines <= 0:
            return
        order = sorted(range(len(level.members)),
                       key=lambda i: (abs(i - level.path_index), i > level.path_index))
        for i in order:
            if i != level.path_index:
                self._add(level.members[i])

    def _add(self, member: _Unit) -> None:
        rows = [r for r in _rows(member) if r not in self.shown]
        if not rows:
            return
        whole: dict[int, str | None] = {r: self.lines[r] for r in rows}
        if self._size(member) <= MAX_STATEMENT_CHARS and self._fits(whole):
            self._show(whole)
            return
        stub = self._signature(member)
        if stub is not None and self._fits(stub):
            self._show(stub)

    def _signature(self, member: _Unit) -> dict[int, str | None] | None:
        """A definition's header with its body elided: ``def f(x): ...``, ``f() { ... }``;
        its comments and decorators' rows are left out (None for other statements, or when
        its rows are taken)."""
        definition = _definition(member.main)
        body = definition.child_by_field_name("body")
        if body is None or not (definition.type in FUNCTION_TYPES
                                or definition.type in CLASS_TYPES):
            return None
        header = [c for c in definition.children
                  if c.end_byte <= body.start_byte and not _is_comment(c)]
        start = member.main.start_point[0]
        end_row, end_col = header[-1].end_point if header else body.start_point
        head = self.lines[start:end_row + 1]
        head[-1] = _cut(head[-1], end_col).rstrip() + (
            " ..." if self.lang == "python" else " { ... }")
        stub: dict[int, str | None] = {row: None for row in _rows(member)}
        stub.update((start + k, text) for k, text in enumerate(head))
        return None if any(r in self.shown for r in stub) else stub

    # ------------------------------------------------------------ bounds

    def _fits(self, rows: dict[int, str | None]) -> bool:
        """Whether these rows (None: left out inside a signature) fit the bounds."""
        shown = [r for r, t in rows.items() if t is not None]
        before = sum(1 for r in shown if r < self.first_row)
        after = len(shown) - before
        size = sum(len(t) + 1 for t in rows.values() if t is not None)
        return (self.chars + size <= MAX_CONTEXT_CHARS
                and self.used_before + before <= self.context_lines
                and self.used_after + after <= self.context_lines)

    def _show(self, rows: dict[int, str | None]) -> None:
        for row, text in rows.items():
            self.shown[row] = text
            if text is None:
                continue
            self.chars += len(text) + 1
            if row < self.first_row:
                self.used_before += 1
            else:
                self.used_after += 1
        self.has_context = True

    def _take(self, rows: range | list[int]) -> None:
        """Rows that are always shown (they count against the characters only)."""
        for row in rows:
            if row not in self.shown and 0 <= row < len(self.lines):
                self.shown[row] = self.lines[row]
                self.chars += len(self.lines[row]) + 1
                self.has_context = True

    def _size(self, node: tree_sitter.Node | _Unit) -> int:
        return sum(len(self.lines[r]) + 1 for r in _rows(node) if r < len(self.lines))

    # ------------------------------------------------------------ text

    def render(self) -> str:
        """The chosen rows in order; a run of left-out code is one ``...`` comment line."""
        if not self.has_context:
            return ""
        out: list[str] = []
        previous = -1
        for row in sorted(self.shown):
            out.extend(self._gap(previous + 1, row))
            text = self.shown[row]
            if text is not None:
                out.append(text)
            previous = row
        out.extend(self._gap(previous + 1, len(self.lines)))
        while out and not out[-1].strip():
            out.pop()
        while out and not out[0].strip():
            out.pop(0)
        return "\n".join(out)

    def _gap(self, start: int, end: int) -> list[str]:
        """What stands for rows ``start`` to ``end`` (excluded) that are not shown: their
        blank lines (at most two), and for left-out code one ``...`` line at its indent
        between the blank lines before and after it."""
        skipped = self.lines[start:end]
        code = [k for k, line in enumerate(skipped) if line.strip()]
        if not code:
            return [""] * min(len(skipped), 2)
        first = skipped[code[0]]
        indent = first[: len(first) - len(first.lstrip())]
        after = len(skipped) - 1 - code[-1]
        marker = f"{indent}{_comment(self.lang)} ..."
        return [""] * min(code[0], 2) + [marker] + [""] * min(after, 2)


def _rows(node: tree_sitter.Node | _Unit) -> list[int]:
    return list(range(node.start_point[0], node.end_point[0] + 1))


def _cut(line: str, byte_col: int) -> str:
    """``line`` up to a tree-sitter byte column."""
    return line.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore")


def _comment(lang: str) -> str:
    return {"python": "#", "sql": "--"}.get(lang, "//")
