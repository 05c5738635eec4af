"""Argument types shared by the subcommands: text to a checked value, or why not."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable


def at_least(minimum: int) -> Callable[[str], int]:
    """An argparse type: a whole number of at least ``minimum``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected at least {minimum}, got {value}")
        return value

    return parse


positive = at_least(1)
"""A whole number of at least 1."""


def seconds(text: str) -> float:
    """A positive number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def auto_or(minimum: int) -> Callable[[str], int | None]:
    """An argparse type: ``auto`` (None) or a whole number of at least ``minimum``."""
    number = at_least(minimum)

    def parse(text: str) -> int | None:
        return None if text.strip().lower() == "auto" else number(text)

    return parse


def log_base(text: str) -> float:
    """``2`` or ``e`` (natural log, as the published reference code)."""
    if text.strip().lower() in ("e", "ln", "natural"):
        return math.e
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected 2 or e, got {text!r}") from None
    if value != 2.0:
        raise argparse.ArgumentTypeError(f"expected 2 or e, got {text!r}")
    return value
