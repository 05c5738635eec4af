"""Strings drawn from the versions' patterns: matches, near misses, refused patterns."""

from __future__ import annotations

import re
import tempfile
import time
from pathlib import Path

import pytest

from codequorum.behaviour import pattern_strings as pattern_strings_module
from codequorum.behaviour.pattern_strings import (
    MAX_PATTERN_CHARS,
    chosen_matches,
    near_misses,
    pattern_strings,
    safe_pattern,
)


@pytest.mark.parametrize("text", [
    r"(a+)+$",             # a repeat of a repeat: exponential backtracking
    r"(\d{1,3})*x",        # a bounded repeat inside one without bound
    r"(?:x*y)+",
    r"a{1000}",            # a count past the limit
    r"(x{1,20}){20}",      # nested counts multiplying past the limit
    "(",                   # not a pattern
    "a" * (MAX_PATTERN_CHARS + 1),
    "",
])
def test_a_pattern_that_could_stall_or_grow_is_refused(text: str) -> None:
    assert safe_pattern(text) is None


def test_bounded_nesting_and_flags_are_kept() -> None:
    ipv4 = safe_pattern(r"^(?:\d{1,3}\.){3}\d{1,3}$")
    assert ipv4 is not None and ipv4.pattern.startswith("^(?:")
    folded = safe_pattern("^hello$", re.I)
    assert folded is not None and folded.flags & re.I


def test_matches_then_near_misses_of_the_first() -> None:
    pattern = safe_pattern(r"^\d{3}-\d{4}$")
    assert pattern is not None
    got = pattern_strings([pattern])
    # the shortest match, the one of most distinct characters, the first's near misses
    assert got == ["000-0000", "160-9753", "000-000", "000-0000 "]
    assert [bool(pattern.fullmatch(s)) for s in got] == [True, True, False, False]
    assert pattern_strings([pattern]) == got  # from the seed alone


def test_every_pattern_gives_its_strings_within_the_limit() -> None:
    email = safe_pattern(r"[^@ ]+@[^@ ]+")
    digits = safe_pattern(r"\d+")
    assert email is not None and digits is not None
    got = pattern_strings([email, digits], limit=6)
    assert len(got) == 6
    assert all(email.fullmatch(s) for s in got[:2]) and digits.fullmatch(got[4])
    assert all(32 <= ord(c) <= 126 for s in got for c in s)  # printable ASCII only


def test_a_pattern_nothing_printable_matches_gives_no_string() -> None:
    greek = safe_pattern("[α-ω]+")
    assert greek is not None
    assert pattern_strings([greek]) == []


def test_the_second_match_holds_what_a_narrower_pattern_refuses() -> None:
    snake = safe_pattern("[a-z_][a-z0-9_]*")
    assert snake is not None
    shortest, richest = pattern_strings([snake])[:2]
    assert shortest == "_"
    assert any(c.isdigit() for c in richest) and not re.fullmatch("[a-z_]+", richest)


def test_a_pattern_that_backtracks_for_ever_stalls_only_a_child_that_is_killed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # no repeat in a repeat, but three overlapping branches 64 times: Hypothesis' check of
    # each drawn string backtracks through 3^64 ways
    ambiguous = safe_pattern("(?:a|aa|aaa){64}")
    digits = safe_pattern(r"\d{3}")
    assert ambiguous is not None and digits is not None
    monkeypatch.setattr(pattern_strings_module, "DRAW_SECONDS", 3.0)
    started = time.monotonic()
    assert pattern_strings([digits, ambiguous]) == []
    assert time.monotonic() - started < 20
    assert pattern_strings([digits]) == ["000", "219", "00", "000 "]


def test_nothing_of_the_folder_the_child_runs_in_is_imported(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The child runs isolated: a workspace's ``hypothesis.py`` in its working folder (even
    where the child's own folder is that one) is never imported."""
    marker = tmp_path / "imported"
    (tmp_path / "hypothesis.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    digits = safe_pattern(r"\d{3}")
    assert digits is not None
    assert pattern_strings([digits])[0] == "000"
    assert not marker.exists()


def test_the_matches_kept_are_the_shortest_then_the_most_varied() -> None:
    drawn = ["abc", "a", "a1B", "x" * 200, "ab", "a"]
    assert chosen_matches(drawn, 2) == ["a", "a1B"]
    assert chosen_matches(["x" * 200], 2) == []


def test_near_misses_of_an_empty_match() -> None:
    assert near_misses("") == [" "]
    assert near_misses("ab") == ["a", "ab "]
