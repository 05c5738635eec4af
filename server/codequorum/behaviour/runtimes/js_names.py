"""Line breaks a JavaScript version can put into the names V8 prints.

V8's ``--print-bytecode`` prints a function's name raw (its constants escaped), so a name
holding a line feed writes lines of its own choosing into the printout (``{"a\\n<a forged
bytecode line>"() {}}``, ``o["a\\n..."] = function () {}``). A name that holds a line feed
can only take it from a string or template literal: identifiers hold none. Here, found by
tree-sitter in the literals' own text (a template's substitutions are code, left alone):

- :func:`inert`: the version with every line feed or carriage return a literal makes (an
  escape, or a template's raw line break) made a tab or a space of the same length: what
  the static counts compile (never run), so no name breaks a line and every bytecode is
  the same;
- :func:`first_lines`: each literal's text up to its first line break, where it has one:
  the only ends a printed header line of a traced run (which runs the version as written)
  can have when a name broke it.
"""

from __future__ import annotations

import re

from codequorum.core import parsing

BREAKS = (0x0A, 0x0D)
#: One escape of a literal: its kind and digits.
ESCAPE = re.compile(rb"\\(?:x([0-9a-fA-F]{2})|u\{([0-9a-fA-F]+)\}|u([0-9a-fA-F]{4})"
                    rb"|([0-3][0-7]{0,2}|[4-7][0-7]?)|(\r\n|[\x00-\x7f]|[\xc0-\xff][\x80-\xbf]*))")
CONTINUATIONS = (b"\n", b"\r", b"\r\n", "\u2028".encode(), "\u2029".encode())
SIMPLE = {b"n": "\n", b"r": "\r", b"t": "\t", b"b": "\b", b"f": "\f", b"v": "\v"}


def _fragments(code: bytes) -> list[tuple[int, int, bool]]:
    """Byte spans of every literal's own text, and whether it is a template's."""
    out: list[tuple[int, int, bool]] = []
    stack = [parsing.parse(code, "javascript").root_node]
    while stack:
        node = stack.pop()
        if node.type == "string":
            out.append((node.start_byte + 1, node.end_byte - 1, False))
        elif node.type == "template_string":
            start = node.start_byte + 1
            for child in node.children:
                if child.type == "template_substitution":
                    out.append((start, child.start_byte, True))
                    start = child.end_byte
            out.append((start, node.end_byte - 1, True))
        stack.extend(node.children)
    return [(a, b, t) for a, b, t in out if a < b]


def _escape_value(m: re.Match[bytes]) -> int | None:
    """The code point an escape makes (None: a line continuation or another character)."""
    hex2, braced, hex4, octal, other = m.groups()
    digits = hex2 or braced or hex4
    if digits is not None:
        return int(digits, 16)
    if octal is not None:
        return int(octal, 8)
    return ord(SIMPLE[other]) if other in SIMPLE else None


def _neutral(m: re.Match[bytes]) -> bytes:
    """An escape that makes a line break as one of the same length making a tab."""
    if _escape_value(m) not in BREAKS:
        return m.group(0)
    hex2, braced, hex4, octal, _other = m.groups()
    if hex2 is not None:
        return b"\\x09"
    if hex4 is not None:
        return b"\\u0009"
    if braced is not None:
        return b"\\u{" + b"0" * (len(braced) - 1) + b"9}"
    if octal is not None:
        return b"\\" + b"0" * (len(octal) - 2) + b"11"
    return b"\\t"


def _inert_fragment(text: bytes, template: bool) -> bytes:
    out: list[bytes] = []
    at = 0
    for m in ESCAPE.finditer(text):
        raw = text[at:m.start()]
        out.append(raw.replace(b"\r", b" ").replace(b"\n", b" ") if template else raw)
        out.append(_neutral(m))
        at = m.end()
    raw = text[at:]
    out.append(raw.replace(b"\r", b" ").replace(b"\n", b" ") if template else raw)
    return b"".join(out)


def inert(code: str) -> str:
    """``code`` with no literal making a line break (same length, same bytecodes)."""
    data = code.encode("utf-8", "surrogatepass")
    spans = _fragments(data)
    for start, end, template in sorted(spans, reverse=True):
        data = data[:start] + _inert_fragment(data[start:end], template) + data[end:]
    return data.decode("utf-8", "surrogatepass")


def _first_line(text: bytes, template: bool) -> str | None:
    """A literal's text up to its first line break (None: it makes none)."""
    out: list[bytes] = []
    at = 0
    for m in [*ESCAPE.finditer(text), None]:
        raw = text[at:m.start() if m is not None else len(text)]
        cut = re.search(rb"[\r\n]", raw) if template else None
        if cut is not None:
            return _text([*out, raw[:cut.start()]])
        out.append(raw)
        if m is None:
            return None
        value = _escape_value(m)
        if value in BREAKS:
            return _text(out)
        if value is not None:
            out.append(chr(min(value, 0xFFFD)).encode("utf-8", "surrogatepass"))
        elif m.group(5) not in CONTINUATIONS:
            out.append(m.group(5))
        at = m.end()
    return None


def _text(parts: list[bytes]) -> str:
    return b"".join(parts).decode("utf-8", "replace")


def first_lines(code: str) -> set[str]:
    """Each literal's text before its first line break, for literals that make one."""
    data = code.encode("utf-8", "surrogatepass")
    found = (_first_line(data[a:b], t) for a, b, t in _fragments(data))
    return {line for line in found if line is not None}


__all__ = ["first_lines", "inert"]
