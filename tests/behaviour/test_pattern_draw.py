"""The child's drawing of strings matching a pattern."""

from __future__ import annotations

import re

from codequorum.behaviour.pattern_draw import draw


def test_strings_drawn_match_the_pattern_whole_and_come_from_the_seed() -> None:
    got = draw(r"[a-f]{2}\d", re.I, 5)
    assert len(got) == 5 and all(re.fullmatch(r"[a-f]{2}\d", s, re.I) for s in got)
    assert draw(r"[a-f]{2}\d", re.I, 5) == got


def test_a_pattern_that_cannot_be_drawn_gives_none() -> None:
    assert draw("(", 0, 3) == []
    assert draw("[α-ω]", 0, 3) == []  # no printable ASCII string matches
