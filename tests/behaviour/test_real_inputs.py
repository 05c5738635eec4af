"""Real functions of the fixture repositories (``tests/fixtures/repos``) get inputs and
run in their modules: whole doctests, edge values, a module that asks for its host name.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from codequorum.behaviour.dynamic_analysis import DynamicOptions, plan_inputs, run_dynamic
from codequorum.core import model
from codequorum.core.model import VersionSet
from codequorum.core.parsing import function_by_name
from codequorum.ingest.module_view import module_context
from codequorum.pipeline.session import current_code

REPOS = Path(__file__).resolve().parent.parent / "fixtures" / "repos"


def real_set(repo: str, module: str, qualified_name: str, kind: str = "function",
             versions: tuple[str, ...] = ()) -> VersionSet:
    """The function's ``versions`` and its own code (origin ``current``) in its module."""
    workspace = REPOS / repo
    path = workspace / module
    text = path.read_text(encoding="utf-8")
    info = function_by_name(text, "python", qualified_name)
    assert info is not None
    made = [model.Version(code=v) for v in versions]
    made.append(model.Version(code=current_code(text, info), origin="current"))
    return VersionSet(task_id=f"{module}::{qualified_name}", versions=made,
                     entry_point=info.name,
                     module=module_context(text, path, workspace, qualified_name, kind))


OPTIONS = DynamicOptions(jobs=2, hypothesis_examples=4, scaling=False)
BAD_CHUNKED = '''def chunked(src, size, count=None, **kw):
    """Broken: drops the last, short chunk."""
    out = [list(src[i:i + size]) for i in range(0, len(src) - size + 1, size)]
    return out if count is None else out[:count]
'''


def test_boltons_iterutils_imports_in_the_sandbox_and_its_doctests_grade() -> None:
    # iterutils calls socket.gethostname() at its top level
    report = run_dynamic(real_set("boltons", "boltons/iterutils.py", "chunked",
                                  versions=(BAD_CHUNKED,)), OPTIONS)
    assert report.rules.module_problem is None
    assert not any("refused" in note for note in report.notes)
    assert [i["label"] for i in report.inputs][:3] == [
        "chunked(range(10), 3)", "chunked(range(10), 3, fill=None)",
        "chunked(range(10), 3, count=2)"]
    assert [p[:3] for p in report.passes] == [[False, False, True], [True, True, True]]


def test_a_method_runs_on_the_instance_its_doctest_builds() -> None:
    wrong = ("def get_quantile(self, q):\n"
             "    return self._get_quantile(self._get_sorted_data(), 1 - float(q) / 2)\n")
    report = run_dynamic(real_set("boltons", "boltons/statsutils.py", "Stats.get_quantile",
                                  "method", versions=(wrong,)), OPTIONS)
    assert report.inputs[0]["label"] == "Stats(range(100)).get_quantile(0.5)"
    assert report.inputs[0]["origin"] == "doctest"
    assert report.outcomes[1][0] == ("49.5\n", None, None)
    assert [p[0] for p in report.passes] == [False, True]


def test_drawn_strings_hold_markup_and_floats_hold_the_specials() -> None:
    for module, name in (("_native.py", "_escape_inner"), ("__init__.py", "escape")):
        # a ``str`` hint, and ``t.Any`` (drawn as plain values, strings first)
        plan = plan_inputs(real_set("markupsafe", f"src/markupsafe/{module}", name), OPTIONS)
        labels = [c.label for c in plan.cases if c.origin == "edge"]
        assert any("<" in label and "&" in label for label in labels), name
    finite = plan_inputs(real_set("humanize", "src/humanize/number.py", "_format_not_finite"),
                         OPTIONS)
    drawn = [c.test.args[0] for c in finite.cases if c.origin == "edge"]
    assert math.inf in drawn and -math.inf in drawn and any(math.isnan(v) for v in drawn)


@pytest.mark.parametrize("origin", ["edge"])
def test_markupsafe_escape_runs_on_its_edges_in_its_module(origin: str) -> None:
    naive = "def escape(s, /):\n    return Markup(str(s).replace('<', '&lt;'))\n"
    report = run_dynamic(real_set("markupsafe", "src/markupsafe/__init__.py", "escape",
                                  versions=(naive,)), OPTIONS)
    assert report.rules.module_problem is None
    parted = [i["label"] for t, i in enumerate(report.inputs)
              if report.outcomes[0][t] != report.outcomes[1][t]]
    assert parted and all(report.inputs[t]["origin"] in (origin, "hint", "doctest")
                          for t in range(len(report.inputs)))
    assert any("&" in label or "'" in label for label in parted)


def test_a_method_without_examples_runs_on_the_instances_its_class_builds() -> None:
    # get_zscore has no doctest; Stats' other methods build Stats(range(20)), ...
    wrong = ("def get_zscore(self, value):\n"
             "    return (float(value) - self.mean) / self.variance\n")
    report = run_dynamic(real_set("boltons", "boltons/statsutils.py", "Stats.get_zscore",
                                  "method", versions=(wrong,)), OPTIONS)
    labels = [i["label"] for i in report.inputs]
    assert labels and all(label.startswith("Stats(") for label in labels)
    assert {label.partition(".get_zscore")[0] for label in labels} >= {
        "Stats(range(20))", "Stats([2, 1, 3])"}
    ran = [t for t, got in enumerate(report.outcomes[1][:len(labels)])
           if got is not None and got[1] is None]
    assert ran and any(report.outcomes[0][t] != report.outcomes[1][t] for t in ran)


def test_versions_that_draw_random_numbers_draw_the_same_ones() -> None:
    # random_permutation calls random.sample; its doctest is marked +SKIP and is no input
    same = ("def random_permutation(iterable, r=None):\n"
            "    pool = tuple(iterable)\n"
            "    if r is None:\n"
            "        r = len(pool)\n"
            "    return tuple(sample(pool, r))\n")
    report = run_dynamic(real_set("more-itertools", "more_itertools/recipes.py",
                                  "random_permutation", versions=(same,)), OPTIONS)
    assert report.inputs and all(i["origin"] != "doctest" for i in report.inputs)
    assert any(o is not None and o[1] is None for o in report.outcomes[0])
    assert report.outcomes[0] == report.outcomes[1]


#: A sorted bag whose special methods document themselves by their operators, as
#: sortedcontainers' ``SortedList`` does (``3 in sl``, ``len(sl)``, ``sl[0]``).
BAG = '''from bisect import bisect_left


class Bag:
    def __init__(self, items=()):
        self._items = sorted(items)

    def __contains__(self, value):
        """Whether value is in the bag.

        >>> bag = Bag([1, 2, 3, 4, 5])
        >>> 3 in bag
        True
        >>> 5 in bag
        True
        """
        i = bisect_left(self._items, value)
        return i < len(self._items) and self._items[i] == value

    def __len__(self):
        """How many items.

        >>> len(Bag('abc'))
        3
        """
        return len(self._items)
'''


@pytest.mark.parametrize(("name", "wrong"), [
    ("Bag.__contains__", "def __contains__(self, value):\n"
                         "    return value in self._items[:-1]\n"),
    ("Bag.__len__", "def __len__(self):\n    return len(set(self._items)) + 1\n"),
])
def test_a_special_method_runs_on_the_examples_that_use_its_operator(
        tmp_path: Path, name: str, wrong: str) -> None:
    (tmp_path / "bag.py").write_text(BAG, encoding="utf-8")
    info = function_by_name(BAG, "python", name)
    assert info is not None
    versions = [model.Version(code=wrong),
               model.Version(code=current_code(BAG, info), origin="current")]
    version_set = VersionSet(task_id=f"bag.py::{name}", versions=versions, entry_point=info.name,
                           module=module_context(BAG, tmp_path / "bag.py", tmp_path, name,
                                                 "method"))
    report = run_dynamic(version_set, OPTIONS)
    examples = [t for t, i in enumerate(report.inputs) if i["origin"] == "doctest"]
    assert examples, [i["label"] for i in report.inputs]
    assert all(report.passes[1][t] for t in examples)  # the class's own code passes
    assert not all(report.passes[0][t] for t in examples)  # the wrong version does not
