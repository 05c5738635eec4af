"""The chat prompt that asks a model to write one function again.

The model sees what a developer would give it: the function's signature and docstring,
the file's imports, the header of the enclosing class, and a bounded window of the code
around the function — but never the function's current body, so each version is written
independently rather than copied. It is asked for that function only, in one fenced
block, which :mod:`codequorum.sources.extract` then validates.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

import tree_sitter

from codequorum.parsing import normalize_language, parse, to_bytes

if TYPE_CHECKING:
    from codequorum.parsing import FunctionInfo

DEFAULT_CONTEXT_LINES = 30
MAX_CONTEXT_CHARS = 6000
MAX_IMPORT_LINES = 40

_DISPLAY = {
    "python": "Python",
    "javascript": "JavaScript",
    "typescript": "TypeScript",
    "tsx": "TypeScript (TSX)",
    "java": "Java",
    "go": "Go",
    "rust": "Rust",
    "c": "C",
    "cpp": "C++",
    "sql": "SQL",
}

_IMPORT_TYPES = frozenset(
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

_CLASS_TYPES = frozenset(
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
    }
)

SYSTEM_PROMPT = (
    "You are an expert {display} programmer. When asked for a function, answer with that "
    "one function only — complete, with its signature and body — in a single fenced "
    "```{fence} code block. Do not add explanations, tests, example usage or other "
    "functions."
)


def display_name(language: str) -> str:
    """A language's name as people write it (``cpp`` -> ``C++``)."""
    lang = normalize_language(language)
    return _DISPLAY.get(lang, lang)


def build_messages(
    file_text: str,
    language: str,
    function: FunctionInfo,
    context_lines: int = DEFAULT_CONTEXT_LINES,
    *,
    path: str | None = None,
) -> list[dict[str, str]]:
    """System + user messages asking for ``function`` again, with bounded context."""
    lang = normalize_language(language)
    display = _DISPLAY.get(lang, lang)
    data = to_bytes(file_text)
    tree = parse(data, lang)
    owner = _enclosing_class_header(tree, data, function)
    where = f" in `{path}`" if path else ""
    kind = (
        f"the method `{function.name}` of class `{owner[1]}`"
        if owner
        else (f"the function `{function.name}`")
    )
    parts = [f"Write {kind}{where} (qualified name `{function.qualified_name}`)."]
    parts.append(_block("Its signature:", function.signature.strip(), lang))
    if function.docstring:
        parts.append(_block("Its documentation:", function.docstring.strip(), "text"))
    nearby = _nearby(data, function, context_lines, lang)
    # Imports and the class header go in on their own unless the window already shows them.
    imports = _imports(tree, data)
    if imports and imports not in nearby:
        parts.append(_block("The file's imports:", imports, lang))
    if owner and owner[0] not in nearby:
        parts.append(_block("It belongs to this class:", owner[0], lang))
    if nearby:
        parts.append(
            _block("Code around it in the file (the function itself is left out):", nearby, lang)
        )
    parts.append(
        f"Answer with the complete `{function.name}` — signature, documentation and body — "
        f"in one ```{lang} fenced code block, and nothing else."
    )
    return [
        {"role": "system", "content": SYSTEM_PROMPT.format(display=display, fence=lang)},
        {"role": "user", "content": "\n\n".join(parts)},
    ]


def prompt_hash(messages: Sequence[dict[str, str]]) -> str:
    """A stable hash of the messages (which prompt produced a stored sample)."""
    canonical = json.dumps(list(messages), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


# --------------------------------------------------------------------------- internals


def _block(title: str, body: str, fence: str) -> str:
    return f"{title}\n```{fence}\n{body.rstrip()}\n```"


def _text(data: bytes, start: int, end: int) -> str:
    return data[start:end].decode("utf-8", errors="replace")


def _imports(tree: tree_sitter.Tree, data: bytes) -> str:
    lines = [
        _text(data, child.start_byte, child.end_byte)
        for child in tree.root_node.children
        if child.type in _IMPORT_TYPES
    ]
    return "\n".join(lines[:MAX_IMPORT_LINES])


def _enclosing_class_header(
    tree: tree_sitter.Tree, data: bytes, function: FunctionInfo
) -> tuple[str, str] | None:
    """(header text, class name) of the innermost class-like node around the function."""
    node = tree.root_node.descendant_for_byte_range(function.start_byte, function.end_byte)
    while node is not None:
        if node.type in _CLASS_TYPES and not (
            node.start_byte == function.start_byte and node.end_byte == function.end_byte
        ):
            body = node.child_by_field_name("body")
            end = body.start_byte if body is not None else node.end_byte
            header = _text(data, node.start_byte, end).rstrip()
            name_node = node.child_by_field_name("name") or node.child_by_field_name("type")
            name = _text(data, name_node.start_byte, name_node.end_byte) if name_node else ""
            docstring = _python_class_docstring(body, data) if body is not None else ""
            if docstring:
                header += "\n    " + docstring
            return header, name
        node = node.parent
    return None


def _python_class_docstring(body: tree_sitter.Node, data: bytes) -> str:
    first = body.named_children[0] if body.named_children else None
    if first is not None and first.type == "expression_statement":
        inner = first.named_children[0] if first.named_children else None
        if inner is not None and inner.type == "string":
            return _text(data, inner.start_byte, inner.end_byte)
    return ""


def _nearby(data: bytes, function: FunctionInfo, context_lines: int, lang: str) -> str:
    """Up to ``context_lines`` lines before and after the function, the function cut out."""
    if context_lines <= 0:
        return ""
    lines = data.decode("utf-8", errors="replace").splitlines()
    first, last = function.start_point[0], function.end_point[0]
    before = lines[max(0, first - context_lines) : first]
    after = lines[last + 1 : last + 1 + context_lines]
    # Decorators sit just above the definition: they belong to it, keep them out.
    while before and before[-1].lstrip().startswith("@"):
        before.pop()
    text_before = "\n".join(before).lstrip("\n")
    text_after = "\n".join(after).rstrip("\n")
    if len(text_before) > MAX_CONTEXT_CHARS // 2:
        text_before = text_before[-(MAX_CONTEXT_CHARS // 2) :].split("\n", 1)[-1]
    if len(text_after) > MAX_CONTEXT_CHARS // 2:
        text_after = text_after[: MAX_CONTEXT_CHARS // 2].rsplit("\n", 1)[0]
    pieces = [p for p in (text_before, text_after) if p.strip()]
    if not pieces:
        return ""
    marker = _placeholder(function, lang)
    if text_before.strip() and text_after.strip():
        return f"{text_before}\n{marker}\n{text_after}"
    return f"{text_before}\n{marker}" if text_before.strip() else f"{marker}\n{text_after}"


def _placeholder(function: FunctionInfo, lang: str) -> str:
    indent = " " * function.start_point[1]
    comment = {"python": "#", "sql": "--"}.get(lang, "//")
    return f"{indent}{comment} ... `{function.name}` goes here ..."
