"""Token-level agreement between versions of a piece of code: token LCS and LED.

Definitions (the non-determinism study of code generation)::

    tokens(c)     = c.split()                        (whitespace-separated words)
    LCS(a -> b)   = |longest matching block of tokens(a), tokens(b)| / |tokens(a)|
                    (difflib.SequenceMatcher(None, tokens(a), tokens(b)), autojunk on;
                    0 when a has no token)
    LED(a, b)     = Levenshtein distance between the two token lists
                    (unit insert, delete, substitute; symmetric)

LCS lies in [0, 1] and is not symmetric: it is relative to the first text, and autojunk
(which ignores tokens making up over 1% of a second text of 200 tokens or more) looks at the
second only. LED is an integer in [0, max(|tokens(a)|, |tokens(b)|)].

Cost: LCS is difflib's (pure Python, about linear for code); LED is rapidfuzz's
bit-parallel Levenshtein, O(|a| * |b| / 64) machine words, so two 1 MB texts (150,000
tokens each) take a few seconds.

Over a sample set, candidate 0 is compared to every other one (mean and worst) and every
unordered pair ``i < j`` (``i`` first) is averaged.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

import numpy as np
import numpy.typing as npt
from rapidfuzz.distance import Levenshtein

__all__ = ["TextualSummary", "textual_summary", "token_lcs", "token_led", "tokens"]


def tokens(code: str) -> list[str]:
    """The tokens of ``code``: ``code.split()``."""
    return code.split()


def _lcs_tokens(a: list[str], matcher: SequenceMatcher[str], b_len: int) -> float:
    """LCS of ``a`` against the matcher's second sequence (already set, ``b_len`` long)."""
    if not a:
        return 0.0
    matcher.set_seq1(a)
    return matcher.find_longest_match(0, len(a), 0, b_len).size / len(a)


def token_lcs(a: str, b: str) -> float:
    """Token LCS from ``a`` to ``b``: longest matching block / number of tokens of ``a``.

    Returns a value in [0, 1]; 0 when ``a`` has no token.
    """
    tb = tokens(b)
    return _lcs_tokens(tokens(a), SequenceMatcher(None, [], tb), len(tb))


def _as_ids(token_lists: Sequence[list[str]]) -> list[list[int]]:
    vocab: dict[str, int] = {}
    return [[vocab.setdefault(t, len(vocab)) for t in ts] for ts in token_lists]


def token_led(a: str, b: str) -> int:
    """Levenshtein distance between the token lists of ``a`` and ``b`` (unit costs)."""
    ia, ib = _as_ids([tokens(a), tokens(b)])
    return int(Levenshtein.distance(ia, ib))


def _mean(values: npt.NDArray[Any]) -> float:
    return float(values.mean()) if values.size else math.nan


def _json_float(value: float) -> float | None:
    return None if math.isnan(value) else value


@dataclass(frozen=True)
class TextualSummary:
    """Token LCS / LED over a sample set.

    ``lcs[i, j]`` = LCS(i -> j) (diagonal 1.0, or 0.0 for a version without tokens);
    ``led[i, j]`` = LED(i, j) (symmetric, diagonal 0). ``lcs_mean`` / ``led_mean`` average
    candidate 0 against each other one; ``lcs_worst`` is the smallest of those LCS values,
    ``led_worst`` the largest LED. ``*_pair_mean`` average all unordered pairs ``i < j``
    (``i`` first for LCS). With fewer than two versions the summaries are NaN.
    """

    n: int
    lcs: npt.NDArray[np.float64]
    led: npt.NDArray[np.int64]
    lcs_mean: float
    lcs_worst: float
    led_mean: float
    led_worst: float
    lcs_pair_mean: float
    led_pair_mean: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (NaN becomes ``None``)."""
        return {
            "n": self.n,
            "lcs_mean": _json_float(self.lcs_mean),
            "lcs_worst": _json_float(self.lcs_worst),
            "led_mean": _json_float(self.led_mean),
            "led_worst": _json_float(self.led_worst),
            "lcs_pair_mean": _json_float(self.lcs_pair_mean),
            "led_pair_mean": _json_float(self.led_pair_mean),
            "lcs": self.lcs.tolist(),
            "led": self.led.tolist(),
        }


def textual_summary(codes: Sequence[str]) -> TextualSummary:
    """Token LCS and LED matrices of ``codes`` and their summaries (see ``TextualSummary``).

    Each text is split once; each second sequence's index is built once per column.
    """
    token_lists = [tokens(c) for c in codes]
    n = len(token_lists)
    lcs = np.zeros((n, n), dtype=np.float64)
    led = np.zeros((n, n), dtype=np.int64)
    ids = _as_ids(token_lists)
    for j in range(n):
        matcher: SequenceMatcher[str] = SequenceMatcher(None, [], token_lists[j])
        for i in range(n):
            if i == j:
                lcs[i, i] = 1.0 if token_lists[i] else 0.0
            else:
                lcs[i, j] = _lcs_tokens(token_lists[i], matcher, len(token_lists[j]))
        for i in range(j):
            led[i, j] = led[j, i] = Levenshtein.distance(ids[i], ids[j])
    if n < 2:
        nan = math.nan
        return TextualSummary(n, lcs, led, nan, nan, nan, nan, nan, nan)
    first_lcs = lcs[0, 1:]
    first_led = led[0, 1:]
    iu = np.triu_indices(n, 1)
    return TextualSummary(
        n=n,
        lcs=lcs,
        led=led,
        lcs_mean=_mean(first_lcs),
        lcs_worst=float(first_lcs.min()),
        led_mean=_mean(first_led),
        led_worst=float(first_led.max()),
        lcs_pair_mean=_mean(lcs[iu]),
        led_pair_mean=_mean(led[iu]),
    )
