"""Grading in the parent: a test's outcome against its expected value.

The candidate's process never sees expected values: it returns what the call gave as
plain data (``protocol.encode_plain``) or the text it printed, and these pure functions
decide ``passed`` here. Values that were not plain data arrive as
:class:`protocol.Opaque` and equal nothing, so an object whose ``__eq__`` always answers
True cannot pass.
"""

from __future__ import annotations

import builtins
import doctest
import re
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


#: doctest's reading of an expected traceback: the exception's line(s) after its header.
_TRACEBACK = re.compile(r"^Traceback \((?:most recent call last|innermost last)\):.*?$"
                        r".*?^(?P<msg>\w+(?:\.\w+)*(?::.*)?)\Z", re.MULTILINE | re.DOTALL)


def example_passed(want: str, shown: str | None, flags: int,
                   raised: tuple[str, str] | None) -> bool:
    """Whether a docstring example showed what it wants, as doctest checks it: the text
    (with its option ``flags``), or for an expected traceback the exception's line
    (``raised``: its type's name and message; a dotted name in the example matches by
    its last part, as doctest's ``IGNORE_EXCEPTION_DETAIL`` does)."""
    checker = doctest.OutputChecker()
    m = _TRACEBACK.match(want.strip())
    if m is None:
        return raised is None and shown is not None and checker.check_output(
            want, shown, flags)
    if raised is None:
        return False
    wanted_type, _, wanted_msg = m.group("msg").partition(":")
    if wanted_type.rpartition(".")[2] != raised[0]:
        return False
    if flags & doctest.IGNORE_EXCEPTION_DETAIL:
        return True
    return checker.check_output(wanted_msg.strip() + "\n", raised[1].strip() + "\n", flags)


#: The exceptions a run's ending gives (a limit, a crash, a cancel, the harness's own): never
#: the raise a test expects of the function.
ENDINGS = frozenset({"Timeout", "MemoryError", "SystemExit", "OutputLimitExceeded", "Cancelled",
                     "Crash", "SandboxError", "KeyboardInterrupt", "Skipped", "InternalError"})


def _builtin_exception(name: str) -> type[BaseException] | None:
    found = getattr(builtins, name, None)
    return found if isinstance(found, type) and issubclass(found, BaseException) else None


def raised_as_expected(wanted: str, raised: str | None) -> bool:
    """Whether an exception named ``raised`` (the class name the run reports; None: none)
    is the one a test expects (``wanted``: a class name, dotted or not, ``""`` for any), as
    ``pytest.raises`` takes it: that class or a subclass. Only builtin classes are known
    here, so a class of the project's own matches by name, or ``Exception`` at large; a
    run's ending (:data:`ENDINGS`) matches nothing."""
    if raised is None or raised in ENDINGS:
        return False
    want = wanted.rpartition(".")[2]
    if not want or want == raised:
        return True
    w, r = _builtin_exception(want), _builtin_exception(raised)
    if w is None:
        return False
    if r is None:  # a class of the project's own: an Exception, as such classes are
        return w in (Exception, BaseException)
    return issubclass(r, w)


def grade(test: TestCase, value: Any, printed: str | None, raised: bool,
          exception: tuple[str, str] | None = None) -> bool | None:
    """``passed`` for one outcome: None when there is nothing to pass.

    ``value`` is the decoded return value (``call``), ``printed`` the program's output
    (``stdio``) or the example's (``example``, graded as doctest does:
    :func:`example_passed`, ``exception`` naming what it raised); a call expected to raise
    (``test.raises``) passes when it raised that (:func:`raised_as_expected`); any other
    test that raised never passes. ``check`` tests pass when they did not
    raise (their verdict is the harness's asserts).
    """
    if test.kind == "check":
        return not raised
    if test.raises is not None:
        return raised_as_expected(test.raises, exception[0] if raised and exception else None)
    if not test.has_expected:
        return None
    if test.kind == "example":
        return example_passed(str(test.expected), printed, test.flags,
                              (exception or ("", "")) if raised else None)
    if raised:
        return False
    if test.kind == "stdio":
        return printed is not None and stdio_equal(printed, test.expected)
    return values_equal(value, test.expected)

