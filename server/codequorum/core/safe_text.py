"""Candidate text made safe to show: control characters escaped, length bounded.

Anything a version produced (exception messages, printed output, reprs of return values,
names) is untrusted. Before it reaches a terminal, an editor, a JSON/CSV report or a
webview it goes through :func:`safe_text`, so an escape sequence cannot recolour, move
the cursor, rewrite the terminal title or hide text, and a megabyte of output cannot
flood a hover.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from typing import Any

DEFAULT_LIMIT = 500
ELLIPSIS = "…"

# C0 and C1 controls (tab and newline handled by the caller's choice), DEL, and the
# Unicode format characters that reorder or hide text (bidi overrides, zero-width).
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def _escape_char(ch: str) -> str:
    code = ord(ch)
    if ch == "\n":
        return "\\n"
    if ch == "\r":
        return "\\r"
    if ch == "\t":
        return "\\t"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _is_hidden(ch: str) -> bool:
    """Format (Cf), surrogate (Cs) and private-use-free unassigned controls."""
    return unicodedata.category(ch) in ("Cf", "Cs", "Co", "Cn") and ch not in ("\u200d",)


def safe_text(
    text: object, limit: int | None = DEFAULT_LIMIT, *, keep_newlines: bool = False
) -> str:
    """``text`` with every control and invisible formatting character escaped, cut to ``limit``.

    ``keep_newlines`` keeps ``\\n`` (for multi-line blocks such as code); tabs, carriage
    returns and every other control character are always written as ``\\xNN`` escapes.
    ``limit`` counts characters of the result (None: no limit); a cut text ends with
    ``…`` and says how long the whole was.
    """
    raw = text if isinstance(text, str) else str(text)
    out: list[str] = []
    for ch in raw:
        if (ch == "\n" and keep_newlines) or not (_CONTROL.match(ch) or _is_hidden(ch)):
            out.append(ch)
        else:
            out.append(_escape_char(ch))
    result = "".join(out)
    if limit is not None and len(result) > limit:
        note = f"{ELLIPSIS} ({len(result)} chars)"
        result = result[: max(0, limit - len(note))] + note
    return result


#: A log line's message is bounded too: it may quote names, paths and input.
MAX_LOG_CHARS = 4000


class SafeFormatter(logging.Formatter):
    """Log lines made safe once, where they are written: whatever a message quotes (a file
    name, a function name, a task id from a repository) reaches the terminal or the log
    file with its control and invisible characters escaped, one record one line (a
    traceback keeps its own line breaks, nothing else)."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        """The record's line, escaped and bounded."""
        return safe_text(super().formatMessage(record), limit=MAX_LOG_CHARS)

    def formatException(self, ei: Any) -> str:
        """A traceback, escaped, its lines kept."""
        return safe_text(super().formatException(ei), limit=None, keep_newlines=True)

    def formatStack(self, stack_info: str) -> str:
        """A stack, escaped, its lines kept."""
        return safe_text(super().formatStack(stack_info), limit=None, keep_newlines=True)
