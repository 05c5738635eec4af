"""Strings made of the separators versions split a text on (pure; nothing runs).

A version that parses ``"a=1&b=2"`` with ``split("&")`` and ``split("=")`` is told apart from
one using ``URLSearchParams`` or a regular expression only on texts holding those
separators, in the shapes that break parsers: a key given twice, an empty value, a
separator at an end, one doubled. Drawn strings (``"hello"``, ``"x y"``) seldom hold them.
The separators are the string literals the versions split a text on or look for the place
of (Python's ``split``, ``rsplit``, ``partition``, ``rpartition``, ``find``, ``index``;
JavaScript's ``split``, ``indexOf``, ``lastIndexOf``), in the order first met: the first is
taken as the outer one (``&``), the second as the inner (``=``).
"""

from __future__ import annotations

from collections.abc import Sequence

#: Separators used, at most, and the longest one taken.
MAX_SEPARATORS = 2
MAX_SEPARATOR_CHARS = 4


def usable(separators: Sequence[str]) -> list[str]:
    """The separators strings are made of: non-empty, short, printable or a line break or
    tab (``"\n"``: a text read line by line), each once, in order, at most
    :data:`MAX_SEPARATORS`."""
    out: list[str] = []
    for sep in separators:
        shown = sep.replace("\n", "").replace("\r", "").replace("\t", "")
        if 0 < len(sep) <= MAX_SEPARATOR_CHARS and shown.isprintable() and sep not in out:
            out.append(sep)
    return out[:MAX_SEPARATORS]


def separated_strings(separators: Sequence[str]) -> list[str]:
    """Texts made of ``separators`` (see the module docstring): for one separator ``,``:
    ``"a,b,c"``, ``"a,,b"``, ``",a"``, ``"a,"``; for an outer ``&`` and an inner ``=``:
    ``"a=1&b=2"``, ``"a=1&a=2"``, ``"a=&b"``, ``"a=1=2&b=3"``, ``"&a=1&"``. Empty when no
    separator is usable."""
    seps = usable(separators)
    if not seps:
        return []
    if len(seps) == 1:
        s = seps[0]
        return [f"a{s}b{s}c", f"a{s}b{s}a", f"a{s}{s}b", f"{s}a", f"a{s}"]
    out, inner = seps
    return [f"a{inner}1{out}b{inner}2", f"a{inner}1{out}a{inner}2", f"a{inner}{out}b",
            f"a{inner}1{inner}2{out}b{inner}3", f"{out}a{inner}1{out}"]


__all__ = ["MAX_SEPARATORS", "MAX_SEPARATOR_CHARS", "separated_strings", "usable"]
