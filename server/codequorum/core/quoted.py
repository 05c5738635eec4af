"""The characters of a line of code or prose that stand outside its string literals.

The example readers (Python docstrings, JavaScript comments) pair brackets, find commas at
a value's own level and turn Python's tuples into arrays; a bracket or a comma inside a
string (``f(')')``, ``"a, b"``) is text to all of them. One pass, no recursion.
"""

from __future__ import annotations

import re
from collections.abc import Iterator


def outside_quotes(text: str, quotes: str = "'\"`", apostrophes: bool = False
                   ) -> Iterator[tuple[int, str]]:
    """(position, character) of each character of ``text`` outside a string literal
    opened by one of ``quotes`` (a backslash escapes its closing quote); the quotes
    themselves are left out. ``apostrophes``: a quote right after a letter or a digit is
    prose's apostrophe (``it's``), not a string's start. A string never closed runs to the
    end of the text."""
    quote = ""
    for i, ch in enumerate(text):
        if quote:
            if ch == quote and text[i - 1] != "\\":
                quote = ""
        elif ch in quotes and not (apostrophes and i and text[i - 1].isalnum()):
            quote = ch
        else:
            yield i, ch


def top_level_split(text: str, quotes: str = "'\"`") -> list[str]:
    """``text`` cut at the commas outside brackets and string literals, each piece
    stripped, empty ones left out."""
    parts, depth, start = [], 0, 0
    for i, ch in outside_quotes(text, quotes):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


#: A piece of a ``For`` line naming a value: ``lst = [1, 2]`` (not ``==``).
_NAMED_PIECE = re.compile(r"^[A-Za-z_$][\w$]*\s*=(?!=)")


def values_before_prose(text: str) -> str | None:
    """``N = 150, the sum of digits will be 6`` -> ``N = 150``: the ``name = value``
    pieces before the first piece of prose, or None when every piece names a value (or
    the first does not)."""
    pieces = top_level_split(text)
    named = [bool(_NAMED_PIECE.match(p)) for p in pieces]
    if not named or not named[0] or all(named):
        return None
    return ", ".join(pieces[:named.index(False)])


__all__ = ["outside_quotes", "top_level_split", "values_before_prose"]
