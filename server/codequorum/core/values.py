"""How a returned value prints alike: the comparison key of a Python value's repr.

Versions agree on an input when their returned values are equal, and the sandbox hands
back each value's repr; :func:`canonical_output` turns equal values (``2`` and
``2.0``, ``{1, 3}`` and ``{3, 1}``) into one key. It is CPython's canonical form
(the runtime registry's ``canonical``), pure, and used by the behaviour runs and the judge.
"""

from __future__ import annotations

import math
import re
from typing import Any

from codequorum.core import pyast


def _canonical(value: Any) -> str:
    """Text of a plain value in which values Python calls equal read the same.

    Numbers compare by value as ``==`` does (and as the graders do): ``2``, ``2.0`` and
    ``True`` are all ``2``-like, written ``1`` for ``True`` and ``2`` for ``2.0``; ``-0.0``
    is ``0``. Dicts and sets are written in a fixed order; lists and tuples keep their
    brackets (``[1] != (1,)``).
    """
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isfinite(value) and value == int(value):
            return str(int(value))
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_canonical(v) for v in value) + "]"
    if isinstance(value, tuple):
        inner = ", ".join(_canonical(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, dict):
        items = sorted((_canonical(k), _canonical(v)) for k, v in value.items())
        return "{" + ", ".join(f"{k}: {v}" for k, v in items) + "}"
    if isinstance(value, set | frozenset):
        return "set{" + ", ".join(sorted(_canonical(v) for v in value)) + "}"
    if isinstance(value, complex):
        return _canonical(value.real) if value.imag == 0 else repr(value)
    return repr(value)


#: Where a repr names an object's address (``<function add at 0x7f…>``,
#: ``<coroutine object f at 0x…>``): it differs from process to process, never a result.
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def shown_output(output: str) -> str:
    """A value as a message shows it: a docstring example's printed text without the line
    end printing adds (as the docstring writes it); a repr as it is. An example that shows
    nothing (an expression whose value is None, which doctest does not print, or a
    statement that printed nothing) reads ``nothing``, never as an empty gap."""
    if not output:
        return "nothing"
    return output[:-1] if output.endswith("\n") else output


def canonical_output(output: str | None) -> str | None:
    """Comparison key of a returned value's repr: equal values give equal keys.

    The repr is read back as a literal (``ast.literal_eval``, data only) and written by
    :func:`_canonical`; a repr that is not a literal (an object, ``nan``, a truncated
    value) is its own key, without the addresses it names (two versions returning a
    function ``add`` return the same thing).
    """
    if output is None:
        return None
    try:
        return _canonical(pyast.literal_eval(output))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _ADDRESS.sub("", output)
