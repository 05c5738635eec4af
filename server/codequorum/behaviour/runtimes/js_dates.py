"""Dates as inputs: ``new Date(...)`` of literals read without running anything, and the
dates a ``Date`` parameter draws, each as the canonical tree ``{"$": "date", "v": ISO}``
the harness decodes with ``new Date(v)``.

Versions run in UTC (the sandbox has no ``/etc/localtime``), so ``new Date(2012, 8, 1)``
is 2012-09-01 at midnight UTC, computed here as the specification's ``MakeDay`` and
``MakeTime`` compute it (months and days past their range carry over; a year 0 to 99 is
19xx). ``new Date()`` reads the clock and is no literal; a string is kept as written and
read by Node."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from codequorum.behaviour.sandbox.fixed_world import NOW

#: The farthest a Date reaches from the epoch, in milliseconds (``TimeClip``).
MAX_TIME = 8.64e15
MS_PER_DAY = 86_400_000
INVALID: dict[str, str] = {"$": "date", "v": "Invalid Date"}

class NotADate(ValueError):
    """Arguments of ``new Date`` that are not literals giving one fixed date."""


def days_from_civil(year: int, month: int, day: int) -> int:
    """Days from 1970-01-01 to a proleptic Gregorian date (month 1 to 12)."""
    y = year - (month <= 2)
    era = y // 400  # floor division: no correction for years before 0
    yoe = y - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def civil_from_days(days: int) -> tuple[int, int, int]:
    """The (year, month 1-12, day) of a count of days from 1970-01-01."""
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + (3 if mp < 10 else -9)
    return yoe + era * 400 + (month <= 2), month, day


def iso(time: float) -> dict[str, str]:
    """The canonical tree of the Date at ``time`` ms from the epoch (``toISOString``)."""
    if not math.isfinite(time) or abs(time) > MAX_TIME:
        return INVALID
    t = int(time)
    days, ms = divmod(t, MS_PER_DAY)
    year, month, day = civil_from_days(days)
    text = f"{year:04d}" if 0 <= year <= 9999 else f"{'-' if year < 0 else '+'}{abs(year):06d}"
    h, rest = divmod(ms, 3_600_000)
    m, rest = divmod(rest, 60_000)
    s, milli = divmod(rest, 1000)
    return {"$": "date", "v": f"{text}-{month:02d}-{day:02d}T{h:02d}:{m:02d}:{s:02d}.{milli:03d}Z"}


#: What a ``Date`` parameter draws, in turn: a leap day, the sandbox's "now" (``values.js``'s
#: ``NOW``, ``fixed_world.NOW``) and a day after and before it (code that compares a date
#: with today differs only there), a time of day, a century that is no leap year, one that
#: is, the epoch, the last millisecond of a year.
DRAWN: list[dict[str, str]] = [
    {"$": "date", "v": "2024-02-29T00:00:00.000Z"},
    *(iso((NOW + days * 86_400) * 1000) for days in (0, 1, -1)),
    *({"$": "date", "v": v} for v in (
        "2023-03-15T12:30:00.000Z", "1900-03-01T00:00:00.000Z", "2000-01-01T00:00:00.000Z",
        "1970-01-01T00:00:00.000Z", "2021-12-31T23:59:59.999Z")),
]


def _number(value: Any) -> float:
    """A numeric argument's value (NaN and the infinities as their floats)."""
    if isinstance(value, bool):
        raise NotADate("a boolean")
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, dict) and value.get("$") == "number":
        return float(str(value.get("v")).replace("Infinity", "inf"))
    raise NotADate("not a number")


def date_value(args: Sequence[Any]) -> dict[str, str]:
    """The canonical tree of ``new Date(*args)`` for literal ``args`` (canonical trees);
    :class:`NotADate` for no arguments (the clock) or ones that are not a fixed date."""
    if not args:
        raise NotADate("new Date() reads the clock")
    if len(args) == 1:
        only = args[0]
        if isinstance(only, str):
            return {"$": "date", "v": only}
        if isinstance(only, dict) and only.get("$") == "date":
            return only
        value = _number(only)
        return iso(math.trunc(value)) if math.isfinite(value) else INVALID
    numbers = [_number(a) for a in args[:7]]
    if not all(math.isfinite(n) for n in numbers):
        return INVALID
    year, month, day, hours, minutes, seconds, ms = (
        [math.trunc(n) for n in numbers] + [0, 1, 0, 0, 0, 0, 0][len(numbers):])
    year += 1900 if 0 <= year <= 99 else 0
    if abs(year) > 400_000:
        return INVALID
    days = days_from_civil(year + month // 12, month % 12 + 1, 1) + day - 1
    return iso(days * MS_PER_DAY + hours * 3_600_000 + minutes * 60_000 + seconds * 1000 + ms)


__all__ = ["DRAWN", "INVALID", "NotADate", "date_value", "iso"]
