"""Calls of a function with literal arguments in its module's view."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from codequorum.behaviour.callers import FoundCall, Taken, is_test_file, literal_calls
from codequorum.behaviour.expectations import Expectation
from codequorum.core.model import ModuleContext

APP = '''
import app
def f(x, y=1):
    return f(x - 1) if x else y

def g():
    return f(2, y=3) + f(2, y=3) + f(x=[1]) + f(g())

class K:
    def m(self):
        return self.f(4)
'''
TESTS = "from app import f\n\ndef test_f():\n    assert app.f(5) == 1\n    assert other.f(9)\n"


def _context(kind: str = "function") -> ModuleContext:
    return ModuleContext(name="app", path="app.py", qualified_name="f", kind=kind,  # type: ignore[arg-type]
                         files=(("tests/test_app.py", TESTS), ("app.py", APP)), roots=("",))


def _app_calls(tests: str, where: str = "tests/test_app.py") -> Taken[FoundCall]:
    """The literal calls of ``f`` (``app.py``: ``f(x, n=1)`` multiplies) that the test
    file ``where`` holding ``tests`` makes."""
    context = ModuleContext(name="app", path="app.py", qualified_name="f", kind="function",
                            files=(("app.py", "def f(x, n=1):\n    return x * n\n"),),
                            roots=("",), callers=((where, tests),))
    return literal_calls(context, "f")


def test_literal_calls_outside_the_function_own_file_first() -> None:
    calls = literal_calls(_context(), "f")
    assert [(c.args, c.kwargs, c.in_test, c.where) for c in calls] == [
        ((2,), {"y": 3}, False, "app.py:7"), ((), {"x": [1]}, False, "app.py:7"),
        ((5,), {}, True, "tests/test_app.py:4")]
    method = literal_calls(_context("method"), "f")
    assert ((4,), {}, False) in [(c.args, c.kwargs, c.in_test) for c in method]
    # the limit is on calls no test grades; the test's graded call is taken beside them
    assert [(c.args, c.in_test) for c in literal_calls(_context(), "f", limit=1)] == [
        ((2,), False), ((5,), True)]


def test_test_files_are_told_by_their_names() -> None:
    assert is_test_file("tests/test_app.py") and is_test_file("pkg/app_test.py")
    assert not is_test_file("pkg/app.py") and not is_test_file("testing.py")


def test_the_workspaces_other_files_are_read_after_the_view() -> None:
    caller = "from app import f\n\nprint(f(7))\n"
    context = ModuleContext(name="app", path="app.py", qualified_name="f", kind="function",
                            files=(("app.py", APP),), roots=("",),
                            callers=(("cli/main.py", caller),))
    calls = literal_calls(context, "f")
    assert [(c.args, c.in_test, c.where) for c in calls][-1] == ((7,), False, "cli/main.py:3")


def test_a_tests_call_elsewhere_in_the_workspace_is_an_input_that_says_where(
        tmp_path: Path) -> None:
    """``scale`` has no doctest and no hint; a test file it does not import calls it with
    literals: that call runs, and the versions part ways on it, said with its place."""
    from codequorum.behaviour.dynamic_analysis import DynamicOptions, run_dynamic
    from codequorum.core.model import Version, VersionSet
    from codequorum.ingest.module_view import module_context
    from codequorum.render.findings import origin_words

    source = "def scale(size, unit):\n    return size // unit\n"
    ws = tmp_path / "ws"
    (ws / "tests").mkdir(parents=True)
    (ws / "sizes.py").write_text(source)
    (ws / "tests" / "test_sizes.py").write_text(
        "from sizes import scale\n\n\ndef test_scale():\n    assert scale(-7, 2) == -4\n")
    version_set = VersionSet(
        task_id="scale", entry_point="scale",
        versions=[Version("def scale(size, unit):\n    return int(size / unit)\n"),
                 Version(source, origin="current")],
        module=module_context(source, ws / "sizes.py", ws, "scale"))
    report = run_dynamic(version_set, DynamicOptions(jobs=2, hypothesis_examples=2,
                                                    scaling=False, use_hypothesis=False))
    [t] = [t for t, i in enumerate(report.inputs) if i["label"] == "scale(-7, 2)"]
    assert report.inputs[t]["origin"] == "test"
    assert origin_words(report.inputs[t]) == "a test in tests/test_sizes.py:5"
    outcomes = [row[t] for row in report.outcomes]
    assert [o[0] if o is not None else None for o in outcomes] == ["-3", "-4"]


def test_more_calls_than_are_taken_are_spread_from_the_first_to_the_last() -> None:
    from codequorum.behaviour.callers import spread

    assert spread(list(range(5)), 8) == [0, 1, 2, 3, 4]
    assert spread(list(range(40)), 5) == [0, 10, 20, 29, 39]
    assert spread(list(range(40)), 1) == [0]
    assert spread(list(range(40)), 0) == []


def test_every_call_a_test_grades_is_taken_up_to_its_bound_and_a_note_says_the_rest(
        ) -> None:
    """decamelize's 18 ``t.is`` lines: a bug only the 18th shows was never run when every
    call shared the bound of 16. Graded calls are taken up to MAX_GRADED beside the 16
    others; past it, the plan's note says how many were left out."""
    from codequorum.behaviour.callers import MAX_CALLS, MAX_GRADED, left_out_note

    graded = "".join(f"    assert f({i}) == {i}\n" for i in range(18))
    bare = "".join(f"    f({100 + i})\n" for i in range(20))
    calls = _app_calls("from app import f\n\ndef test_f():\n" + graded + bare)
    assert [c.args[0] for c in calls if c.expectation is not None] == list(range(18))
    assert len([c for c in calls if c.expectation is None]) == MAX_CALLS
    assert calls.graded_left_out == 0 and left_out_note(calls) == []
    many = "".join(f"    assert f({i}) == {i}\n" for i in range(MAX_GRADED + 6))
    calls = _app_calls("from app import f\n\ndef test_f():\n" + many)
    assert len(calls) == MAX_GRADED and calls[0].args == (0,)
    assert calls[-1].args == (MAX_GRADED + 5,)  # spread to the last
    assert left_out_note(calls) == [
        f"6 more calls the workspace's tests grade were not run (at most {MAX_GRADED} are, "
        "spread over the tests)"]


def test_a_local_named_like_the_module_is_not_the_module() -> None:
    """semver's tests: ``version = Version(3, 4, 5)`` then ``version.replace(major=2)`` is
    a method of a local, not ``semver.version.replace``; ``self``-less ``app.f(5)`` in a
    file that assigns no ``app`` still is the module's."""
    calls = _app_calls("def test_f():\n    app = make()\n    assert app.f(5) == 1\n"
                       "    assert f(6) == 6\n")
    assert [c.args for c in calls] == [(6,)]
    calls = _app_calls("def test_f(app):\n    app.f(7)\n")
    assert calls == []
    calls = _app_calls("import app\n\ndef test_f():\n    app = app\n    app.f(8)\n")
    assert [c.args for c in calls] == [(8,)]  # imported: the module, whatever else


def test_what_a_workspace_test_asserts_grades_the_versions_and_picks_the_right_one(
        tmp_path: Path) -> None:
    """``duration`` has no docstring example; its test says ``duration(nan)`` raises and
    ``duration(1500)`` gives ``'1.5s'``. The version without the guard returns ``'nans'``:
    it fails the test's assertion, and the version kept is one that raises."""
    from codequorum.behaviour.dynamic_analysis import DynamicOptions, run_dynamic
    from codequorum.core.model import Version, VersionSet
    from codequorum.ingest.module_view import module_context
    from codequorum.judge.recommend import examples_from_dynamic
    from codequorum.pipeline.analyze import analyze
    from codequorum.pipeline.config import AnalysisConfig

    guarded = ("import math\n\ndef duration(ms):\n    if not math.isfinite(ms):\n"
               "        raise ValueError('not finite')\n    return f'{ms / 1000:g}s'\n")
    unguarded = "def duration(ms):\n    return f'{ms / 1000:g}s'\n"
    ws = tmp_path / "ws"
    (ws / "tests").mkdir(parents=True)
    (ws / "timing.py").write_text(guarded)
    (ws / "tests" / "test_timing.py").write_text(
        "import pytest\nfrom timing import duration\n\n\ndef test_duration():\n"
        "    assert duration(1500) == '1.5s'\n    with pytest.raises(ValueError):\n"
        "        duration(float('nan'))\n    with pytest.raises(ValueError):\n"
        "        duration(float('inf'))\n    duration(7)\n")
    version_set = VersionSet(
        task_id="duration", entry_point="duration",
        versions=[Version(unguarded), Version(unguarded.replace("ms /", "ms/")),
                  Version(guarded, origin="current")],
        module=module_context(guarded, ws / "timing.py", ws, "duration"))
    dynamic = run_dynamic(version_set, DynamicOptions(jobs=2, scaling=False,
                                                      use_hypothesis=False))
    by_label = {i["label"]: (i["origin"], i["checked"], i["graded"]) for i in dynamic.inputs}
    assert by_label["duration(1500)"] == ("test", True, True)
    assert by_label["duration(inf)"] == ("test", True, True)
    assert by_label["duration(7)"] == ("test", False, False)  # a call no assertion states
    assert examples_from_dynamic(dynamic) == ([1, 1, 3], 3)
    report = analyze(version_set, AnalysisConfig(metrics=("textual",)), dynamic)
    assert report.recommended == 2


def test_a_parametrized_test_gives_one_graded_call_per_case() -> None:
    tests = ("import pytest\nfrom app import f\n\n\n"
             "@pytest.mark.parametrize('x, want', [(1, 2), (5, 10),\n"
             "    pytest.param(7, 0, marks=pytest.mark.xfail), (other, 3)])\n"
             "def test_f(x, want):\n    assert f(x) == want\n")
    context = ModuleContext(name="app", path="app.py", qualified_name="f", kind="function",
                            files=(("app.py", "def f(x):\n    return 2 * x\n"),), roots=("",),
                            callers=(("tests/test_app.py", tests),))
    calls = literal_calls(context, "f")
    assert [(c.args, c.where, c.expectation.expected if c.expectation else None)
            for c in calls] == [((1,), "tests/test_app.py:8", 2),
                                ((5,), "tests/test_app.py:8", 10)]


def test_a_dict_of_inputs_and_outputs_in_the_test_gives_a_graded_call_per_key() -> None:
    """``cases = {...}`` in the test, then ``for x, want in cases.items()`` or ``for x in
    table: assert f(x) == table[x]``: each key graded by its value."""
    tests = ("from app import f\n\n\ndef test_items():\n    cases = {1: 2, 3: 6}\n"
             "    for x, want in cases.items():\n        assert f(x) == want\n\n\n"
             "def test_keys():\n    table = {'5': 10}\n    for x in table:\n"
             "        assert f(x) == table[x]\n")
    context = ModuleContext(name="app", path="app.py", qualified_name="f", kind="function",
                            files=(("app.py", "def f(x):\n    return 2 * x\n"),), roots=("",),
                            callers=(("tests/test_app.py", tests),))
    calls = literal_calls(context, "f")
    assert [(c.args, c.where, c.expectation.expected if c.expectation else None)
            for c in calls] == [((1,), "tests/test_app.py:7", 2),
                                ((3,), "tests/test_app.py:7", 6),
                                (("5",), "tests/test_app.py:13", 10)]


def test_a_literal_a_test_holds_in_a_name_is_the_calls_argument_and_expected_value() -> None:
    """python-slugify's tests, in a top-level ``test.py``: ``txt = '...'`` then ``r =
    f(txt)`` and ``self.assertEqual(r, txt)``; the name is reassigned between calls."""
    tests = ("import unittest\nfrom app import f\n\n\nclass T(unittest.TestCase):\n"
             "    def test_f(self):\n        txt = 'a b'\n        r = f(txt)\n"
             "        self.assertEqual(r, txt)\n        txt = 'c'\n        r = f(txt, 2)\n"
             "        self.assertEqual(r, 'cc')\n")
    calls = _app_calls(tests, "test.py")
    assert [(c.args, c.where, c.expectation.expected if c.expectation else None)
            for c in calls] == [(("a b",), "test.py:8", "a b"), (("c", 2), "test.py:11", "cc")]
    assert is_test_file("test.py") and is_test_file("app/tests.py")
    assert not is_test_file("testing.py") and not is_test_file("contest.py")


def test_a_function_passed_to_assert_raises_is_a_call_that_must_raise() -> None:
    tests = ("import unittest\n\nimport pytest\n\nfrom app import f\n\n\n"
             "class T(unittest.TestCase):\n    def test_f(self):\n"
             "        self.assertRaises(ValueError, f, -1)\n\n\n"
             "@pytest.mark.parametrize('x', [-2, -3])\ndef test_g(x):\n"
             "    pytest.raises(ValueError, f, x, match='negative')\n\n\n"
             "def test_h(tmp_path):\n    pytest.raises(TypeError, f, 'a')\n")
    context = ModuleContext(name="app", path="app.py", qualified_name="f", kind="function",
                            files=(("app.py", "def f(x):\n    return 2 * x\n"),), roots=("",),
                            callers=(("tests/test_app.py", tests),))
    calls = literal_calls(context, "f")
    assert [(c.args, c.kwargs, c.where, c.expectation) for c in calls] == [
        ((-1,), {}, "tests/test_app.py:10", Expectation(raises="ValueError")),
        ((-2,), {}, "tests/test_app.py:15", Expectation(raises="ValueError")),
        ((-3,), {}, "tests/test_app.py:15", Expectation(raises="ValueError")),
        (("a",), {}, "tests/test_app.py:19", None)]  # a test with a fixture: an input only


def test_a_call_a_test_asserts_replaces_the_same_call_found_bare_first() -> None:
    from codequorum.behaviour.callers import FoundCall, keep

    out: list[FoundCall] = []
    seen: dict[str, int] = {}
    bare = FoundCall((1,), {}, False, "app.py:3")
    asserted = FoundCall((1,), {}, True, "tests/test_app.py:5", Expectation(2))
    other = FoundCall((1,), {}, True, "tests/test_app.py:9", Expectation(3))
    for found in (bare, asserted, other):
        keep(out, seen, repr(found.args), found)
    assert out == [asserted]  # the first assertion wins, the bare call gives way


def test_a_test_of_another_function_of_the_same_name_does_not_grade() -> None:
    """``tests/test_other.py`` asserts what ``other.f`` gives: its calls stay inputs."""
    other = "from other import f\n\n\ndef test_f():\n    assert f(1) == 99\n"
    ours = "from pkg.app import *\n\n\ndef test_f():\n    assert f(2) == 4\n"
    source = "def f(x):\n    return 2 * x\n"
    context = ModuleContext(name="pkg.app", path="pkg/app.py", qualified_name="f",
                            kind="function", files=(("pkg/app.py", source),), roots=("",),
                            callers=(("tests/test_other.py", other), ("tests/test_app.py", ours)))
    calls = literal_calls(context, "f")
    assert [(c.args, c.expectation) for c in calls] == [((1,), None), ((2,), Expectation(4))]


def test_a_row_unpacked_into_the_call_gives_its_items_as_arguments() -> None:
    """``f(*row)`` in a loop over a table of tuples and ``f(**options)`` of a literal dict
    give their items as arguments; an unpacked name holding nothing literal, or a dict
    whose keys are not texts, leaves the call out."""
    tests = ("from app import f\n\nCASES = [(1, 2), (3, 1)]\n\n\ndef test_rows():\n"
             "    for row in CASES:\n        assert f(*row)\n\n\n"
             "def test_named():\n    assert f(*[4], **{'n': 2}) == 8\n"
             "    assert f(*unknown) == 0\n    assert f(**{1: 2}) == 0\n")
    calls = _app_calls(tests, "tests/test_app.py")
    assert [(c.args, c.kwargs, c.expectation.expected if c.expectation else None)
            for c in calls if not c.wrapped] == [((1, 2), {}, None), ((3, 1), {}, None),
                                                 ((4,), {"n": 2}, 8)]
    # ``assert f(*row)`` also says ``bool(f(1, 2))`` is true, the row written in
    assert [c.wrapped for c in calls if c.wrapped] == ["bool(f(1, 2))", "bool(f(3, 1))"]


def _in_workspace(tmp_path: Path, module: str, code: str, test: str,
                  name: str) -> ModuleContext:
    """The context of ``name`` in ``module`` (``code``) of a workspace whose
    ``tests/test_<module>`` holds ``test``."""
    from codequorum.ingest.module_view import module_context

    ws = tmp_path / "ws"
    (ws / "tests").mkdir(parents=True)
    (ws / f"{module}.py").write_text(code)
    (ws / "tests" / f"test_{module}.py").write_text(test)
    return module_context(code, ws / f"{module}.py", ws, name)


def _ran(context: ModuleContext, codes: list[str], name: str) -> Any:
    """The versions ``codes`` of ``name`` run in ``context`` on the calls found there."""
    from codequorum.behaviour.dynamic_analysis import DynamicOptions, run_dynamic
    from codequorum.core.model import VersionSet

    version_set = VersionSet.from_codes(name, codes, entry_point=name)
    version_set.module = context
    return run_dynamic(version_set, DynamicOptions(jobs=2, scaling=False, use_hypothesis=False))


CHUNKS = "def chunks(xs, n):\n    for i in range(0, len(xs), n):\n        yield xs[i:i + n]\n"


def test_an_assertion_on_a_call_wrapping_the_function_s_runs_whole_and_grades(
        tmp_path: Path) -> None:
    """``assert list(chunks([1, 2, 3], 2)) == [[1, 2], [3]]`` and ``len(list(...)) == 2``:
    each wrapping call runs whole in the module as a doctest example, graded against the
    asserted value's ``repr``, beside the bare call; the version dropping the last chunk
    fails the first, the one returning a list passes as the test would; a set's or a
    two-key dict's value runs unchecked (another order shows another text)."""
    context = _in_workspace(tmp_path, "util", CHUNKS,
                            "from util import chunks\n\n\ndef test_chunks():\n"
                            "    assert list(chunks([1, 2, 3], 2)) == [[1, 2], [3]]\n"
                            "    assert len(list(chunks([1, 2, 3, 4], 2))) == 2\n"
                            "    assert set(map(len, chunks([1], 1))) == {1}\n", "chunks")
    found = [(c.args, c.wrapped, c.expectation.expected if c.expectation else None)
             for c in literal_calls(context, "chunks")]
    assert found == [(([1, 2, 3], 2), None, None),
                     (([1, 2, 3], 2), "list(chunks([1, 2, 3], 2))", [[1, 2], [3]]),
                     (([1, 2, 3, 4], 2), None, None),
                     (([1, 2, 3, 4], 2), "len(list(chunks([1, 2, 3, 4], 2)))", 2),
                     (([1], 1), None, None), (([1], 1), "set(map(len, chunks([1], 1)))", {1})]
    short = CHUNKS.replace("len(xs), n", "len(xs) - 1, n")
    listed = "def chunks(xs, n):\n    return [xs[i:i + n] for i in range(0, len(xs), n)]\n"
    dynamic = _ran(context, [CHUNKS, short, listed], "chunks")
    labels = [i["label"] for i in dynamic.inputs]
    assert labels == ["chunks([1, 2, 3], 2)", "list(chunks([1, 2, 3], 2))",
                      "chunks([1, 2, 3, 4], 2)", "len(list(chunks([1, 2, 3, 4], 2)))",
                      "chunks([1], 1)", "set(map(len, chunks([1], 1)))"]
    assert [row[1] for row in dynamic.passes] == [True, False, True]
    assert [row[3] for row in dynamic.passes] == [True, True, True]
    assert [row[5] for row in dynamic.passes] == [None, None, None]
    assert [c.pass_rate for c in dynamic.candidates] == [1.0, 0.5, 1.0]


IS_EMAIL = ("import re\n\n\ndef is_email(s):\n"
            "    return re.fullmatch(r'[^@\\s]+@[^@\\s]+\\.[a-z]+', s) is not None\n")


def test_an_assertion_that_a_call_is_true_or_false_grades_it_through_bool(
        tmp_path: Path) -> None:
    """``assert is_email('a@b.co')``, ``assert not is_email(s)`` over a parametrized
    case (the case's value written in), ``self.assertIn('@', ...)``-style comparisons:
    each runs as ``bool(...)`` of the expression, graded ``True`` or ``False``; the
    version that only looks for ``@`` fails the cases it lets through."""
    context = _in_workspace(
        tmp_path, "mail", IS_EMAIL,
        "import pytest\nfrom mail import is_email\n\n\ndef test_yes():\n"
        "    assert is_email('a@b.co')\n    assert is_email('x@y.org') > 0\n\n\n"
        "@pytest.mark.parametrize('s', ['a@b', '@b.co'])\ndef test_no(s):\n"
        "    assert not is_email(s)\n", "is_email")
    found = [(c.args, c.wrapped, c.expectation.expected if c.expectation else None)
             for c in literal_calls(context, "is_email") if c.wrapped]
    assert found == [(("a@b.co",), "bool(is_email('a@b.co'))", True),
                     (("x@y.org",), "bool(is_email('x@y.org') > 0)", True),
                     (("a@b",), "bool(is_email('a@b'))", False),
                     (("@b.co",), "bool(is_email('@b.co'))", False)]
    loose = "def is_email(s):\n    return '@' in s\n"
    dynamic = _ran(context, [IS_EMAIL, loose], "is_email")
    graded = [(i["label"], [row[k] for row in dynamic.passes])
              for k, i in enumerate(dynamic.inputs) if i["label"].startswith("bool(")]
    assert graded == [("bool(is_email('a@b.co'))", [True, True]),
                      ("bool(is_email('x@y.org') > 0)", [True, True]),
                      ("bool(is_email('a@b'))", [True, False]),
                      ("bool(is_email('@b.co'))", [True, False])]


def test_a_helper_of_the_test_file_called_with_literals_grades_each_call() -> None:
    """``def check(x, want): assert f(x) == want`` then ``check(1, 2)``, and a method
    ``self.check_pair(...)`` of a unittest class: each call binds the helper's parameters,
    a graded call of the function; a call giving a name no literal holds gives none, nor
    one made after something that may change what the function gives."""
    tests = ("import unittest\nfrom app import f\n\n\ndef check(x, want):\n"
             "    assert f(x) == want\n\n\ndef test_f():\n    check(1, 2)\n    check(5, want=10)\n"
             "    check(other, 3)\n\n\ndef test_later():\n    activate('fr')\n    check(9, 18)\n"
             "\n\nclass T(unittest.TestCase):\n"
             "    def check_pair(self, x, want):\n        self.assertEqual(f(x), want)\n\n"
             "    def test_g(self):\n        self.check_pair(7, 14)\n")
    context = ModuleContext(name="app", path="app.py", qualified_name="f", kind="function",
                            files=(("app.py", "def f(x):\n    return 2 * x\n"),), roots=("",),
                            callers=(("tests/test_app.py", tests),))
    calls = literal_calls(context, "f")
    assert [(c.args, c.expectation.expected if c.expectation else None) for c in calls] == [
        ((1,), 2), ((5,), 10), ((7,), 14)]


MEAN = "def mean(xs):\n    return sum(xs) / len(xs)\n"


def test_an_approx_assertion_grades_the_call_without_pytest(tmp_path: Path) -> None:
    """``assert mean([0.1, 0.2]) == pytest.approx(0.15)``: the comparison it makes runs in
    the module (no pytest there), graded ``True``; the version that halves the sum of the
    first two items only fails the longer case."""
    context = _in_workspace(
        tmp_path, "stats", MEAN,
        "import pytest\nfrom stats import mean\n\n\ndef test_mean():\n"
        "    assert mean([0.1, 0.2]) == pytest.approx(0.15)\n"
        "    assert mean([1, 2, 6]) == pytest.approx(3)\n", "mean")
    pair = "def mean(xs):\n    return (xs[0] + xs[1]) / 2\n"
    dynamic = _ran(context, [MEAN, pair], "mean")
    graded = [(i["label"], [row[k] for row in dynamic.passes])
              for k, i in enumerate(dynamic.inputs) if i["label"].startswith("bool(")]
    assert graded == [
        ("bool(abs(mean([0.1, 0.2]) - 0.15) <= max(1e-06 * abs(0.15), 1e-12))", [True, True]),
        ("bool(abs(mean([1, 2, 6]) - 3) <= max(1e-06 * abs(3), 1e-12))", [True, False])]
