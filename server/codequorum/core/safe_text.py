"""Text from a repository, a model or an agent made inert for the place that shows it.

Anything a version produced (exception messages, printed output, reprs of return values),
and anything a repository or a model names (file names, function names, version text,
answers), is untrusted. Each place that shows such text has one function, its sink:

- a terminal, a log line, JSON: :func:`safe_text` (control, bidi and zero-width characters
  escaped, length bounded), so an escape sequence cannot recolour, move the cursor, rewrite
  the title or hide text, and a megabyte of output cannot flood a hover; and one line of it
  holds no command a CI runner reads from a job's output (:func:`ci_inert`), which JSON
  written whole gets from :func:`json_inert`;
- markdown (hovers, reports in the editor): :mod:`codequorum.lsp.markdown`, built on
  :func:`safe_text` and :func:`code_span`;
- a plain message a client shows (``window/showMessage``, ``showMessageRequest``, progress,
  SARIF's message text): :func:`plain_message`, which also leaves no markdown link, image,
  autolink or HTML tag live (VS Code turns ``[x](command:y)`` in a message into a link);
- a title the editor draws (a code lens, a code action, a progress title or message):
  :func:`title_text`, a plain message in which no ``$(name)`` icon is live either (VS Code
  draws its icons from that syntax in lens titles and the status bar);
- a CSV cell: :func:`csv_cell` (no formula, full-width forms included);
- a file path written where a URI reference belongs (SARIF's ``artifactLocation.uri``):
  :func:`uri_reference`, every character but letters, digits, ``/`` and ``-._~``
  percent-encoded, so a file named ``javascript:alert(1).py`` or ``//host/share`` is a
  relative path, never a scheme or a host a viewer would follow;
- an agent's text and structured content: :func:`agent_text`, one line a repository cannot
  break to write its own instructions into the agent's context.

Each keeps the name readable: characters are escaped (``\\x1b``), never dropped, and a link
is broken by one space (``[x] (command:y)``).
"""

from __future__ import annotations

import logging
import re
import unicodedata
from typing import Any
from urllib.parse import quote

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
    """Format (Cf: bidi, zero-width), surrogate (Cs), private-use (Co), unassigned (Cn)
    characters, and the line and paragraph separators (Zl, Zp) that break a line as a
    newline does; the zero-width joiner of emoji sequences stays."""
    return (unicodedata.category(ch) in ("Cf", "Cs", "Co", "Cn", "Zl", "Zp")
            and ch not in ("\u200d",))


#: The characters :func:`safe_text` looks at one by one: controls and everything beyond
#: ASCII (a run of plain ASCII is copied as it is, at the speed of one regular expression).
_SUSPECT = re.compile(r"[\x00-\x1f\x7f-\U0010ffff]")


def _escaped(match: re.Match[str]) -> str:
    ch = match.group()
    return _escape_char(ch) if _CONTROL.match(ch) or _is_hidden(ch) else ch


def _kept_newline(match: re.Match[str]) -> str:
    return "\n" if match.group() == "\n" else _escaped(match)


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
    if keep_newlines:
        return _cut(_SUSPECT.sub(_kept_newline, raw), limit)
    return _cut(ci_inert(_SUSPECT.sub(_escaped, raw)), limit)


#: What a CI runner reads as a command in a job's output (GitHub Actions' runner, which
#: also sets step outputs and masks from it): ``::name ...::`` at the start of a line,
#: blanks skipped, and the older ``##[name ...]`` (and Azure Pipelines' ``##vso[``)
#: anywhere in a line.
_LINE_COMMAND = re.compile(r"^(\s*):(?=:)")
_OLD_COMMAND = re.compile(r"#(?=#(?:vso)?\[)")


def ci_inert(line: str) -> str:
    """``line`` with nothing a CI runner takes for a command: the first ``:`` of a leading
    ``::`` and the first ``#`` of ``##[`` (``##vso[``) written as ``\\x3a`` and
    ``\\x23``, so a file named ``::add-mask::x.py`` or a task id
    ``##[set-output name=ok;]yes`` printed by ``check`` or ``score`` in a CI job stays
    text. Part of :func:`safe_text` for one-line text (names, messages, cells, logs)."""
    return _OLD_COMMAND.sub(r"\\x23", _LINE_COMMAND.sub(r"\1\\x3a", line))


def ci_inert_lines(text: str) -> str:
    """:func:`ci_inert` on every line of ``text`` (code, a prompt), so a docstring line
    ``::add-mask::x`` printed in a CI job stays text."""
    return "\n".join(ci_inert(line) for line in text.split("\n"))


def json_inert(serialized: str) -> str:
    """Serialized JSON with no ``##[`` (``##vso[``) a CI runner would read as a command:
    ``#`` written as JSON's own ``\\u0023`` (it stands only inside strings), so the
    value decodes the same. A line of JSON never starts with ``::``."""
    return _OLD_COMMAND.sub(r"\\u0023", serialized)


def _cut(text: str, limit: int | None) -> str:
    """``text`` within ``limit`` characters (None: any): a cut text ends with ``…`` and
    says how long the whole was."""
    if limit is None or len(text) <= limit:
        return text
    note = f"{ELLIPSIS} ({len(text)} chars)"
    return text[: max(0, limit - len(note))] + note


#: The names interpreters give code without a file, in angle brackets in their messages
#: (Python's ``<string>``, ``<stdin>``, ``<module>``, ``<lambda>``, ``<listcomp>``...; V8's
#: ``<anonymous>``): bare words closed at once, no HTML element and no attribute, so no
#: link, image or script can hang on them; a message keeps them as the interpreter wrote.
INTERPRETER_NAMES = ("string", "stdin", "module", "lambda", "listcomp", "dictcomp",
                     "setcomp", "genexpr", "unknown", "anonymous", "eval", "locals")
#: What makes a link or a tag where text may be read as markdown (or as VS Code's message
#: links): ``](`` (an inline link or image) and ``<`` before a letter, ``/``, ``!`` or ``?``
#: (an autolink ``<http://..>``, ``<command:..>``, an HTML tag or comment), unless it opens
#: one of :data:`INTERPRETER_NAMES`.
_KEPT = "|".join(INTERPRETER_NAMES)
_LIVE = re.compile(rf"\](?=\()|<(?!(?:{_KEPT})>)(?=[A-Za-z/!?])")


def _unlinked(text: str) -> str:
    """``text`` with every link opener broken by a space after it."""
    return _LIVE.sub(lambda m: m.group(0) + " ", text)


def plain_message(text: object, limit: int | None = DEFAULT_LIMIT, *,
                  keep_newlines: bool = False) -> str:
    """``text`` for a message a client shows as plain text: :func:`safe_text` (one line
    unless ``keep_newlines``, for a message of our own wording whose names were made inert
    one by one), and no link, image, autolink or tag left live."""
    raw = text if isinstance(text, str) else str(text)
    return safe_text(_unlinked(raw), limit, keep_newlines=keep_newlines)


#: What starts an icon where the editor draws titles (``$(zap)``, ``$(sync~spin)``).
_ICON = re.compile(r"\$(?=\()")


def title_text(text: object, limit: int | None = 200) -> str:
    """``text`` for a title the editor draws: :func:`plain_message` (one line, escaped, no
    live link) with every ``$(`` broken by a space, so a name cannot draw an icon."""
    return _cut(_ICON.sub("$ ", plain_message(text, None)), limit)


#: How long a message to a person may be: it may quote names and text from a repository.
MESSAGE_LIMIT = 2000
#: How much of one string an agent's answer holds.
AGENT_LIMIT = 4000


def agent_text(text: object, limit: int | None = AGENT_LIMIT) -> str:
    """``text`` for an agent's answer (its text and each string of its structured
    content): one line, escaped, no live link, so a file or function name cannot start a
    line of its own in the agent's context."""
    return plain_message(text, limit)


def _kept_layout(match: re.Match[str]) -> str:
    return match.group() if match.group() in "\n\t" else _escaped(match)


def agent_block(text: object, limit: int | None = None) -> str:
    """Code in an agent's answer (a version's ``code``): escaped as :func:`safe_text`, its
    lines and tabs kept (the agent writes it into a file: a tab written ``\\t`` breaks the
    code, in Go, a Makefile or a tab-indented TypeScript file); the one string of an answer
    that is more than one line."""
    raw = text if isinstance(text, str) else str(text)
    return _cut(_SUSPECT.sub(_kept_layout, raw), limit)


_BACKTICKS = re.compile(r"`+")


def code_span(text: object, limit: int | None = 200) -> str:
    """``text`` as inline code (markdown, or an agent's text): escaped, one line, delimited
    by more backticks than any run inside it, so it cannot close its span early."""
    body = safe_text(text, limit)
    ticks = "`" * (max((len(m) for m in _BACKTICKS.findall(body)), default=0) + 1)
    pad = " " if body.startswith("`") or body.endswith("`") or not body.strip() else ""
    return f"{ticks}{pad}{body}{pad}{ticks}"


#: What a spreadsheet takes for the start of a formula (after NFKC: ``＝`` is ``=``).
FORMULA_START = ("=", "+", "-", "@")


def csv_cell(value: object, limit: int | None = DEFAULT_LIMIT) -> str:
    """Text as a CSV cell: escaped by :func:`safe_text` (a tab or a carriage return is
    written as ``\\t``, ``\\r``), and with a leading ``'`` when the cell, compatibility
    forms folded (NFKC: full-width ``＝＋－＠``, small forms) and leading blanks skipped,
    would start a formula."""
    text = safe_text(value, limit)
    folded = unicodedata.normalize("NFKC", text).lstrip(" \u3000")
    return "'" + text if folded.startswith(FORMULA_START) else text


def uri_reference(path: object) -> str:
    """A file path as a URI reference: percent-encoded (``:``, ``?``, ``#``, ``%``, spaces,
    controls and every non-ASCII character included), and never starting with ``//``, so
    no part of a repository's file name can become a scheme, a host, a query or a
    fragment."""
    text = path if isinstance(path, str) else str(path)
    encoded = quote(text, safe="/", errors="backslashreplace")
    return "/" + encoded.lstrip("/") if encoded.startswith("//") else encoded


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
        """A traceback, escaped, its lines kept (none a CI runner takes for a command)."""
        return ci_inert_lines(safe_text(super().formatException(ei), limit=None,
                                        keep_newlines=True))

    def formatStack(self, stack_info: str) -> str:
        """A stack, escaped, its lines kept (none a CI runner takes for a command)."""
        return ci_inert_lines(safe_text(super().formatStack(stack_info), limit=None,
                                        keep_newlines=True))
