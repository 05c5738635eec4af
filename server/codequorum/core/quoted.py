"""The characters of a line of code or prose that stand outside its string literals.

The example readers (Python docstrings, JavaScript comments) pair brackets, find commas at
a value's own level and turn Python's tuples into arrays; a bracket or a comma inside a
string (``f(')')``, ``"a, b"``) is text to all of them. One pass, no recursion.
"""

from __future__ import annotations

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


__all__ = ["outside_quotes"]
