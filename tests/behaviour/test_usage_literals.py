"""The literals Python versions compare a parameter with."""

from __future__ import annotations

from codequorum.behaviour.usage_literals import (
    MAX_LITERAL_CHARS,
    compared_literals,
    fewer_first,
    split_separators,
)
from tests.support.python_functions import last_functions


def test_equalities_memberships_bounds_and_cases() -> None:
    fns = last_functions("def f(p, n):\n    if p == 'GET' or p in ('PUT', 'HEAD') or 'x' in p:\n"
               "        return n > 100 or 2.5 <= n or n != -3 or 0 < n < 10\n"
               "    match p:\n        case 'a' | 'b':\n            return 1\n"
               "        case 404:\n            return 2\n")
    assert compared_literals(fns, "p") == ["GET", "PUT", "HEAD", "a", "b", 404]
    assert compared_literals(fns, "n") == [99, 100, 101, 2.5, -3, -1, 0, 1, 9, 10, 11]


def test_what_only_some_versions_check_comes_first() -> None:
    fns = last_functions("def f(n):\n    return n >= 90\n",
                         "def f(n):\n    return n > 90 or n == 7\n")
    assert compared_literals(fns, "n") == [7, 89, 90, 91]
    assert fewer_first([["a", "b"], ["b"], ["b", "c"]]) == ["a", "c", "b"]


def test_booleans_none_names_and_long_strings_are_not_literals_taken() -> None:
    long = "x" * (MAX_LITERAL_CHARS + 1)
    fns = last_functions(f"def f(p):\n    return p is None or p == True or p == LIMIT"
                         f" or p == {long!r} or p.x == 3 or len(p) > 2\n")
    assert compared_literals(fns, "p") == []


def test_the_separators_a_text_is_split_on_in_reading_order_each_once() -> None:
    fns = last_functions("def f(q):\n    for pair in q.split('&'):\n"
                         "        k, _, v = pair.partition('=')\n"
                         "    return q.rsplit('&', 1), q.split(), q.split(SEP), k.split('=')\n",
                         "def f(q):\n    return [p[:p.find(':')] for p in q.split(',')]\n")
    assert split_separators(fns) == ["&", "=", ":", ","]  # the comprehension's item first
