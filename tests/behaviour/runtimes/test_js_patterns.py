"""The patterns JavaScript and TypeScript versions test a parameter against."""

from __future__ import annotations

import re

import pytest

from codequorum.behaviour.runtimes.js_patterns import as_python, searched_patterns


def _texts(found: dict[int, list[re.Pattern[str]]]) -> dict[int, list[tuple[str, int]]]:
    return {k: [(p.pattern, p.flags & ~(re.UNICODE | re.ASCII)) for p in v]
            for k, v in found.items()}


def test_spellings_that_differ_are_rewritten() -> None:
    named = as_python(r"(?<year>\d{4})-\k<year>(?<=\d)", "gi")
    assert named is not None
    assert named.pattern == r"(?P<year>\d{4})-(?P=year)(?<=\d)"
    assert named.flags & re.I and named.flags & re.ASCII
    anything = as_python("a[^]b[]", "s")
    assert anything is not None and anything.pattern == r"a[\s\S]b(?!)"
    assert anything.flags & re.S


@pytest.mark.parametrize("source", [r"\p{L}+", r"\u{1F600}", r"\cJ", "(a+)+$", "(["])
def test_a_pattern_python_reads_otherwise_or_that_could_stall_is_left_out(source: str) -> None:
    assert as_python(source, "u") is None


def test_each_way_of_testing_a_parameter_by_its_position() -> None:
    versions = [
        "const RE = /^[a-z]+$/i;\nfunction check(n, s) { return RE.test(s) && n > 0; }",
        "function check(n: number, s: string): boolean { return s.match(/^\\d+$/) !== null; }",
        "const check = (n, str) => new RegExp('^x+$', 'm').exec(str) && /^y/.test(str);",
        "function check(n, s) { return s.search(/z/) >= 0 || s.matchAll(LIMIT); }",
    ]
    assert _texts(searched_patterns(versions, "check", ["const LIMIT = /w{2}/g;"])) == {1: [
        ("^[a-z]+$", re.I), ("^\\d+$", 0), ("^x+$", re.M), ("^y", 0), ("z", 0), ("w{2}", 0)]}


def test_a_pattern_tested_on_what_is_no_parameter_is_not_read() -> None:
    versions = ["function f(s) { const t = s.trim(); return /a/.test(t) || /b/.test(s.x); }",
                "function g(s) { return /c/.test(s); }"]
    assert searched_patterns(versions, "f") == {}
