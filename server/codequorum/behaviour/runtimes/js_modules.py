"""A JavaScript or TypeScript version in its module, as the sandboxed Node loads it.

The parent prepares everything here, in this process and without running anything; the
harness only evaluates it (``node_harness/modules.js``):

- the module's text with the function's definition replaced by the version's
  (:func:`spliced`): the module's other functions and constants are there, a function of
  the module that calls it calls the version, a method is a method of its own class and a
  function of a TypeScript namespace is the namespace's (``Text.slugify``, set on the
  object the namespace compiles to: ``ts_emit.py``); the helpers the version defines
  beside its function come with it;
- every file of the view as a CommonJS script (:func:`commonjs_form`): TypeScript types
  stripped, ``import`` statements made ``require`` calls, ``export`` declarations kept and
  their names set on ``exports`` at the end, so that one small loader inside the sandbox
  (no file system: the files travel in the run message) gives ``require`` of relative paths
  and ``node_modules`` packages of the view, and nothing else.

Not modelled: live bindings of ES modules (an import is a copy taken when it runs), import
cycles see the exports set so far, top-level ``await``, ``import.meta``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tree_sitter import Node

from codequorum.behaviour.runtimes.js_helpers import reconciled
from codequorum.behaviour.runtimes.ts_strip import REQUIRE, NotStrippable, required, strip_types
from codequorum.core.model import ModuleContext
from codequorum.core.parsing import FunctionInfo, function_by_name, parse
from codequorum.ingest.js_module_view import CONTEXT_MODULES, grammar
from codequorum.ingest.version_helpers import declared_names

#: ``export * from``: every name but ``default`` that the module does not set itself.
STAR = ("(function (m) {{ for (const k in m) if (k !== 'default' && !(k in exports)) "
        "exports[k] = m[k]; }})({origin});")


#: The property a class's static block sets to reach a private method ``#m`` from outside
#: (``node_harness/values.js``'s ``find``): an instance method's caller on the class, and a
#: static one's beside it.
PRIVATE_CALLER = ("static {{ Object.defineProperty(this, '__codequorum_private{static}', "
                  "{{ value: {caller} }}); }}")


def with_private_caller(version: str, qualified_name: str) -> str:
    """``version`` of a private method ``#m`` (``Owner.#m``) with, after it in its class, a
    static block that hands the harness a function calling it (nothing else reaches
    ``#m`` from outside the class); any other version as it is."""
    name = qualified_name.rpartition(".")[2]
    if not re.fullmatch(r"#[A-Za-z_$][\w$]*", name):
        return version
    if re.match(r"\s*(?:(?:async|override|private|protected|public)\s+)*static\b", version):
        caller = f"(...a) => this.{name}(...a)"
        return version.rstrip() + "\n" + PRIVATE_CALLER.format(static="_static", caller=caller)
    caller = f"function (...a) {{ return this.{name}(...a); }}"
    return version.rstrip() + "\n" + PRIVATE_CALLER.format(static="", caller=caller)


class NotSpliced(ValueError):
    """The version cannot be put in its module's place (the reason is the message)."""


def spliced(source: str, language: str, qualified_name: str, version: str) -> str:
    """``source`` with the definition of ``qualified_name`` replaced by ``version`` (each
    name the version's helpers and the module both declare declared once:
    :func:`~codequorum.behaviour.runtimes.js_helpers.reconciled`). A function of a
    TypeScript namespace is reached through it (:func:`_reached`)."""
    source, version = reconciled(source, version, language, qualified_name)
    found = function_by_name(source, language, qualified_name)
    if found is None or found.qualified_name != qualified_name:
        raise NotSpliced(f"the module has no function {qualified_name}")
    data = source.encode("utf-8")
    exported, setting = _reached(data, language, found, version)
    before = _inserted(data[:found.start_byte], exported).decode("utf-8", "replace")
    text = version.strip()
    for keywords in ("export default ", "export "):  # the module's own stay where they are
        if before.rstrip().endswith(keywords.strip().split()[-1]) and text.startswith(keywords):
            text = text.removeprefix(keywords).lstrip()
            break
    return before + text + setting + data[found.end_byte:].decode("utf-8", "replace")


#: A TypeScript namespace (``namespace N``, ``module N``).
_NAMESPACES = frozenset({"internal_module", "module"})


def _reached(data: bytes, language: str, found: FunctionInfo,
             version: str) -> tuple[list[int], str]:
    """For a function of a TypeScript namespace: where ``export `` goes in the module so
    that the harness reaches it by its qualified name (before each statement on its way
    that a namespace holds and does not export: an inner namespace, a method's class), and
    what sets the version's function on its namespace after it (``;B.g = g;``: the
    function may be one the namespace keeps to itself, and the version's helpers may come
    first, taking the ``export``). Nothing for a function outside a namespace."""
    if not found.namespace:
        return [], ""
    root = parse(data, language).root_node
    node: Node | None = root.descendant_for_byte_range(found.start_byte, found.end_byte)
    at: list[int] = []
    while node is not None and node.parent is not None:
        block = node.parent
        if (block.type == "statement_block" and block.parent is not None
                and block.parent.type in _NAMESPACES and node.type != "export_statement"
                and (node.start_byte, node.end_byte) != (found.start_byte, found.end_byte)):
            at.append(node.start_byte)
        node = block
    own = found.qualified_name.removeprefix(found.namespace + ".")
    declared = {n for statement in parse(version, language).root_node.named_children
                for n in declared_names(statement, language)}
    space = found.namespace.rpartition(".")[2]
    setting = f";{space}.{own} = {own};" if "." not in own and own in declared else ""
    return sorted(at), setting


def _inserted(data: bytes, at: list[int]) -> bytes:
    """``data`` with ``export `` put at each offset of ``at`` (ascending)."""
    out = bytearray()
    last = 0
    for offset in at:
        out += data[last:offset] + b"export "
        last = offset
    return bytes(out + data[last:])


def javascript(code: str, language: str) -> str:
    """The JavaScript of a file: TypeScript's types stripped (:class:`NotSpliced` when it
    has syntax with run-time meaning)."""
    if language != "typescript":
        return code
    try:
        return strip_types(code)
    except NotStrippable as exc:
        raise NotSpliced(str(exc)) from None


def _text(node: Node | None) -> str:
    return (node.text or b"").decode("utf-8", "replace") if node is not None else ""


def _declared(node: Node) -> list[str]:
    """The names a declaration binds (a function, a class, ``const``/``let``/``var``)."""
    name = node.child_by_field_name("name")
    if name is not None and node.type.endswith(("function_declaration", "class_declaration",
                                                "generator_function_declaration")):
        return [_text(name)]
    names: list[str] = []
    for item in node.named_children:
        if item.type == "variable_declarator":
            _pattern_names(item.child_by_field_name("name"), names)
    return names


def _pattern_names(node: Node | None, names: list[str]) -> None:
    if node is None:
        return
    if node.type in ("identifier", "shorthand_property_identifier_pattern"):
        names.append(_text(node))
        return
    for child in node.named_children:
        if child.type == "pair_pattern":
            _pattern_names(child.child_by_field_name("value"), names)
        elif child.type != "property_identifier":
            _pattern_names(child, names)


def _export(node: Node, tail: list[str]) -> tuple[int, str] | None:
    """One ``export`` statement: (where the kept text starts, what replaces what is before
    it), or None when the whole statement is replaced (``tail`` gets the exports)."""
    declared = node.child_by_field_name("declaration")
    default = any(c.type == "default" for c in node.children)
    value = node.child_by_field_name("value")
    if declared is not None:
        names = _declared(declared)
        tail.extend(f"exports.{'default' if default else n} = {n};" for n in names)
        return declared.start_byte, ""
    if default and value is not None:
        return value.start_byte, "exports.default = "
    source = node.child_by_field_name("source")
    clause = next((c for c in node.named_children if c.type == "export_clause"), None)
    origin = REQUIRE.format(source=_text(source)) if source is not None else None
    if clause is None:
        if origin is not None:  # export * from / export * as ns from
            alias = next((c for c in node.named_children if c.type in ("identifier",
                                                                      "namespace_export")), None)
            tail.append(f"exports.{_text(alias).split()[-1]} = {origin};" if alias is not None
                        else STAR.format(origin=origin))
        return None
    for spec in clause.named_children:
        if spec.type != "export_specifier":
            continue
        name, alias = spec.child_by_field_name("name"), spec.child_by_field_name("alias")
        held = f"{origin}.{_text(name)}" if origin is not None else _text(name)
        tail.append(f"exports.{_text(alias or name)} = {held};")
    return None


def commonjs_form(code: str) -> str:
    """JavaScript ``code`` with its module syntax made CommonJS (lines kept where they are:
    an import's replacement has its line breaks)."""
    tree = parse(code, "javascript")
    data = code.encode("utf-8")
    edits: list[tuple[int, int, str]] = []
    tail: list[str] = []
    for i, node in enumerate(tree.root_node.children):
        if node.type == "import_statement":
            edits.append((node.start_byte, node.end_byte, required(node, i) + _breaks(node)))
        elif node.type == "export_statement":
            kept = _export(node, tail)
            if kept is None:
                edits.append((node.start_byte, node.end_byte, _breaks(node)))
            else:
                edits.append((node.start_byte, kept[0], kept[1]))
    syntax = bool(edits)  # the module's own syntax, not only ``import.meta``
    edits = _with_import_meta(tree.root_node, edits)
    if not edits:
        return code
    out = bytearray()
    at = 0
    for start, end, text in edits:
        out += data[at:start] + text.encode("utf-8")
        at = end
    out += data[at:]
    if not syntax:
        return out.decode("utf-8", "replace")
    closing = " ".join(["Object.defineProperty(exports, '__esModule', { value: true });",
                        *tail])
    return out.decode("utf-8", "replace") + "\n;" + closing + "\n"


#: What ``import.meta`` reads as in a CommonJS script: the module's file as a URL, its
#: file and folder, and a frozen empty ``env`` (a bundler's, as ``process.env`` is neutral).
IMPORT_META = ("({ url: 'file://' + __filename, filename: __filename, dirname: __dirname, "
               "env: Object.freeze({}) })")


def _with_import_meta(root: Node, edits: list[tuple[int, int, str]]
                      ) -> list[tuple[int, int, str]]:
    """``edits`` and a replacement of each ``import.meta`` outside them (a script has
    none: ``import.meta.env.MODE`` would not compile), in the order of the text."""
    metas: list[tuple[int, int, str]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "meta_property" and _text(node) == "import.meta":
            if not any(start <= node.start_byte < end for start, end, _ in edits):
                metas.append((node.start_byte, node.end_byte, IMPORT_META))
            continue
        stack.extend(node.children)
    return sorted([*edits, *metas]) if metas else edits


def _breaks(node: Node) -> str:
    return "\n" * (_text(node).count("\n"))


def module_message(context: ModuleContext, version: str, language: str) -> dict[str, Any]:
    """The run message's ``module``: the view's files as CommonJS scripts and the module
    with the version in place (``problem`` says why it cannot load, and nothing else is
    sent)."""
    aliases: dict[str, dict[str, str]] = {}
    for folder, spec, found in context.aliases:  # the workspace's configuration's
        aliases.setdefault(folder, {})[spec] = found
    base = {"name": context.name, "path": context.path, "files": [], "entry": "",
            "builtins": CONTEXT_MODULES, "aliases": aliases}
    files = [[path, _script(path, text)] for path, text in context.files
             if path != context.path]
    try:
        whole = spliced(context.source, language, context.qualified_name, version)
        entry = commonjs_form(javascript(whole, language))
    except NotSpliced as exc:
        return {**base, "problem": f"the module `{context.name}` cannot take the version: {exc}"}
    return {**base, "files": files, "entry": entry}


def _script(path: str, text: str) -> str:
    """A file of the view as the loader evaluates it; one that cannot be made JavaScript
    throws when it is loaded, naming itself (a file read only for its types, or never
    loaded, costs the run nothing)."""
    if path.endswith(".json"):
        return text
    try:
        return commonjs_form(javascript(text, grammar(path)))
    except NotSpliced as exc:
        return f"throw new SyntaxError({json.dumps(f'{path}: {exc}')});\n"


__all__ = ["NotSpliced", "commonjs_form", "javascript", "module_message", "spliced",
           "with_private_caller"]
