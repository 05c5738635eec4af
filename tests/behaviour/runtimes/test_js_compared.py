"""The literals JavaScript and TypeScript versions compare a parameter with."""

from __future__ import annotations

from codequorum.behaviour.runtimes.js_compared import compared_literals, split_separators


def test_equalities_switches_includes_and_bounds_by_position() -> None:
    versions = [
        "function f(p, n) { switch (p) { case 'a': case 2: return 1; default: return 0; }"
        " if (n >= 10 && ['x', 'y'].includes(p) && p !== \"z\" && -3 < n) return 2; }",
        "const f = (p: string, n: number): boolean => p === 'a' || n > 10 || n == 2.5;",
    ]
    # what only the first version checks first, then what both do
    assert compared_literals(versions, "f") == {0: [2, "x", "y", "z", "a"],
                                                1: [-4, -3, -2, 2.5, 9, 10, 11]}


def test_a_bigint_a_version_tells_apart_is_compared_too() -> None:
    """pretty-bytes' ``signOf``: ``number === 0 || number === 0n``; a version forgetting
    ``0n`` parts only on that value."""
    versions = ["const signOf = (number, signed) => { if (number < 0) return '-';"
                " return number === 0 || number === 0n ? ' ' : '+'; };"]
    assert compared_literals(versions, "signOf") == {0: [-1, 0, 1, {"$": "bigint", "v": "0"}]}


def test_what_is_no_literal_or_no_parameter_is_not_taken() -> None:
    versions = ["function f(p) { const q = p; return q === 'a' || p === LIMIT || p === true"
                " || p.length > 3 || p == null; }"]
    assert compared_literals(versions, "f") == {}


def test_the_separators_a_text_is_split_on_in_reading_order_each_once() -> None:
    versions = ["function parse(q: string) { return q.split('&').map((p) => p.split(\"=\"))"
                ".concat(q.split(/,/), q.split(SEP), q.split('&')); }",
                "const parse = (q) => q.split(`;`).map((p) => p.slice(0, p.indexOf(':')));",
                "function other(q) { return q.split('|'); }"]
    assert split_separators(versions, "parse") == ["&", "=", ";", ":"]
