"""Token LCS and LED: hand-checked cases, independent dynamic programmes, properties."""

from __future__ import annotations

import json
import math
from difflib import SequenceMatcher
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codequorum.metrics.textual import TextualSummary, textual_summary, token_lcs, token_led


def _levenshtein(a: list[str], b: list[str]) -> int:
    """Textbook Wagner-Fischer over token lists."""
    prev = list(range(len(b) + 1))
    for i, ta in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, tb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ta != tb))
        prev = cur
    return prev[-1]


def _longest_common_run(a: list[str], b: list[str]) -> int:
    """Longest common contiguous run of tokens (what difflib finds without junk)."""
    best = 0
    prev = [0] * (len(b) + 1)
    for ta in a:
        cur = [0] * (len(b) + 1)
        for j, tb in enumerate(b, 1):
            if ta == tb:
                cur[j] = prev[j - 1] + 1
                best = max(best, cur[j])
        prev = cur
    return best


def _reference_lcs(a: str, b: str) -> float:
    ta, tb = a.split(), b.split()
    if not ta:
        return 0.0
    blocks = SequenceMatcher(None, ta, tb).get_matching_blocks()
    return max(block.size for block in blocks) / len(ta)


A = "def f(x):\n    return x + 1\n"  # def f(x): return x + 1  -> 6 tokens
B = "def f(y):\n    return y + 1\n"  # differs in 2 tokens
C = "def g(x):\n    y = x + 1\n    return y\n"  # def g(x): y = x + 1 return y -> 9 tokens


def test_hand_checked_cases() -> None:
    # A = [def, f(x):, return, x, +, 1]; B = [def, f(y):, return, y, +, 1]
    assert token_lcs(A, B) == pytest.approx(2 / 6)  # "+ 1"
    assert token_led(A, B) == 2
    # C = [def, g(x):, y, =, x, +, 1, return, y]
    assert token_lcs(A, C) == pytest.approx(3 / 6)  # "x + 1"
    assert token_lcs(C, A) == pytest.approx(3 / 9)
    assert token_led(A, C) == 5
    assert token_lcs(A, A) == 1.0
    assert token_led(A, A) == 0


def test_empty_texts() -> None:
    assert token_lcs("", A) == 0.0
    assert token_lcs("   \n\t", A) == 0.0
    assert token_lcs(A, "") == 0.0
    assert token_led("", "") == 0
    assert token_led("", A) == 6
    assert token_led(A, "  ") == 6


def test_whitespace_does_not_matter() -> None:
    assert token_led("a  b\n\tc", "a b c") == 0
    assert token_lcs("a  b\n\tc", "a b c") == 1.0


def test_autojunk_is_on() -> None:
    # b has 200+ tokens and "x" makes up over 1% of them: difflib drops it as a match seed
    a = "x " * 5
    b = "z " + "x " * 299
    assert token_lcs(a, b) == 0.0
    without_autojunk = SequenceMatcher(None, a.split(), b.split(), autojunk=False)
    assert without_autojunk.find_longest_match(0, 5, 0, 300).size == 5
    assert token_lcs(a, b) == _reference_lcs(a, b)
    # the other way round, b is short: no junk
    assert token_lcs(b, a) == pytest.approx(5 / 300)


words = st.lists(st.sampled_from(["a", "b", "c", "def", "x", "(", ")", ":"]), max_size=25)
texts = words.map(" ".join)


@settings(max_examples=150, deadline=None)
@given(texts, texts)
def test_against_independent_programmes(a: str, b: str) -> None:
    ta, tb = a.split(), b.split()
    led = token_led(a, b)
    assert led == _levenshtein(ta, tb)
    assert led == token_led(b, a)
    assert led <= max(len(ta), len(tb))
    assert token_led(a, a) == 0
    expected = _longest_common_run(ta, tb) / len(ta) if ta else 0.0
    assert token_lcs(a, b) == pytest.approx(expected, abs=1e-15)
    assert 0.0 <= token_lcs(a, b) <= 1.0


@settings(max_examples=40, deadline=None)
@given(st.lists(texts, min_size=0, max_size=5))
def test_summary_matches_pairwise_functions(codes: list[str]) -> None:
    summary = textual_summary(codes)
    n = len(codes)
    assert summary.n == n
    assert summary.lcs.shape == (n, n) and summary.led.shape == (n, n)
    for i in range(n):
        for j in range(n):
            assert summary.led[i, j] == token_led(codes[i], codes[j])
            if i != j:
                assert summary.lcs[i, j] == token_lcs(codes[i], codes[j])
    if n < 2:
        assert math.isnan(summary.lcs_mean) and math.isnan(summary.led_pair_mean)
        return
    others = range(1, n)
    assert summary.lcs_mean == pytest.approx(
        np.mean([token_lcs(codes[0], codes[j]) for j in others])
    )
    assert summary.lcs_worst == min(token_lcs(codes[0], codes[j]) for j in others)
    assert summary.led_mean == pytest.approx(
        np.mean([token_led(codes[0], codes[j]) for j in others])
    )
    assert summary.led_worst == max(token_led(codes[0], codes[j]) for j in others)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    assert summary.lcs_pair_mean == pytest.approx(
        np.mean([token_lcs(codes[i], codes[j]) for i, j in pairs])
    )
    assert summary.led_pair_mean == pytest.approx(
        np.mean([token_led(codes[i], codes[j]) for i, j in pairs])
    )


def test_summary_hand_checked() -> None:
    summary = textual_summary([A, B, C])
    assert isinstance(summary, TextualSummary)
    np.testing.assert_array_equal(summary.led, [[0, 2, 5], [2, 0, 6], [5, 6, 0]])
    assert summary.lcs[0, 0] == 1.0
    assert summary.lcs_mean == pytest.approx((2 / 6 + 3 / 6) / 2)
    assert summary.lcs_worst == pytest.approx(2 / 6)
    assert summary.led_mean == pytest.approx(3.5)
    assert summary.led_worst == 5
    # pairs (0,1), (0,2), (1,2): LCS(B -> C) = "+ 1" = 2/6
    assert summary.lcs_pair_mean == pytest.approx((2 / 6 + 3 / 6 + 2 / 6) / 3)
    assert summary.led_pair_mean == pytest.approx(13 / 3)
    data = json.loads(json.dumps(summary.to_dict()))
    assert data["led"] == [[0, 2, 5], [2, 0, 6], [5, 6, 0]]
    assert data["led_worst"] == 5
    assert data["n"] == 3


def test_summary_of_one_sample_is_json_ready() -> None:
    summary = textual_summary([A])
    data = json.loads(json.dumps(summary.to_dict()))
    assert data["lcs_mean"] is None and data["led_pair_mean"] is None
    assert data["lcs"] == [[1.0]] and data["led"] == [[0]]
    assert textual_summary([""]).lcs[0, 0] == 0.0


def test_real_humaneval_samples(shared_dir: Path) -> None:
    path = shared_dir / "data" / "humaneval_codegen16b_t0.8.jsonl"
    with path.open() as fh:
        record = json.loads(fh.readline())
    codes = [record["prompt"] + s for s in record["samples"][:8]]
    summary = textual_summary(codes)
    for i in range(8):
        for j in range(8):
            if i != j:
                assert summary.lcs[i, j] == pytest.approx(_reference_lcs(codes[i], codes[j]))
            assert summary.led[i, j] == _levenshtein(codes[i].split(), codes[j].split())
