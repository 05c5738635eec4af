"""How the model is asked for the inputs of one language's functions (its words, its code
fence, the literal it answers with): one value per runtime entry (``behaviour/runtimes/``),
read by the prompt of :mod:`codequorum.generate.proposed_inputs`."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class InputLanguage:
    """How the model is asked for the inputs of one language's functions: the language's
    name in words, its code fence, the literal the answer is (``literal``, in notes too)
    and how its calls are written in it (``calls``). Each runtime entry holds its own
    (``behaviour/runtimes/``)."""

    name: str
    fence: str
    literal: str
    calls: str


#: Python's (the fallback of a proposer called without a runtime's).
PYTHON_INPUTS = InputLanguage(
    "Python", "python", "Python list literal",
    "a Python list of tuples, one tuple of positional arguments per call, using literals "
    "only (numbers, strings, lists, tuples, dicts, sets, True, False, None)")


def json_inputs(name: str, fence: str) -> InputLanguage:
    """Inputs of a language whose values the model writes as JSON (JavaScript)."""
    return InputLanguage(
        name, fence, "JSON array",
        "a JSON array of arrays, one array of positional arguments per call, using JSON "
        "values only (numbers, strings, arrays, objects, true, false, null)")


__all__ = ["PYTHON_INPUTS", "InputLanguage", "json_inputs"]
