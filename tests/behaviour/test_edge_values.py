"""Edge values of a parameter type, tried before random draws."""

from __future__ import annotations

import math

from codequorum.behaviour.edge_values import edge_args, edge_values
from codequorum.behaviour.sandbox.protocol import Lambda


def test_strings_carry_markup_quotes_unicode_and_whitespace() -> None:
    values = edge_values(("str",))
    assert values[:2] == ["", "a"]
    assert any(c in v for v in values for c in "<>&") and any("'" in v for v in values)
    assert any('"' in v for v in values) and any(not v.isascii() for v in values)
    assert "   " in values


def test_numbers_carry_zero_negatives_huge_and_the_float_specials() -> None:
    floats = edge_values(("float",))
    assert math.inf in floats and -math.inf in floats and any(math.isnan(v) for v in floats)
    assert any(v == 0 and math.copysign(1, v) < 0 for v in floats)  # -0.0
    assert edge_values(("int",)) == [0, 1, -1, 2**64 + 1]


def test_containers_start_empty_then_one_element() -> None:
    assert edge_values(("list", ("int",)))[:3] == [[], [0], [0, 0]]
    assert edge_values(("set", ("float",)))[0] == set()
    assert edge_values(("dict", ("str",), ("int",)))[:2] == [{}, {"": 0}]
    assert edge_values(("union", ("int",), ("none",))) == [0, 1, -1, None]
    assert edge_values(("unknown",)) == []


def test_arguments_vary_one_parameter_at_a_time() -> None:
    args = edge_args([("str",), ("int",)], 6)
    # the others held at an ordinary value ("a", 1); each column one step deeper in turn
    assert args[:5] == [("", 1), ("a", 0), ("a", 1), ("<a href='x'>&amp;\"</a>", 1), ("a", -1)]
    assert len(args) == 6 and len(set(map(repr, args))) == 6
    assert edge_args([], 5) == [] and edge_args([("int",)], 0) == []


def test_datetimes_values_have_edges_of_their_own() -> None:
    import datetime as dt

    assert edge_values(("timedelta",))[:3] == [dt.timedelta(0), dt.timedelta(seconds=-1),
                                               dt.timedelta(seconds=1)]
    assert dt.date(2024, 2, 29) in edge_values(("date",))
    assert all(type(v) is dt.datetime for v in edge_values(("datetime",)))


def test_dates_include_the_sandboxs_today_and_the_days_either_side() -> None:
    """The sandbox's clock stands at 2025-01-01T12:00Z (``fixed_world.NOW``): code that
    compares a date with today parts only on today, tomorrow and yesterday, drawn first
    around the ordinary value the other parameters hold (a leap day), so that a union's
    first three values of each member reach tomorrow too."""
    import datetime as dt

    from codequorum.behaviour.sandbox.fixed_world import NOW

    now = dt.datetime(2025, 1, 1, 12)
    assert now == dt.datetime(1970, 1, 1) + dt.timedelta(seconds=NOW)
    day = dt.timedelta(days=1)
    assert edge_values(("date",))[:4] == [now.date(), dt.date(2024, 2, 29),
                                           (now + day).date(), (now - day).date()]
    assert edge_values(("datetime",))[:4] == [now, dt.datetime(2024, 2, 29, 23, 59, 59),
                                               now + day, now - day]
    union = edge_values(("union", ("date",), ("datetime",)))
    assert (now + day).date() in union and now + day in union


def test_a_function_parameter_is_given_a_function_made_for_what_it_returns_then_the_identity(
        ) -> None:
    assert edge_values(("callable", ("int",), 1)) == [Lambda("lambda x, *rest: x * 2 + 1"),
                                                      Lambda("lambda x, *rest: x")]
    assert edge_values(("callable", ("str",), 2))[0] == Lambda("lambda x, *rest: f'<{x}>'")
    # nothing said of what it returns, or a union: the identity, which takes anything
    assert edge_values(("callable", None, 1)) == [Lambda("lambda x, *rest: x")]
    assert edge_values(("callable", ("union", ("int",), ("none",)), 1)) == [
        Lambda("lambda x, *rest: x")]
    assert edge_values(("callable", ("bool",), 0)) == [Lambda("lambda: True")]
    # each made function gives other values on other arguments (a second call tells)
    for spec in [("int",), ("float",), ("str",), ("bool",)]:
        made = eval(edge_values(("callable", spec, 1))[0].source)
        assert made(1) != made(2) and made(1, "more") == made(1)
