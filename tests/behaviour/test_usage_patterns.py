"""The patterns Python versions search a parameter with."""

from __future__ import annotations

import ast
import re

from codequorum.behaviour.usage_patterns import module_patterns, searched_patterns
from tests.support.python_functions import last_functions


def _texts(found: list[re.Pattern[str]]) -> list[tuple[str, int]]:
    return [(p.pattern, p.flags & ~re.UNICODE) for p in found]


def test_re_functions_with_their_flags_and_the_string_position() -> None:
    fns = last_functions("def f(s, t):\n    return re.match(r'^\\d+$', s, re.I | re.M)\n",
               "def f(s, t):\n    return re.sub('a+', '-', s) + re.search('b', t).group()\n",
               "def f(s, t):\n    return re.fullmatch(string=s, pattern='x', flags=re.S)\n")
    assert _texts(searched_patterns(fns, "s", {})) == [
        ("^\\d+$", re.I | re.M), ("a+", 0), ("x", re.S)]
    assert _texts(searched_patterns(fns, "t", {})) == [("b", 0)]


def test_compiled_and_named_patterns_of_the_module_and_the_function() -> None:
    module = ast.parse("import re\nEMAIL = re.compile(r'[^@]+@[^@]+', re.IGNORECASE)\n"
                       "DIGITS = r'\\d+'\nNUMBER = re.compile(DIGITS)\n")
    names = module_patterns([module])
    assert names == {"EMAIL": ("[^@]+@[^@]+", re.I), "DIGITS": ("\\d+", 0),
                     "NUMBER": ("\\d+", 0)}
    fns = last_functions("def f(s):\n    return EMAIL.fullmatch(s) or NUMBER.search(s)\n",
               "def f(s):\n    word = re.compile('[a-z]+')\n    return word.match(s)\n",
               "def f(s):\n    return re.compile('q').findall(s)\n")
    assert _texts(searched_patterns(fns, "s", names)) == [
        ("[^@]+@[^@]+", re.I), ("\\d+", 0), ("[a-z]+", 0), ("q", 0)]


def test_functions_imported_from_re_and_re_under_another_name() -> None:
    fns = last_functions("from re import match\ndef f(s):\n    return match('a', s)\n",
               "import re as regex\ndef f(s):\n    import re as regex\n"
               "    return regex.search('b', s)\n")
    assert _texts(searched_patterns(fns, "s", {}, {"match": "re.match"})) == [("a", 0), ("b", 0)]


def test_what_searches_no_parameter_or_no_known_pattern_gives_none() -> None:
    fns = last_functions("def f(s, p):\n    return re.match(p, s) or re.match('a', s.lower())"
               " or other.match('z', s) or re.match('(a+)+$', s)\n")
    assert searched_patterns(fns, "s", {}) == []
