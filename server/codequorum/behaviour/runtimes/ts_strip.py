"""TypeScript to JavaScript by type stripping, in this process and without running anything.

The TypeScript parse (tree-sitter) names every piece of type syntax; each is blanked
(replaced by spaces, line breaks kept, so positions stay) and what is left is the
JavaScript Node runs: annotations, type parameters and arguments, interfaces, type
aliases, ``declare`` statements, ``import type`` and ``export type`` statements and the
``export`` of a declaration that is only types, ``as``/``satisfies`` casts, non-null
``!``, accessibility and ``readonly`` modifiers, ``?`` of optional parameters,
``abstract``, ``implements``, overload signatures, index signatures, a ``this``
parameter, the ``!`` of a definite assignment. Two kinds of syntax with run-time
meaning are written out as TypeScript emits them (``ts_emit.py``): an ``enum`` becomes the
object TypeScript makes (``const enum`` too), a constructor's parameter properties
(``constructor(private x: number)``) assignments at the start of its body, a
``namespace`` the function TypeScript wraps it in, ``import fs = require('fs')``,
``import A = B.C`` and ``export = f`` the CommonJS it makes of them; each rewrite keeps the
lines where they were. Decorators are blanked too: a version runs undecorated (what a
decorator does, ``@Injectable()``, ``@memoize``, is the framework's, and its name is rarely
there to call when a version runs alone), and :func:`decorators` names them for the run's
detail.
"""

from __future__ import annotations

from tree_sitter import Node

from codequorum.behaviour.runtimes.ts_emit import (
    enum_object,
    namespace_owner,
    namespace_rewrites,
    parameter_properties,
)
from codequorum.core.parsing import node_text, parse
from codequorum.ingest.js_module_view import context_module

#: A span of the source: blanked (``None``) or put in place of its text.
Span = tuple[int, int] | tuple[int, int, str]

BLANKED = {
    "type_annotation", "type_parameters", "type_arguments", "interface_declaration",
    "type_alias_declaration", "ambient_declaration", "accessibility_modifier",
    "override_modifier", "implements_clause", "asserts_annotation", "type_predicate_annotation",
    "omitting_type_annotation", "opting_type_annotation", "adding_type_annotation",
    "function_signature", "index_signature",
}
#: How many decorators :func:`decorators` names.
NAMED_DECORATORS = 3


class NotStrippable(ValueError):
    """TypeScript whose meaning is more than its types."""


def _blank(spans: list[Span], data: bytes) -> str:
    """``data`` with each span blanked (its line breaks kept), or a rewrite put at its
    start (the span's own line breaks after it, so the lines after stay where they were)."""
    out = bytearray(data)
    rewrites: list[tuple[int, int, bytes]] = []
    for span in spans:
        start, end = span[0], span[1]
        for i in range(start, end):
            if out[i] not in (0x0A, 0x0D):
                out[i] = 0x20
        if len(span) == 3:
            rewrites.append((start, end, span[2].encode("utf-8")))
    for start, end, text in sorted(rewrites, reverse=True):
        out[start:end] = text + bytes(b for b in out[start:end] if b in (0x0A, 0x0D))
    return out.decode("utf-8", "replace")


def type_only(node: Node) -> bool:
    """An ``import type ...``/``export type { ... }`` statement, or an ``export`` of a
    declaration that is only types (``export interface``, ``export type T = ...``,
    ``export declare ...``): nothing of it exists at run time."""
    if node.type not in ("import_statement", "export_statement"):
        return False
    return any(c.type == "type" for c in node.children) or any(
        c.type in BLANKED for c in node.named_children)


def _spans(root: Node, spans: list[Span]) -> None:
    """The byte spans of ``root``'s types, added to ``spans``: iterative, since a file of
    the workspace may nest thousands deep (recursing, it raised RecursionError)."""
    stack = [root]
    while stack:
        stack.extend(_node_spans(stack.pop(), spans))


def _node_spans(node: Node, spans: list[Span]) -> list[Node]:
    """The spans ``node`` itself blanks, added to ``spans``; its children still to visit."""
    t = node.type
    if t == "enum_declaration":
        spans.append((node.start_byte, node.end_byte, enum_object(node)))
        return []
    if t == "method_definition":
        spans.extend(parameter_properties(node))
    if t in ("internal_module", "module"):
        try:
            spans.extend(namespace_rewrites(node, namespace_owner(node)))
        except ValueError as exc:
            raise NotStrippable(f"TypeScript {exc}") from None
        body = node.child_by_field_name("body")
        return list(body.named_children) if body is not None else []
    if t in ("import_statement", "import_alias", "export_statement"):
        rewrite = _commonjs_rewrite(node)
        if rewrite is not None:
            spans.append((node.start_byte, node.end_byte, rewrite))
            return []
    if t == "decorator":  # blanked, not a type: an ``export`` it stands in stays
        spans.append((node.start_byte, node.end_byte))
        return []
    if t in BLANKED or type_only(node) or _types_star(node) or _types_only_import(node):
        spans.append((node.start_byte, node.end_byte))
        return []
    if t in ("import_specifier", "export_specifier") and _type_marked(node):
        spans.append(_with_comma(node))  # ``import { type A, b }``: ``A`` is a type
        return []
    if t in ("as_expression", "satisfies_expression") and node.named_child_count:
        spans.append((node.named_children[0].end_byte, node.end_byte))
        return [node.named_children[0]]
    if t == "non_null_expression":
        spans.append((node.end_byte - 1, node.end_byte))
    if t == "variable_declarator":  # ``let x!: number``: a definite assignment
        spans.extend((c.start_byte, c.end_byte) for c in node.children if c.type == "!")
    if t == "required_parameter" and node.children and node.children[0].type == "this":
        spans.append(_this_parameter(node))  # ``this: T`` is a type, not a parameter
        return []
    if t in ("required_parameter", "optional_parameter"):
        for child in node.children:
            if child.type in ("accessibility_modifier", "readonly", "override_modifier"):
                spans.append((child.start_byte, child.end_byte))
            if child.type == "?":
                spans.append((child.start_byte, child.end_byte))
    if t in ("public_field_definition", "method_definition", "class_declaration",
             "abstract_class_declaration", "method_signature", "abstract_method_signature"):
        for child in node.children:
            if child.type in ("readonly", "abstract", "declare", "?", "!"):
                spans.append((child.start_byte, child.end_byte))
        if t in ("abstract_method_signature", "method_signature"):
            spans.append((node.start_byte, node.end_byte))
            return []
    return list(node.children)


def _commonjs_rewrite(node: Node) -> str | None:
    """TypeScript's CommonJS forms as it emits them: ``import fs = require('fs')`` ->
    ``const fs = require('fs')``, ``import A = B.C`` -> ``const A = B.C``, ``export = f``
    -> ``module.exports = f``; None for any other statement (or ``import type``)."""
    if any(c.type == "type" for c in node.children):
        return None
    named = node.named_children
    if node.type == "import_statement" and named and named[0].type == "import_require_clause":
        clause = named[0]
        name = next((c for c in clause.named_children if c.type == "identifier"), None)
        source = clause.child_by_field_name("source")
        if name is None or source is None:
            return None
        return f"const {node_text(name)} = require({node_text(source)});"
    if node.type == "import_alias" and len(named) == 2:
        return f"const {node_text(named[0])} = {node_text(named[1])};"
    if node.type == "export_statement" and any(c.type == "=" for c in node.children) \
            and len(named) == 1:
        return f"module.exports = {node_text(named[0])};"
    return None


def decorators(code: str) -> list[str]:
    """The decorators of ``code`` (TypeScript) a run leaves out, the first
    :data:`NAMED_DECORATORS` of them as written on one line (``@Injectable()``)."""
    if "@" not in code:
        return []
    found: list[str] = []
    stack = [parse(code, "typescript").root_node]
    while stack and len(found) < NAMED_DECORATORS:
        node = stack.pop()
        if node.type == "decorator":
            found.append(" ".join(code.encode("utf-8")[node.start_byte:node.end_byte]
                                  .decode("utf-8", "replace").split())[:60])
            continue
        stack.extend(reversed(node.children))
    return found


def _with_comma(node: Node) -> tuple[int, int]:
    """The span of ``node`` with the comma that follows it, if one does."""
    after = node.next_sibling
    end = after.end_byte if after is not None and after.type == "," else node.end_byte
    return node.start_byte, end


def _this_parameter(node: Node) -> tuple[int, int]:
    """The span of a ``this`` parameter with the comma that follows it (it comes first)."""
    return _with_comma(node)


def _type_marked(node: Node) -> bool:
    """An import or export specifier marked ``type`` (``{ type User }``)."""
    return any(c.type == "type" for c in node.children)


def _types_only_import(node: Node) -> bool:
    """``import { type A, type B } from './x'``: every name a type, no default or
    namespace import; elided whole, as TypeScript compiles it (the file is not loaded)."""
    if node.type != "import_statement":
        return False
    clause = next((c for c in node.named_children if c.type == "import_clause"), None)
    if clause is None or len(clause.named_children) != 1:
        return False
    named = clause.named_children[0]
    specifiers = [c for c in named.named_children if c.type == "import_specifier"]
    return named.type == "named_imports" and bool(specifiers) \
        and all(_type_marked(c) for c in specifiers)


def _types_star(node: Node) -> bool:
    """``export type * from './x'`` (TypeScript 5.0), which the grammar does not know:
    an ``export`` statement whose only error is the ``type`` before its ``*``."""
    if node.type != "export_statement":
        return False
    errors = [c for c in node.children if c.type == "ERROR"]
    return len(errors) == 1 and errors[0].text == b"type" \
        and any(c.type in ("*", "namespace_export") for c in node.children)


def _only_known_errors(root: Node) -> bool:
    """Every error of the tree is a statement :func:`_types_star` blanks."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            parent = node.parent
            if parent is None or not _types_star(parent):
                return False
            continue
        if node.has_error:
            stack.extend(node.children)
    return True


#: What ``export default`` may give that has no name: a run finds it as a CommonJS module
#: that is one function (``module.exports = (xs) => ...``).
ANONYMOUS_DEFAULTS = ("function_expression", "arrow_function", "generator_function")


def script_form(code: str) -> str:
    """A version with ES module syntax as a script ``vm.Script`` compiles: ``export`` and
    ``export default`` before a declaration blanked, ``export default`` before a function
    of no name made ``module.exports =``, ``export { ... }`` blanked, an
    ``import`` of one of Node's modules the sandbox gives (``path``, ``crypto``: see
    ``CONTEXT_MODULES``) made ``require`` calls binding the same names, every other
    ``import`` blanked (a version runs alone: what it imports is not there, and a call
    that needs it raises as it would without the import)."""
    data = code.encode("utf-8")
    tree = parse(code, "javascript")
    spans: list[Span] = []
    for i, node in enumerate(tree.root_node.children):
        if node.type == "import_statement":
            given = context_module(import_source(node))
            spans.append((node.start_byte, node.end_byte, required(node, i)) if given
                         else (node.start_byte, node.end_byte))
        elif node.type == "export_statement":
            value = node.child_by_field_name("value")
            if value is not None and value.type in ANONYMOUS_DEFAULTS \
                    and value.child_by_field_name("name") is None:
                spans.append((node.start_byte, value.start_byte, "module.exports = "))
                continue
            declared = node.child_by_field_name("declaration")
            if declared is None:
                declared = next((c for c in node.named_children if c.type.endswith(
                    ("declaration", "function_expression", "class"))), None)
            if declared is None:
                spans.append((node.start_byte, node.end_byte))
            else:
                spans.append((node.start_byte, declared.start_byte))
    return _blank(spans, data) if spans else code


#: ``require`` of a specifier, as a CommonJS script loads what an ``import`` names.
REQUIRE = "require({source})"


def import_source(node: Node) -> str:
    """The specifier an ``import`` statement names, unquoted (empty when it has none)."""
    source = node.child_by_field_name("source")
    return node_text(source).strip("'\"") if source is not None else ""


def required(node: Node, index: int) -> str:
    """One ``import`` statement as ``require`` calls binding the same names (empty for
    ``import type``); ``index`` makes its handle's name unique in the file."""
    if any(c.type == "type" for c in node.children):
        return ""
    found = node.child_by_field_name("source")
    source = node_text(found) if found is not None else "''"
    clause = next((c for c in node.named_children if c.type == "import_clause"), None)
    if clause is None:
        return f"{REQUIRE.format(source=source)};"
    handle = f"__cq_import_{index}"
    out = [f"const {handle} = {REQUIRE.format(source=source)};"]
    for part in clause.named_children:
        if part.type == "identifier":
            out.append(f"const {node_text(part)} = {handle} && {handle}.__esModule ? "
                       f"{handle}.default : {handle};")
        elif part.type == "namespace_import":
            out.append(f"const {node_text(part.named_children[-1])} = {handle};")
        elif part.type == "named_imports":
            pairs = [_pair(s) for s in part.named_children if s.type == "import_specifier"]
            if pairs:
                out.append(f"const {{ {', '.join(pairs)} }} = {handle};")
    return " ".join(out)


def _pair(spec: Node) -> str:
    name, alias = spec.child_by_field_name("name"), spec.child_by_field_name("alias")
    said = node_text(name) if name is not None else ""
    return f"{said}: {node_text(alias)}" if alias is not None else said


def package_imports(code: str, language: str) -> dict[str, str]:
    """The names ``code``'s ``import`` statements take from a package or one of Node's
    modules the sandbox does not give (not a relative path), each with its specifier:
    what :func:`script_form` blanks, so that a version run alone reads them as undefined
    names."""
    out: dict[str, str] = {}
    grammar = "typescript" if language == "typescript" else "javascript"
    for node in parse(code, grammar).root_node.children:
        spec = import_source(node) if node.type == "import_statement" else ""
        if not spec or spec.startswith(".") or context_module(spec) \
                or any(c.type == "type" for c in node.children):
            continue
        clause = next((c for c in node.named_children if c.type == "import_clause"), None)
        stack = [clause] if clause is not None else []
        while stack:
            cur = stack.pop()
            if cur.type == "identifier":
                out[node_text(cur)] = spec
            elif cur.type == "import_specifier":
                name = cur.child_by_field_name("alias") or cur.child_by_field_name("name")
                if name is not None:
                    out[node_text(name)] = spec
            else:
                stack.extend(cur.named_children)
    return out


def strip_types(code: str) -> str:
    """The JavaScript of ``code`` (TypeScript, or one method of a class alone), types
    blanked; :class:`NotStrippable` when it has syntax with run-time meaning or does not
    parse."""
    data = code.encode("utf-8")
    tree = parse(code, "typescript")
    if tree.root_node.has_error and not _only_known_errors(tree.root_node):
        return _method_alone(code)
    spans: list[Span] = []
    _spans(tree.root_node, spans)
    return _blank(spans, data)


#: A method alone (``step(x: number) { ... }``) is stripped as a class's body.
CLASS_OPEN, CLASS_CLOSE = "class __CodequorumStrip {\n", "\n}"


def _method_alone(code: str) -> str:
    whole = CLASS_OPEN + code + CLASS_CLOSE
    tree = parse(whole, "typescript")
    if tree.root_node.has_error:
        raise NotStrippable("the TypeScript does not parse")
    spans: list[Span] = []
    _spans(tree.root_node, spans)
    return _blank(spans, whole.encode("utf-8"))[len(CLASS_OPEN):-len(CLASS_CLOSE)]


__all__ = ["REQUIRE", "NotStrippable", "decorators", "import_source", "package_imports",
           "required", "script_form", "strip_types", "type_only"]
