"""Strings that match a pattern the versions test a parameter against, and strings that
just miss it: where versions with other patterns part (an e-mail check with and without
its top-level domain's length, ``^\\d+$`` against ``\\d+``).

A random string matches almost no pattern, so every version of a validator says ``False``
on every drawn input and they all agree. Drawing from the patterns themselves gives inputs
on both sides of each version's boundary. The patterns come from the versions (untrusted):
one that is long, repeats a repeat (``(a+)+``: matching could take exponential time) or
counts past :data:`MAX_COUNT` is not drawn from, and the drawing (Hypothesis checks each
string it draws against the pattern, and an ambiguous one, ``(?:a|aa|aaa){64}``, backtracks
for ever) runs in a child process killed past :data:`DRAW_SECONDS`
(:mod:`~codequorum.behaviour.pattern_draw`). Hypothesis draws the strings from
:data:`~codequorum.behaviour.seeded_draws.HYPOTHESIS_SEED` alone, printable ASCII only, so
a label reads plainly and the same inputs come on every run.
"""

from __future__ import annotations

import json
import logging
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from typing import Any

log = logging.getLogger(__name__)

#: A pattern longer than this is not drawn from.
MAX_PATTERN_CHARS = 300
#: A counted repeat (``{n,m}``) past this is not drawn from (its strings grow too long).
MAX_COUNT = 64
#: Nested bounded repeats whose counts multiply past this are not drawn from.
MAX_NESTED = 256
#: Strings drawn matching each pattern, and the near misses made of the first.
MATCHES_PER_PATTERN = 2
#: Inputs made of patterns, at most, for one parameter.
MAX_STRINGS = 8
#: The longest string kept.
MAX_STRING_CHARS = 80

try:  # Python 3.11+
    from re import _constants as _sre  # type: ignore[attr-defined]
    from re import _parser as _sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - older layouts
    import sre_constants as _sre  # type: ignore[no-redef]
    import sre_parse as _sre_parse  # type: ignore[no-redef]

_REPEATS = {_sre.MAX_REPEAT, _sre.MIN_REPEAT, _sre.POSSESSIVE_REPEAT} \
    if hasattr(_sre, "POSSESSIVE_REPEAT") else {_sre.MAX_REPEAT, _sre.MIN_REPEAT}


def safe_pattern(text: str, flags: int = 0) -> re.Pattern[str] | None:
    """``text`` compiled, or None when it is not drawn from: too long, not a pattern of
    Python's ``re``, a repeat inside a repeat, or a count past :data:`MAX_COUNT`."""
    if not text or len(text) > MAX_PATTERN_CHARS:
        return None
    try:
        compiled = re.compile(text, flags)
        parsed = _sre_parse.parse(text, flags)
    except (re.error, ValueError, OverflowError, RecursionError):
        return None
    return compiled if _tame(parsed) else None


def _tame(parsed: Any) -> bool:
    """No count passes :data:`MAX_COUNT`, no repeat without bound holds or sits in another
    repeat (``(a+)+``, ``(\\d{1,3})*``), and nested bounded repeats multiply to at most
    :data:`MAX_NESTED` (``(?:\\d{1,3}\\.){3}`` is 9). Iterative: a deep pattern recurses
    nothing."""
    stack: list[tuple[Any, float]] = [(parsed, 1.0)]
    while stack:
        items, around = stack.pop()
        for op, av in items:
            if op not in _REPEATS:
                stack.extend((sub, around) for sub in _children(op, av))
                continue
            low, high, sub = av
            bound = float("inf") if high is _sre.MAXREPEAT else float(high)
            if low > MAX_COUNT or MAX_COUNT < bound < float("inf"):
                return False
            if bound > 1 and around > 1 and float("inf") in (bound, around):
                return False
            within = around * max(bound, 1.0)
            if within != float("inf") and within > MAX_NESTED:
                return False
            stack.append((sub, within))
    return True


def _children(op: Any, av: Any) -> Iterable[Any]:
    """The sub-patterns of one parsed item (a group's, each branch of an alternation, an
    assertion's, a conditional's)."""
    if op == _sre.SUBPATTERN:
        yield av[-1]
    elif op == _sre.BRANCH:
        yield from av[1]
    elif op in (_sre.ASSERT, _sre.ASSERT_NOT):
        yield av[1]
    elif op == _sre.GROUPREF_EXISTS:
        yield from (b for b in av[1:] if b is not None)


def near_misses(s: str) -> list[str]:
    """Strings just past a match's boundary: its last character gone, a space after it."""
    return [m for m in (s[:-1], s + " ") if m != s]


def pattern_strings(patterns: Sequence[re.Pattern[str]], limit: int = MAX_STRINGS) -> list[str]:
    """For each pattern in turn: :data:`MATCHES_PER_PATTERN` distinct strings matching it
    whole (:func:`chosen_matches` of those drawn), then the :func:`near_misses` of the
    first; distinct, at most ``limit``. A pattern Hypothesis cannot draw from (printable
    ASCII cannot match it) gives none, and so does every pattern when drawing them takes
    longer than :data:`DRAW_SECONDS`."""
    out: list[str] = []
    for drawn in _drawn(patterns):
        matches = chosen_matches(drawn, MATCHES_PER_PATTERN)
        for s in [*matches, *(near_misses(matches[0]) if matches else [])]:
            if s not in out:
                out.append(s)
    return out[:limit]


#: Strings drawn of a pattern to choose its matches from.
DRAWN_PER_PATTERN = 8
#: How long drawing every pattern of a set may take, in seconds.
DRAW_SECONDS = 15.0
_CHILD = [sys.executable, "-I", "-B", "-m", "codequorum.behaviour.pattern_draw"]


def _drawn(patterns: Sequence[re.Pattern[str]]) -> list[list[str]]:
    """The strings drawn of each pattern, in a child process
    (:mod:`~codequorum.behaviour.pattern_draw`) killed past :data:`DRAW_SECONDS`."""
    if not patterns:
        return []
    asked = json.dumps({"patterns": [[p.pattern, int(p.flags)] for p in patterns],
                        "count": DRAWN_PER_PATTERN})
    try:
        done = subprocess.run(_CHILD, input=asked, capture_output=True, text=True,
                              timeout=DRAW_SECONDS, cwd=tempfile.gettempdir(), check=True)
        got = json.loads(done.stdout)
    except subprocess.TimeoutExpired:
        log.warning("strings of %d patterns not drawn: past %.0f s (a pattern that backtracks)",
                    len(patterns), DRAW_SECONDS)
        return []
    except (OSError, subprocess.CalledProcessError, ValueError) as exc:
        log.warning("strings of %d patterns not drawn: %s", len(patterns), exc)
        return []
    if not isinstance(got, list) or len(got) != len(patterns):
        return []
    return [[s for s in row if isinstance(s, str)] if isinstance(row, list) else []
            for row in got]


def chosen_matches(drawn: Sequence[str], n: int) -> list[str]:
    """Up to ``n`` of the matches drawn: the shortest first, then those with the most kinds
    of character (lower and upper case, digits, punctuation, spaces) and distinct
    characters, where versions whose patterns allow fewer part (``[a-z_]+`` against
    ``[a-z_][a-z0-9_]*`` on ``bo0kj4z9rj``); none longer than :data:`MAX_STRING_CHARS`."""
    kept = list(dict.fromkeys(s for s in drawn if len(s) <= MAX_STRING_CHARS))
    if not kept:
        return []
    first = min(kept, key=lambda s: (len(s), s))
    rest = sorted((s for s in kept if s != first),
                  key=lambda s: (*(-k for k in _variety(s)), len(s), s))
    return [first, *rest][:n]


def _variety(s: str) -> tuple[int, int]:
    """How many kinds of character ``s`` holds, and how many distinct characters."""
    kinds = {"lower" if c.islower() else "upper" if c.isupper() else "digit" if c.isdigit()
             else "space" if c.isspace() else "other" for c in s}
    return len(kinds), len(set(s))


__all__ = ["MAX_STRINGS", "chosen_matches", "near_misses", "pattern_strings", "safe_pattern"]
