"""Words for messages: counted nouns (``1 version``, ``2 versions``), lists of names, and
what kind a JSON value is."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def json_kind(value: Any) -> str:
    """What a decoded JSON value is, in a message's words (``a string``, ``null``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    return {str: "a string", int: "a number", float: "a number", list: "a list",
            dict: "an object"}.get(type(value), type(value).__name__)


def plural(n: int, noun: str, plural_form: str | None = None) -> str:
    """``noun`` when ``n`` is 1, else its plural (``noun + "s"`` unless given)."""
    return noun if n == 1 else (plural_form or f"{noun}s")


def count(n: int, noun: str, plural_form: str | None = None) -> str:
    """``n`` and the noun agreeing with it, thousands grouped: ``1 file``, ``2,000 files``."""
    return f"{n:,} {plural(n, noun, plural_form)}"


def names_listed(names: Sequence[str], limit: int = 12) -> str:
    """``a, b, c``: the first ``limit`` names, and ``and 3 more`` when there are more, so a
    shortened list never reads as the whole."""
    shown = ", ".join(names[:limit])
    more = len(names) - limit
    return f"{shown} and {more} more" if more > 0 else shown


def versions_compared(n: int, current_apart: bool) -> str:
    """How many versions were compared, in the words every front end uses: ``5 versions``,
    or ``4 versions + your code`` when the code in the editor is compared beside the
    versions (``current_apart``: it is one of the ``n`` and not one of the versions)."""
    versions = n - 1 if current_apart else n
    text = f"{versions} version{'s' if versions != 1 else ''}"
    return f"{text} + your code" if current_apart else text


def versions_named(indices: Sequence[int], current: int | None = None, limit: int = 6) -> str:
    """'version 4', 'versions 2, 5 and 9', 'versions 1, 2, 3, 4, 5, 6 and 4 more'.

    Versions are numbered from 1 by their place in the set, as the editor labels them
    (``v4``); index ``current`` is called "the current code" and named first.
    """
    others = [i for i in indices if i != current]
    lead = "the current code" if current is not None and current in indices else ""
    names = [str(i + 1) for i in others]
    if not names:
        return lead
    if len(names) == 1:
        text = f"version {names[0]}"
    elif len(names) > limit:
        text = f"versions {', '.join(names[:limit])} and {len(names) - limit} more"
    else:
        text = f"versions {', '.join(names[:-1])} and {names[-1]}"
    return f"{lead} and {text}" if lead else text
