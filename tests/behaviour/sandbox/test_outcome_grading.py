"""Grading in the parent: a call expected to raise."""

from __future__ import annotations

import pytest

from codequorum.behaviour.sandbox.outcome_grading import grade, raised_as_expected
from codequorum.core.model import TestCase


@pytest.mark.parametrize(("wanted", "raised", "passed"), [
    ("ValueError", "ValueError", True),
    ("ValueError", "UnicodeDecodeError", True),  # a subclass, as pytest.raises takes it
    ("errors.ValueError", "ValueError", True),  # a dotted name by its last part
    ("ValueError", "TypeError", False),
    ("LookupError", "KeyError", True),
    ("Exception", "ParseError", True),  # a class of the project's own is an Exception
    ("ParseError", "ParseError", True),
    ("ParseError", "ValueError", False),
    ("KeyError", "ParseError", False),
    ("", "ZeroDivisionError", True),
    ("", None, False),
    ("", "Timeout", False),  # the run's ending is not the function's raise
    ("Exception", "MemoryError", False),
    ("", "Cancelled", False),
])
def test_an_expected_raise_is_that_class_or_a_subclass(wanted: str, raised: str | None,
                                                       passed: bool) -> None:
    assert raised_as_expected(wanted, raised) is passed


def test_a_call_expected_to_raise_fails_when_it_returns() -> None:
    test = TestCase("call", args=(float("nan"),), has_expected=True, raises="ValueError")
    assert grade(test, "NaNms", None, False) is False
    assert grade(test, None, None, True, ("ValueError", "not finite")) is True
    assert grade(test, None, None, True, ("TypeError", "")) is False
    assert grade(TestCase("call", has_expected=True, expected=None), None, None, False) is True
