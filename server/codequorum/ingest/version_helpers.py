"""What a version needs of its own code beside the function: the helpers it defines.

A model's answer often defines more than the function asked for: a second function it
calls, a constant table, a class. A version cut down to the function alone
raises ``NameError`` (``ReferenceError``) where it runs, so the top-level definitions of
the same block that the function reaches (by name, and what those reach in turn) are kept
with it, in the order the block gives them, and so are the top-level assignments that
change them (``Stack.prototype.push = ...``). What the function does not reach (usage
examples, prints, tests) is dropped, and so are imports (the function's module gives
them; an answer's imports are kept apart, ``ExtractResult.imports``). One rule for
Python, JavaScript and TypeScript; only a top-level function keeps helpers (a method is
kept alone, as its class holds it).
"""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node

from codequorum.core.limits import InputLimitError
from codequorum.core.parsing import parse

#: The tree-sitter node types that name something, per language.
_NAME_TYPES = {
    "python": frozenset({"identifier"}),
    "javascript": frozenset({"identifier", "shorthand_property_identifier"}),
    "typescript": frozenset({"identifier", "type_identifier", "shorthand_property_identifier"}),
}
_NAME_TYPES["tsx"] = _NAME_TYPES["typescript"]

#: Top-level statements of JavaScript and TypeScript that declare names by their ``name``.
_JS_NAMED = frozenset({
    "function_declaration", "generator_function_declaration", "class_declaration",
    "abstract_class_declaration", "interface_declaration", "type_alias_declaration",
    "enum_declaration",
})
#: A TypeScript namespace (``namespace N``, ``module N``): it binds its first name.
_NAMESPACES = frozenset({"internal_module", "module"})


#: Imports are the module's to give (the function's file has them), not a version's helpers.
_IMPORTS = frozenset({"import_statement", "import_from_statement", "future_import_statement"})


def helper_nodes(root: Node, target: Node, language: str) -> list[Node]:
    """The top-level statements of ``root`` (besides ``target``, the function's own) that
    ``target`` reaches by name, in source order; empty for a language without a rule."""
    kinds = _NAME_TYPES.get(language)
    if kinds is None:
        return []
    declared: dict[str, list[Node]] = {}
    for node in root.named_children:
        if node.start_byte == target.start_byte or node.type in _IMPORTS:
            continue
        for name in declared_names(node, language) or _augmented(node):
            declared.setdefault(name, []).append(node)
    kept: dict[int, Node] = {}
    pending = [target]
    while pending:
        for name in _used(pending.pop(), kinds):
            for node in declared.pop(name, []):
                if node.start_byte not in kept:
                    kept[node.start_byte] = node
                    pending.append(node)
    return [kept[k] for k in sorted(kept)]


def without_module_copies(code: str, language: str, name: str, module: str) -> str:
    """``code`` (a stored version) without the helpers its function's ``module`` holds word
    for word (blanks and ``export`` aside): a model that saw the module often repeats them,
    and the module gives them where the version runs, so the version is compared, shown and
    run as the function and what it brings of its own. ``code`` as it is when nothing is
    left out or it does not parse."""
    if language not in _NAME_TYPES or "." in name:
        return code
    try:
        held = {_words(n) for n in parse(module, language).root_node.named_children}
        root = parse(code, language).root_node
    except (InputLimitError, ValueError):
        return code
    if root.has_error:
        return code
    data = code.encode("utf-8")
    kept = [n for n in root.named_children
            if name in declared_names(n, language) or not declared_names(n, language)
            or _words(n) not in held]
    if len(kept) == len(root.named_children):
        return code
    return "\n\n".join(data[n.start_byte:n.end_byte].decode("utf-8", "replace")
                       for n in kept) + "\n"


def _words(node: Node) -> str:
    """A statement's text with ``export`` and blanks aside, to compare two copies."""
    held = node.child_by_field_name("declaration") if node.type == "export_statement" else None
    return " ".join(_text(held if held is not None else node).split())


#: Assignments, and the nodes an assignment's target reaches its root name through.
_ASSIGNMENTS = frozenset({"assignment_expression", "augmented_assignment_expression",
                          "assignment", "augmented_assignment"})
_MEMBERS = {"member_expression": "object", "subscript_expression": "object",
            "attribute": "object", "subscript": "value"}


def _augmented(node: Node) -> list[str]:
    """The name a top-level assignment changes (``Stack.prototype.push = ...``,
    ``CACHE[k] = v``, ``count += 1``: ``Stack``, ``CACHE``, ``count``): it comes with
    that name's definition, as a part of it."""
    if node.type != "expression_statement" or not node.named_children:
        return []
    assignment = node.named_children[0]
    if assignment.type not in _ASSIGNMENTS:
        return []
    left = assignment.child_by_field_name("left")
    while left is not None and left.type in _MEMBERS:
        left = left.child_by_field_name(_MEMBERS[left.type])
    return [_text(left)] if left is not None and left.type == "identifier" else []


def top_level(root: Node, byte: int) -> Node | None:
    """The top-level statement of ``root`` that holds ``byte``."""
    return next((n for n in root.named_children if n.start_byte <= byte < n.end_byte), None)


def declared_names(node: Node, language: str) -> list[str]:
    """The names one top-level statement binds (empty for anything that binds none)."""
    if language == "python":
        return _python_names(node)
    if node.type == "export_statement":
        inner = node.child_by_field_name("declaration")
        return declared_names(inner, language) if inner is not None else []
    if node.type in _JS_NAMED:
        name = node.child_by_field_name("name")
        return [_text(name)] if name is not None else []
    if node.type in _NAMESPACES or (node.type == "expression_statement" and node.named_children
                                    and node.named_children[0].type in _NAMESPACES):
        space = node if node.type in _NAMESPACES else node.named_children[0]
        name = space.child_by_field_name("name")
        return [_text(name).split(".")[0].strip()] if name is not None else []
    if node.type in ("lexical_declaration", "variable_declaration"):
        names: list[str] = []
        for item in node.named_children:
            if item.type == "variable_declarator":
                names.extend(_pattern(item.child_by_field_name("name")))
        return names
    if node.type == "import_statement":
        return _js_imports(node)
    return []


def _python_names(node: Node) -> list[str]:
    if node.type == "decorated_definition":
        inner = node.child_by_field_name("definition")
        return _python_names(inner) if inner is not None else []
    if node.type in ("function_definition", "class_definition"):
        name = node.child_by_field_name("name")
        return [_text(name)] if name is not None else []
    if node.type == "expression_statement" and node.named_children:
        first = node.named_children[0]
        if first.type != "assignment":
            return []
        return list(_pattern(first.child_by_field_name("left")))
    if node.type == "import_statement":
        return [_text(n.child_by_field_name("alias")) if n.type == "aliased_import"
                else _text(n).split(".")[0] for n in node.children_by_field_name("name")]
    if node.type == "import_from_statement":
        return [_text(n.child_by_field_name("alias")) if n.type == "aliased_import"
                else _text(n).split(".")[-1] for n in node.children_by_field_name("name")]
    return []


def _js_imports(node: Node) -> list[str]:
    clause = next((c for c in node.named_children if c.type == "import_clause"), None)
    names: list[str] = []
    for part in clause.named_children if clause is not None else []:
        if part.type == "identifier":
            names.append(_text(part))
        elif part.type == "namespace_import":
            names.append(_text(part.named_children[-1]))
        elif part.type == "named_imports":
            for spec in part.named_children:
                alias = spec.child_by_field_name("alias") or spec.child_by_field_name("name")
                names.append(_text(alias))
    return names


def _pattern(node: Node | None) -> Iterator[str]:
    """The names a binding pattern binds (``a``, ``[a, b]``, ``{a, b: c}``, ``a, b``)."""
    if node is None:
        return
    if node.type in ("identifier", "shorthand_property_identifier_pattern"):
        yield _text(node)
        return
    for child in node.named_children:
        if child.type == "pair_pattern":
            yield from _pattern(child.child_by_field_name("value"))
        elif child.type not in ("property_identifier", "attribute", "subscript"):
            yield from _pattern(child)


def _used(node: Node, kinds: frozenset[str]) -> Iterator[str]:
    """Every name ``node``'s text mentions (iteratively: a deep tree never recurses)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in kinds:
            yield _text(current)
        stack.extend(current.children)


def _text(node: Node | None) -> str:
    return (node.text or b"").decode("utf-8", "replace") if node is not None else ""


__all__ = ["declared_names", "helper_nodes", "top_level", "without_module_copies"]
