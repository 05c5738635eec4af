"""``new Date(...)`` of literals read without running: the date Node itself makes of the
same arguments in UTC, as the sandbox runs versions."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from codequorum.behaviour.runtimes.js_dates import DRAWN, NotADate, date_value
from codequorum.behaviour.runtimes.js_literals import NotLiteral, literal, parse_expression

#: Argument lists real examples write: components (months and days past their range
#: carry over, a two-digit year is 19xx, fractions are cut), a time, the epoch's edges, a
#: comment naming the month (as date-fns's tests write it).
ARGUMENTS = ["2012, 8, 1", "2012, 8, 1, 10, 30", "99, 0, 1", "2012, 12, 31", "2012, -1, 1",
             "2021, 1, 29", "2012.7, 8.9, 1.2", "0", "1700000000000", "-1", "1e20",
             "275760, 8, 13", "275760, 8, 14", "-271821, 3, 20", "1, 0, 1, 0, 0, 0, 999",
             "2024, 0, 1, 25, 61, 61, 1001", "NaN", "2020, NaN", "Infinity, 1",
             "2012, 6 /* Jul */, 2"]


def _node_iso(args: str) -> str:
    script = f"const d = new Date({args}); console.log(isNaN(d) ? 'Invalid Date' : d.toISOString())"
    node = shutil.which("node")
    assert node is not None
    return subprocess.run([node, "-e", script], capture_output=True, text=True, check=True,
                          env={**os.environ, "TZ": "UTC"}).stdout.strip()


@pytest.mark.skipif(shutil.which("node") is None, reason="no node on this machine")
@pytest.mark.parametrize("args", ARGUMENTS)
def test_a_date_of_literal_arguments_is_the_date_node_makes(args: str) -> None:
    node = parse_expression(f"new Date({args})")
    assert node is not None
    assert literal(node) == {"$": "date", "v": _node_iso(args)}


def test_a_date_string_is_kept_for_node_and_the_clock_is_no_literal() -> None:
    assert date_value(["2024-01-15"]) == {"$": "date", "v": "2024-01-15"}
    with pytest.raises(NotADate):
        date_value([])
    with pytest.raises(NotADate):
        date_value([2020, True])
    for text in ("new Date()", "new Date(x)", "new Date(Date.now())"):
        node = parse_expression(text)
        assert node is not None
        with pytest.raises(NotLiteral):
            literal(node)


def test_drawn_dates_are_valid_iso_times_node_reads_back() -> None:
    assert len({json.dumps(d) for d in DRAWN}) == len(DRAWN)
    for d in DRAWN:
        assert date_value([d]) == d
