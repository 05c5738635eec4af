"""The names a JavaScript or TypeScript version takes from outside itself.

What :func:`codequorum.behaviour.module_rules.outside_names` is for Python: a version whose
module did not load in the sandbox runs alone, and its results stand only when it needs no
name its module gives. Read from the tree-sitter tree, never run: every identifier the
version reads, less the names it declares anywhere in itself (functions, classes, enums,
variables, parameters, destructured names, imports, catch bindings) and the globals every
run has (the language's own and those the harness gives: ``console``, ``setTimeout``,
``Buffer``, ``URL``...). A name declared in one scope of the version and read in another
counts as declared: a version that reads a name it declares nowhere is what is looked for.
"""

from __future__ import annotations

from tree_sitter import Node

from codequorum.core import parsing
from codequorum.ingest.js_globals import GLOBALS

#: Nodes that declare the name in their ``name`` field.
_NAMED = frozenset({
    "function_declaration", "generator_function_declaration", "function_expression",
    "generator_function", "function", "class_declaration", "class", "abstract_class_declaration",
    "enum_declaration", "internal_module", "module",
})
#: Nodes whose every identifier below is a name bound (parts of a destructuring).
_PATTERNS = frozenset({"object_pattern", "array_pattern", "rest_pattern",
                       "assignment_pattern", "object_assignment_pattern", "pair_pattern"})
_READ = ("identifier", "shorthand_property_identifier")


def outside_names(code: str, language: str = "javascript") -> frozenset[str]:
    """Names ``code`` reads that it does not declare and no run gives: what its module
    has to give. Empty when the code does not parse (it will not compile either)."""
    grammar = "typescript" if language == "typescript" else "javascript"
    root = parsing.parse(code.encode("utf-8", "surrogatepass"), grammar).root_node
    if root.has_error:
        return frozenset()
    read: set[str] = set()
    declared: set[str] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "import_statement":  # ``import { a as b }`` declares ``b``, reads none
            _imported(node, declared)
            continue
        if node.type in _READ:
            read.add(_text(node))
        _declarations(node, declared)
        stack.extend(node.children)
    return frozenset(read - declared - GLOBALS)


def _declarations(node: Node, declared: set[str]) -> None:
    """Add the names ``node`` itself declares."""
    kind = node.type
    if kind in _NAMED:
        name = node.child_by_field_name("name")
        if name is not None:
            declared.add(_text(name))
    elif kind == "variable_declarator":
        _bind(node.child_by_field_name("name"), declared)
    elif kind == "formal_parameters":
        for parameter in node.named_children:
            _bind(parameter, declared)
    elif kind in ("arrow_function", "catch_clause"):
        _bind(node.child_by_field_name("parameter"), declared)
    elif kind == "for_in_statement" and any(c.type in ("const", "let", "var")
                                            for c in node.children):
        _bind(node.child_by_field_name("left"), declared)


def _imported(statement: Node, declared: set[str]) -> None:
    """Add the names an ``import`` statement binds."""
    stack = [statement]
    while stack:
        node = stack.pop()
        if node.type == "import_specifier":
            _bind(node.child_by_field_name("alias") or node.child_by_field_name("name"),
                  declared)
        elif node.type in ("import_clause", "namespace_import", "import_require_clause"):
            declared.update(_text(c) for c in node.named_children if c.type == "identifier")
        stack.extend(node.named_children)


def _bind(node: Node | None, declared: set[str]) -> None:
    """Add the names a binding pattern binds (never its default values: those are read)."""
    if node is None:
        return
    kind = node.type
    if kind in ("identifier", "shorthand_property_identifier_pattern"):
        declared.add(_text(node))
    elif kind in ("required_parameter", "optional_parameter"):
        _bind(node.child_by_field_name("pattern"), declared)
    elif kind in ("assignment_pattern", "object_assignment_pattern"):
        _bind(node.child_by_field_name("left"), declared)
    elif kind == "pair_pattern":
        _bind(node.child_by_field_name("value"), declared)
    elif kind in _PATTERNS:
        for child in node.named_children:
            _bind(child, declared)


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")
