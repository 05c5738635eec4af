"""Grading in the parent: a test's outcome against its expected value.

The candidate's process never sees expected values: it returns what the call gave as
plain data (``protocol.encode_plain``) or the text it printed, and these pure functions
decide ``passed`` here. Values that were not plain data arrive as
:class:`protocol.Opaque` and equal nothing, so an object whose ``__eq__`` always answers
True cannot pass.
"""

from __future__ import annotations

from typing import Any

from codequorum.behaviour.sandbox import protocol
from codequorum.core.model import TestCase


def values_equal(got: Any, expected: Any) -> bool:
    """``got == expected`` as Python compares them, on plain data only.

    ``2 == 2.0`` and ``True == 1`` are equal, as in the reference harnesses' ``==``; NaN
    equals nothing; containers compare element by element; an Opaque value never equals.
    """
    if isinstance(got, protocol.Opaque) or isinstance(expected, protocol.Opaque):
        return False
    try:
        return bool(got == expected)
    except (TypeError, ValueError, RecursionError):
        return False


def stdio_equal(printed: str, expected: Any) -> bool:
    """The reference pipelines' rule for programs: outputs equal after ``strip()``."""
    return printed.strip() == str(expected).strip()


def grade(test: TestCase, value: Any, printed: str | None, raised: bool) -> bool | None:
    """``passed`` for one outcome: None when there is nothing to pass.

    ``value`` is the decoded return value (``call``), ``printed`` the program's output
    (``stdio``); a test that raised never passes. ``check`` tests pass when they did not
    raise (their verdict is the harness's asserts).
    """
    if test.kind == "check":
        return not raised
    if not test.has_expected:
        return None
    if raised:
        return False
    if test.kind == "stdio":
        return printed is not None and stdio_equal(printed, test.expected)
    return values_equal(value, test.expected)

