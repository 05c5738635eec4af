"""safe_text: candidate text escaped and bounded before it is shown anywhere."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from codequorum.core.safe_text import safe_text


def test_escape_sequences_are_written_out() -> None:
    assert safe_text("\x1b[31mred\x1b[0m") == "\\x1b[31mred\\x1b[0m"
    assert safe_text("a\x07b\x9bc") == "a\\x07b\\x9bc"


def test_newlines_kept_only_when_asked() -> None:
    assert safe_text("a\nb") == "a\\nb"
    assert safe_text("a\nb\r", keep_newlines=True) == "a\nb\\r"


def test_bidi_and_zero_width_are_escaped() -> None:
    assert safe_text("x\u202ey\u200bz") == "x\\u202ey\\u200bz"


def test_limit_counts_the_result() -> None:
    out = safe_text("x" * 1000, limit=50)
    assert len(out) == 50
    assert out.endswith("(1000 chars)")
    assert safe_text("short", limit=50) == "short"


def test_non_strings_are_converted() -> None:
    assert safe_text(12) == "12"


@given(st.text(), st.integers(min_value=20, max_value=300))
def test_never_contains_controls_and_respects_limit(text: str, limit: int) -> None:
    out = safe_text(text, limit=limit)
    assert len(out) <= limit
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in out)
