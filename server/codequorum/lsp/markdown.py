"""Untrusted text in markdown: escaped so it shows as written and cannot add markup.

The markdown sink (:mod:`codequorum.core.safe_text` lists every sink). Hovers are markdown.
Anything that came from a version (its code, messages its run produced, labels, names read
from a document) goes through :func:`md_text` (running text),
:func:`md_code` (inline code) or :func:`md_block` (a fenced block), which first pass it
through :func:`~codequorum.core.safe_text.safe_text` (control, bidi and zero-width characters
escaped, length bounded).
"""

from __future__ import annotations

import re

from codequorum.core.safe_text import code_span, safe_text

#: Characters that start markup anywhere in a line (emphasis, code, links, images, HTML,
#: entities, tables, strikethrough); CommonMark lets a backslash escape each.
_MARKUP = re.compile(r"([\\`*_\[\]<>&!#|~{}])")
#: What makes a bare URL a link in GitHub-flavoured markdown (a backslash goes after it).
_AUTOLINK = re.compile(r"(?i)(://|(?<![A-Za-z0-9])www(?=\.))")
#: Line starts that make a block: lists, headings by underline, numbered lists.
_BLOCK_START = re.compile(r"^(\s*\d*)([-+=.)])")
_BACKTICKS = re.compile(r"`+")
#: Most characters of one fenced block.
BLOCK_LIMIT = 6000


def md_text(text: object, limit: int | None = 500) -> str:
    """``text`` as literal markdown: one line, markup characters backslash-escaped."""
    escaped = _MARKUP.sub(r"\\\1", safe_text(text, limit))
    escaped = _AUTOLINK.sub(r"\1\\", escaped)
    return _BLOCK_START.sub(r"\1\\\2", escaped, count=1)


def _longest_run(text: str) -> int:
    return max((len(m) for m in _BACKTICKS.findall(text)), default=0)


def md_code(text: object, limit: int | None = 200) -> str:
    """``text`` as inline code: delimited by more backticks than any run inside it."""
    return code_span(text, limit)


#: Columns of a tab in a block of code.
TAB_COLUMNS = 4


def code_text(text: object, limit: int | None = BLOCK_LIMIT) -> str:
    """``text`` of a block of code, its lines kept and its tabs turned into the spaces they
    indent by (code indented with tabs reads as code, not as ``\\t``); every other control
    character escaped (:func:`safe_text`)."""
    raw = text if isinstance(text, str) else str(text)
    return safe_text(raw.expandtabs(TAB_COLUMNS), limit, keep_newlines=True)


def md_block(text: object, language: str = "", limit: int | None = BLOCK_LIMIT) -> str:
    """``text`` as a fenced code block whose fence no line inside can close; its tabs are
    indentation (:func:`code_text`)."""
    body = code_text(text, limit)
    fence = "`" * max(3, _longest_run(body) + 1)
    info = re.sub(r"[^A-Za-z0-9_+-]", "", language)
    return f"{fence}{info}\n{body}\n{fence}"
