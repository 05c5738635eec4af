"""Text for the editor as a small structure, and its two renderers: markdown, and plain text
for clients that ask for it (a hover's ``contentFormat`` that puts ``plaintext`` first).

What a feature says is composed once, as a :data:`Doc`: paragraphs of rows, each row a
line of inline pieces, a bullet, or a block of code. Inline pieces are ``str`` (our own
wording, shown as written), :class:`Text` (text from elsewhere: a version, its run, the
document), :class:`Code` (a name or code fragment) and :class:`Strong`. The renderers decide
how each looks: :func:`to_markdown` escapes what is not ours (:mod:`markdown`), so it shows as
written and cannot add markup; :func:`to_plain` adds no markup at all (no ``**``, no
backticks, no fences; a block is indented) and passes what is not ours through
:func:`~codequorum.core.safe_text.safe_text`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from lsprotocol import types

from codequorum.core.safe_text import safe_text
from codequorum.lsp.markdown import BLOCK_LIMIT, code_text, md_block, md_code, md_text

Format = Literal["markdown", "plaintext"]


@dataclass(frozen=True)
class Text:
    """Running text that is not our own wording (escaped in markdown; bounded)."""

    value: object
    limit: int | None = 500


@dataclass(frozen=True)
class Code:
    """A name or a code fragment, inline."""

    value: object
    limit: int | None = 200


@dataclass(frozen=True)
class Strong:
    """An inline piece in bold (markdown only; plain text shows it as it is)."""

    inner: str | Text | Code


Inline = str | Text | Code | Strong
#: One line of inline pieces.
Line = tuple[Inline, ...]


@dataclass(frozen=True)
class Bullet:
    """One item of a list."""

    line: Line


@dataclass(frozen=True)
class Block:
    """A block of code or a diff (``language`` names it for markdown's highlighting)."""

    text: object
    language: str = ""


Row = Line | Bullet | Block
#: Rows shown one under the other.
Paragraph = tuple[Row, ...]
#: Paragraphs, an empty line between two.
Doc = tuple[Paragraph, ...]


def _md_inline(piece: Inline) -> str:
    if isinstance(piece, str):
        return piece
    if isinstance(piece, Text):
        return md_text(piece.value, piece.limit)
    if isinstance(piece, Code):
        return md_code(piece.value, piece.limit)
    return f"**{_md_inline(piece.inner)}**"


def _plain_inline(piece: Inline) -> str:
    if isinstance(piece, str):
        return piece
    if isinstance(piece, Text | Code):
        return safe_text(piece.value, piece.limit)
    return _plain_inline(piece.inner)


def _md_row(row: Row) -> str:
    if isinstance(row, Bullet):
        return "- " + "".join(_md_inline(p) for p in row.line)
    if isinstance(row, Block):
        return md_block(row.text, row.language)
    return "".join(_md_inline(p) for p in row)


#: How a block is set off in plain text.
PLAIN_INDENT = "    "


def _plain_row(row: Row) -> str:
    if isinstance(row, Bullet):
        return "- " + "".join(_plain_inline(p) for p in row.line)
    if isinstance(row, Block):
        body = code_text(row.text, BLOCK_LIMIT)
        return "\n".join(PLAIN_INDENT + line if line else "" for line in body.split("\n"))
    return "".join(_plain_inline(p) for p in row)


def to_markdown(doc: Doc) -> str:
    """``doc`` as markdown; empty paragraphs left out."""
    return "\n\n".join("\n".join(_md_row(r) for r in par) for par in doc if par)


def to_plain(doc: Doc) -> str:
    """``doc`` as plain text without markup; empty paragraphs left out."""
    return "\n\n".join("\n".join(_plain_row(r) for r in par) for par in doc if par)


def render(doc: Doc, fmt: Format) -> str:
    """``doc`` in ``fmt``."""
    return to_plain(doc) if fmt == "plaintext" else to_markdown(doc)


def markup_content(doc: Doc, fmt: Format) -> types.MarkupContent:
    """``doc`` as the ``MarkupContent`` of a hover, of the kind ``fmt`` names."""
    kind = types.MarkupKind.PlainText if fmt == "plaintext" else types.MarkupKind.Markdown
    return types.MarkupContent(kind=kind, value=render(doc, fmt))


def client_format(formats: object) -> Format:
    """The format a client asks for, from its ``contentFormat`` list (most wanted first):
    plain text when the first kind it names that the server knows is ``plaintext``,
    markdown otherwise (also when it names none)."""
    for kind in formats if isinstance(formats, list | tuple) else ():
        if kind == types.MarkupKind.PlainText:
            return "plaintext"
        if kind == types.MarkupKind.Markdown:
            return "markdown"
    return "markdown"
