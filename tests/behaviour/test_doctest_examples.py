"""Docstring examples that call the function some other way than a literal call."""

from __future__ import annotations

import ast
import doctest

from codequorum.behaviour.doctest_examples import MAX_EXAMPLES, example_cases, module_names


def _fn(doc: str, name: str = "f") -> ast.FunctionDef:
    code = f"def {name}(x):\n    '''{doc}'''\n    return x\n"
    node = ast.parse(code).body[0]
    assert isinstance(node, ast.FunctionDef)
    return node


def test_wrapped_calls_become_examples_with_their_expected_text() -> None:
    doc = """
    >>> print(f(1))
    1st
    >>> list(f([1, 2, 3]))
    [1, 2, 3]
    >>> sorted(f({3, 1}))
    [1, 3]
    >>> f(2) < 3
    True
    >>> f(1)
    1
    """
    cases = example_cases(_fn(doc), "f", may_grade=True)
    assert [c.source for c in cases] == ["print(f(1))\n", "list(f([1, 2, 3]))\n",
                                         "sorted(f({3, 1}))\n", "f(2) < 3\n"]
    assert [c.expected for c in cases] == ["1st\n", "[1, 2, 3]\n", "[1, 3]\n", "True\n"]
    assert all(c.kind == "example" and c.has_expected for c in cases)
    assert [c.name for c in cases][:2] == ["print(f(1))", "list(f([1, 2, 3]))"]


def test_setup_lines_come_before_and_names_bound_from_the_function_count() -> None:
    doc = """
    >>> from math import floor
    >>> s = Stats(range(100))
    >>> s.f()
    49.5
    >>> r = f(3)
    >>> floor(r)
    3
    >>> floor(2.5)
    2
    """
    cases = example_cases(_fn(doc), "f", may_grade=True)
    assert [c.source for c in cases] == ["s.f()\n", "floor(r)\n"]
    assert cases[0].setup == ("from math import floor\n", "s = Stats(range(100))\n")
    assert cases[1].setup[-1] == "r = f(3)\n" and len(cases[1].setup) == 4


def test_a_methods_example_on_an_instance_it_builds() -> None:
    doc = """
    >>> Stats(range(100)).get_quantile(0.5)
    49.5
    """
    [case] = example_cases(_fn(doc, "get_quantile"), "get_quantile", may_grade=True)
    assert case.source == "Stats(range(100)).get_quantile(0.5)\n"
    assert case.expected == "49.5\n"


def test_versions_docstrings_give_inputs_never_grades_and_flags_are_read() -> None:
    doc = """
    >>> list(f('abc'))  # doctest: +ELLIPSIS
    ['a', ...]
    """
    [case] = example_cases(_fn(doc), "f", may_grade=False)
    assert case.expected is None and not case.has_expected
    assert case.flags & doctest.ELLIPSIS
    [mine] = example_cases(_fn(doc), "f", may_grade=True)
    assert mine.expected == "['a', ...]\n"


def test_literal_calls_stay_on_their_fast_path_and_unrelated_lines_are_left() -> None:
    doc = """
    >>> f([1, 2])
    [1, 2]
    >>> g(3)
    3
    >>> x = f(1)
    """
    assert example_cases(_fn(doc), "f", may_grade=True) == []


def test_examples_are_bounded_and_unparsable_ones_skipped() -> None:
    lines = "\n".join(f"    >>> print(f({i}))\n    {i}" for i in range(MAX_EXAMPLES + 5))
    assert len(example_cases(_fn("\n" + lines + "\n"), "f", may_grade=True)) == MAX_EXAMPLES
    assert example_cases(_fn("\n    >>> print(f(1)\n    1\n"), "f", may_grade=True) == []


def test_setup_keeps_the_nearest_examples_within_its_bound() -> None:
    from codequorum.behaviour.doctest_examples import MAX_SETUP_CHARS

    filler = "x" * 1900
    lines = "".join(f"    >>> v{i} = '{filler}'\n" for i in range(20))
    [case] = example_cases(_fn("\n" + lines + "    >>> print(f(v19))\n    x\n"), "f",
                           may_grade=True)
    assert sum(map(len, case.setup)) <= MAX_SETUP_CHARS
    assert case.setup[-1].startswith("v19 = ") and len(case.setup) == 8


def test_examples_doctest_skips_are_no_inputs() -> None:
    doc = """
    >>> f([3, 1])  # doctest: +SKIP
    (1, 3)
    >>> list(f([2]))  # doctest:+SKIP
    [2]
    >>> print(f(1))
    1
    """
    cases = example_cases(_fn(doc), "f", may_grade=True)
    assert [c.source for c in cases] == ["print(f(1))\n"]
    assert cases[0].setup == ()


def test_a_special_methods_examples_call_it_through_its_operator() -> None:
    """sortedcontainers' ``SortedList.__contains__`` documents itself with ``3 in sl``:
    the operator (or builtin) that calls a special method makes the example an input."""
    doc = """
    >>> sl = SortedList([1, 2, 3, 4, 5])
    >>> 3 in sl
    True
    >>> 9 not in sl
    True
    """
    cases = example_cases(_fn(doc, "__contains__"), "__contains__", may_grade=True)
    assert [c.source for c in cases] == ["3 in sl\n", "9 not in sl\n"]
    assert cases[0].setup == ("sl = SortedList([1, 2, 3, 4, 5])\n",)
    # a mutator's effect is seen by the later examples that read its receiver
    doc = """
    >>> sl = SortedList([1, 2])
    >>> sl += [0]
    >>> sl
    SortedList([0, 1, 2])
    """
    [case] = example_cases(_fn(doc, "__iadd__"), "__iadd__", may_grade=True)
    assert (case.source, case.setup) == ("sl\n", ("sl = SortedList([1, 2])\n", "sl += [0]\n"))


def test_each_operator_calls_its_own_special_method_only() -> None:
    from codequorum.behaviour.doctest_examples import invokes

    def calls(source: str, name: str) -> bool:
        return invokes(ast.parse(source), name)

    assert calls("len(s)", "__len__") and not calls("len(s)", "__iter__")
    assert calls("s[0]", "__getitem__") and not calls("s[0]", "__setitem__")
    assert calls("s[0] = 1", "__setitem__") and calls("del s[0]", "__delitem__")
    assert calls("a + b", "__add__") and calls("a + b", "__radd__")
    assert not calls("a + b", "__iadd__") and calls("a += b", "__iadd__")
    assert not calls("a += b", "__add__") and not calls("a - b", "__add__")
    assert calls("a | b", "__or__") and calls("a >> 1", "__rshift__")
    assert calls("-a", "__neg__") and not calls("-a", "__pos__")
    assert calls("a < b", "__lt__") and not calls("a < b", "__gt__")
    assert calls("[x for x in s]", "__iter__") and calls("list(s)", "__iter__")
    assert calls("print(s)", "__str__") and calls("repr(s)", "__repr__")
    # an ordinary method is called by its name only
    assert not calls("3 in s", "contains") and not calls("len(s)", "size")


#: more-itertools 11.2's ``one`` (MIT): the same call after two different setups.
ONE_DOC = """Return the only item of *iterable*.

    >>> it = []
    >>> one(it)  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    ...
    ValueError: too few items in iterable (expected 1)'
    >>> it = ['too', 'many']
    >>> one(it)  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    ...
    ValueError: Expected exactly one item in iterable, but got 'too',
    'many', and perhaps more.
    """


def test_the_same_call_after_another_setup_is_another_input_named_by_what_it_follows() -> None:
    cases = example_cases(_fn(ONE_DOC, "one"), "one", may_grade=True)
    assert [(c.source, c.setup[-1]) for c in cases] == [
        ("one(it)  # doctest: +IGNORE_EXCEPTION_DETAIL\n", "it = []\n"),
        ("one(it)  # doctest: +IGNORE_EXCEPTION_DETAIL\n", "it = ['too', 'many']\n")]
    assert [c.name for c in cases] == ["one(it)", "one(it) (after it = ['too', 'many'])"]
    assert cases[1].expected is not None and cases[1].expected.endswith(
        "'many', and perhaps more.\n")
    assert all(c.flags & doctest.IGNORE_EXCEPTION_DETAIL for c in cases)


def test_examples_after_a_call_show_what_it_changed() -> None:
    """A method that changes its object returns None: the examples after its call that
    show the object (``next(p)``, ``list(p)``) are inputs, as are those showing a name
    passed to a function; an example on another object stays out."""
    doc = """
    >>> p = Lookahead([1, 2])
    >>> q = Lookahead([5])
    >>> p.push_front(8, 9)
    >>> next(p)
    8
    >>> list(p)
    [9, 1, 2]
    >>> next(q)
    5
    """
    cases = example_cases(_fn(doc, "push_front"), "push_front", may_grade=True)
    assert [c.source for c in cases] == ["p.push_front(8, 9)\n", "next(p)\n", "list(p)\n"]
    assert [c.expected for c in cases] == [None, "8\n", "[9, 1, 2]\n"]
    assert cases[1].setup[-1] == "p.push_front(8, 9)\n"
    doc = """
    >>> xs = [3, 1, 2]
    >>> ys = [3, 1, 2]
    >>> sort_in_place(xs)
    >>> xs
    [1, 2, 3]
    >>> ys
    [3, 1, 2]
    """
    cases = example_cases(_fn(doc, "sort_in_place"), "sort_in_place", may_grade=True)
    assert [c.source for c in cases] == ["sort_in_place(xs)\n", "xs\n"]


LOOKAHEAD_CLASS = '''
class Lookahead:
    """Look ahead.

        >>> p = Lookahead(['a', 'b'])
        >>> p.peek()
        'a'
        >>> next(p)
        'a'
        >>> if p:
        ...     list(p)
        ['b']
        >>> not p
        True
    """

    def peek(self):
        return self._cache[0]

    def __bool__(self):
        return bool(self._cache)
'''


def test_a_method_without_examples_of_its_own_takes_its_classs_examples() -> None:
    from codequorum.behaviour.doctest_examples import class_example_cases

    peek = class_example_cases(LOOKAHEAD_CLASS, "Lookahead", "peek", may_grade=True)
    assert [c.source for c in peek][:2] == ["p.peek()\n", "next(p)\n"]
    assert [c.expected for c in peek][:2] == ["'a'\n", "'a'\n"]
    truth = class_example_cases(LOOKAHEAD_CLASS, "Lookahead", "__bool__", may_grade=True)
    assert [c.source for c in truth] == ["if p:\n    list(p)\n", "not p\n"]
    assert class_example_cases(LOOKAHEAD_CLASS, "Other", "peek", may_grade=True) == []


def test_an_example_reading_a_name_nothing_gives_it_is_no_input() -> None:
    """semver's ``Version.compare``: ``>>> semver.compare("2.0.0")`` in a module that never
    imports ``semver`` raises NameError in every version alike, before any version runs;
    an example whose names the module, an earlier example or Python gives stays."""
    module = ("import re\nfrom typing import Any\n\ntry:\n    import json\nexcept ImportError:\n"
              "    json = None\n\nLIMIT = 3\n\nclass Version:\n    PART = 1\n\n"
              "    def compare(self, other):\n"
              '        """Compare.\n\n        >>> semver.compare("2.0.0")\n        -1\n'
              '        >>> v = Version()\n        >>> v.compare(json.dumps(LIMIT))\n        0\n'
              '        >>> import semver\n        >>> semver.Version().compare(PART)\n        0\n'
              '        >>> sorted([v], key=lambda x: x.compare(len("ab")))[0] is v\n'
              '        True\n        """\n        return 0\n')
    given = module_names(module)
    assert given == frozenset({"re", "Any", "json", "LIMIT", "Version"})
    fn = next(n for n in ast.walk(ast.parse(module))
              if isinstance(n, ast.FunctionDef) and n.name == "compare")
    labels = [c.name for c in example_cases(fn, "compare", True, given)]
    assert labels == ["v.compare(json.dumps(LIMIT))",
                      "sorted([v], key=lambda x: x.compare(len('ab')))[0] is v"]
    assert len(example_cases(fn, "compare", True)) == 4  # the module unknown: all kept
    assert module_names("from os.path import *\n") is None


def test_an_example_showing_an_earlier_call_s_result_is_labelled_with_that_call() -> None:
    """sortedcontainers' ``irange``: ``it = sl.irange('c', 'f')`` then ``list(it)``; a
    message saying the versions part on ``list(it)`` hid the call."""
    source = ('class SortedList:\n    def irange(self, a, b):\n        """Range.\n\n'
              "        >>> sl = SortedList('abcdefghij')\n"
              "        >>> it = sl.irange('c', 'f')\n        >>> list(it)\n"
              "        ['c', 'd', 'e', 'f']\n        >>> sl.irange('a', 'b') is not None\n"
              '        True\n        """\n')
    fn = next(n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.FunctionDef))
    assert [c.name for c in example_cases(fn, "irange", True)] == [
        "list(it) (after it = sl.irange('c', 'f'))", "sl.irange('a', 'b') is not None"]
