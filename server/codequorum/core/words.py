"""Counted nouns for messages: ``1 version``, ``2 versions``, ``0 functions``."""

from __future__ import annotations


def plural(n: int, noun: str, plural_form: str | None = None) -> str:
    """``noun`` when ``n`` is 1, else its plural (``noun + "s"`` unless given)."""
    return noun if n == 1 else (plural_form or f"{noun}s")


def count(n: int, noun: str, plural_form: str | None = None) -> str:
    """``n`` and the noun agreeing with it, thousands grouped: ``1 file``, ``2,000 files``."""
    return f"{n:,} {plural(n, noun, plural_form)}"
