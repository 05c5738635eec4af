"""The chat prompt that asks a model to write one function again.

The model sees what a developer would give it: the function's signature and docstring,
and the code around it in whole statements (:mod:`codequorum.generate.surrounding_code`: the file's
imports, the header of the enclosing class, the nearest definitions whole or as their
signatures) — but never the function's current body, so each version is written
independently rather than copied. It is asked for that function only, in one fenced
block, which :mod:`codequorum.ingest.extract` then validates.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

import tree_sitter

from codequorum.core.parsing import normalize_language, parse, to_bytes
from codequorum.generate.surrounding_code import CLASS_TYPES, surrounding_code

if TYPE_CHECKING:
    from codequorum.core.parsing import FunctionInfo

DEFAULT_CONTEXT_LINES = 30

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
    owner = _enclosing_class(tree, data, function)
    where = f" in `{path}`" if path else ""
    kind = (
        f"the method `{function.name}` of class `{owner}`"
        if owner
        else (f"the function `{function.name}`")
    )
    parts = [f"Write {kind}{where} (qualified name `{function.qualified_name}`)."]
    parts.append(_block("Its signature:", function.signature.strip(), lang))
    if function.docstring:
        parts.append(_block("Its documentation:", function.docstring.strip(), "text"))
    nearby = surrounding_code(tree, data, function, context_lines, lang)
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
    """A stable hash of the messages (which prompt produced a stored version)."""
    canonical = json.dumps(list(messages), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


# --------------------------------------------------------------------------- internals


def _block(title: str, body: str, fence: str) -> str:
    return f"{title}\n```{fence}\n{body.rstrip()}\n```"


def _enclosing_class(tree: tree_sitter.Tree, data: bytes, function: FunctionInfo) -> str | None:
    """The name of the innermost class-like node around the function."""
    node = tree.root_node.descendant_for_byte_range(function.start_byte, function.end_byte)
    while node is not None:
        if node.type in CLASS_TYPES and not (
            node.start_byte == function.start_byte and node.end_byte == function.end_byte
        ):
            name = node.child_by_field_name("name") or node.child_by_field_name("type")
            text = data[name.start_byte:name.end_byte] if name is not None else b""
            return text.decode("utf-8", errors="replace")
        node = node.parent
    return None
