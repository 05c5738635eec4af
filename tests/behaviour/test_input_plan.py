"""Test inputs: annotations, doctests, Hypothesis, scaling series, HumanEval harnesses."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from codequorum.behaviour.input_plan import (
    InputPlan,
    Param,
    collect_inputs,
    find_function,
    guess_entry_point,
    hypothesis_args,
    resolve_annotation,
    scaling_args,
    spec_of_value,
    spec_text,
)
from codequorum.core import model
from codequorum.core.model import VersionSet
from codequorum.ingest import humaneval


def _ann(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        ("int", "int"),
        ("List[int]", "list[int]"),
        ("list[str]", "list[str]"),
        ("typing.List[float]", "list[float]"),
        ("dict[str, int]", "dict[str, int]"),
        ("Dict[str, List[int]]", "dict[str, list[int]]"),
        ("Optional[int]", "int | None"),
        ("int | None", "int | None"),
        ("Tuple[int, str]", "tuple[int, str]"),
        ("tuple[int, ...]", "tuple[int, ...]"),
        ("'List[int]'", "list[int]"),
        ("Union[int, float]", "int | float"),
        ("Set[str]", "set[str]"),
        ("bool", "bool"),
        ("list", "list[int]"),
        ("dt.timedelta", "timedelta"),
        ("datetime.date", "date"),
        ("datetime", "datetime"),
        ("Optional[datetime.datetime]", "datetime | None"),
        ("t.SupportsIndex", "int"),
        ("cabc.Mapping[int, str | None]", "dict[int, str | None]"),
        ("collections.abc.Sequence[float]", "list[float]"),
        ("Callable[[int], int]", "Callable[..., int]"),
        ("typing.Callable[[], str]", "Callable[[], str]"),
        ("Callable[..., Any]", "Callable[..., str | int | float | list[int] | None]"),
        ("Callable", "Callable[..., ?]"),
    ],
)
def test_annotations_resolve_statically(annotation: str, expected: str) -> None:
    assert spec_text(resolve_annotation(_ann(annotation))) == expected


@pytest.mark.parametrize("annotation", ["MyClass", "Callable[int]", "os.PathLike", "f()"])
def test_unknown_annotations_resolve_to_none(annotation: str) -> None:
    assert resolve_annotation(_ann(annotation)) is None


def test_spec_of_example_values() -> None:
    assert spec_text(spec_of_value([1, 2])) == "list[int]"
    assert spec_text(spec_of_value(("a", 1.5))) == "tuple[str, float]"
    assert spec_text(spec_of_value({"a": [1]})) == "dict[str, list[int]]"
    assert spec_text(spec_of_value(True)) == "bool"
    assert spec_of_value(object()) is None


def test_hypothesis_args_are_deterministic_bounded_and_typed() -> None:
    specs = [("list", ("int",)), ("str",), ("dict", ("str",), ("int",))]
    first = hypothesis_args(specs, 12)
    again = hypothesis_args(specs, 12)
    assert first == again
    assert 1 <= len(first) <= 12
    assert len({repr(a) for a in first}) == len(first)
    for xs, s, d in first:
        assert isinstance(xs, list) and len(xs) <= 8
        assert all(isinstance(v, int) and not isinstance(v, bool) and -10 <= v <= 10 for v in xs)
        assert isinstance(s, str) and len(s) <= 16
        assert isinstance(d, dict) and all(isinstance(k, str) for k in d)
    ints = hypothesis_args([("int",)], 10)
    assert all(-5 <= a[0] <= 20 for a in ints)
    assert hypothesis_args([], 5) == []


def test_scaling_series_scales_sequences_and_keeps_other_params() -> None:
    params = [Param("xs", ("list", ("int",)), True), Param("k", ("int",), True)]
    series = scaling_args(params, base=([1, 2], 3), sizes=(8, 64, 512))
    assert [n for n, _ in series] == [8, 64, 512]
    assert [len(args[0]) for _, args in series] == [8, 64, 512]
    assert all(args[1] == 3 for _, args in series)
    assert series == scaling_args(params, base=([1, 2], 3), sizes=(8, 64, 512))
    only_ints = scaling_args([Param("n", ("int",), True)], base=None, sizes=(8, 64))
    assert only_ints == [(8, (8,)), (64, (64,))]
    text = scaling_args([Param("s", ("str",), True)], base=None, sizes=(8,))
    assert len(text[0][1][0]) == 8 and text[0][1][0].isalpha()
    assert scaling_args([Param("x", ("float",), True)], base=None) == []
    assert scaling_args([Param("x", None, False), Param("y", ("str",), True)], None) == []


def test_entry_point_guess_and_broken_code() -> None:
    assert guess_entry_point("def helper():\n    pass\n\ndef main(x):\n    return x\n") == "main"
    assert guess_entry_point("def (:") is None
    assert find_function("def (:", "f") is None


WHOLE_CLASS = '''class Outer:
    class Stack:
        def __init__(self):
            self.items = []

        def push(self, x):
            self.items.append(x)

        def peek_or(self, fallback):
            """The top item, or ``fallback``.

            >>> s = Outer.Stack(); s.push(2); s.push(5); s.peek_or(0)
            5
            """
'''


def test_a_method_of_a_class_is_found_by_its_dotted_name() -> None:
    fn = find_function(WHOLE_CLASS, "Outer.Stack.peek_or")
    assert fn is not None and fn.name == "peek_or" and fn.lineno == 9
    for missing in ("Stack.peek_or", "Outer.Stack.pop", "Outer.Queue.peek_or", "peek_or.x"):
        assert find_function(WHOLE_CLASS, missing) is None


def test_a_whole_class_method_reads_the_examples_of_its_prompt() -> None:
    versions = [model.Version(WHOLE_CLASS + "            return self.items[-1]\n")]
    graded = collect_inputs(VersionSet(task_id="t", versions=versions, prompt=WHOLE_CLASS,
                                       entry_point="Outer.Stack.peek_or"), scaling=False)
    example = graded.cases[0]
    assert (example.test.kind, example.label, example.test.expected, example.graded) == (
        "example", "s = Outer.Stack(); s.push(2); s.push(5); s.peek_or(0)", "5\n", True)
    assert [p.name for p in graded.params] == ["fallback"]
    alone = collect_inputs(VersionSet(task_id="t", versions=versions,
                                      entry_point="Outer.Stack.peek_or"), scaling=False)
    assert alone.cases[0].label == example.label and not alone.cases[0].test.has_expected


def test_collect_inputs_for_a_humaneval_task_in_order() -> None:
    p = humaneval.problem("HumanEval/0")
    ss = VersionSet(task_id="HumanEval/0", versions=[], prompt=p.prompt)
    plan = collect_inputs(ss, hypothesis_examples=5)
    assert plan.entry_point == "has_close_elements"
    assert plan.sources == ["humaneval", "doctest", "edge", "hypothesis", "scaling"]
    he = plan.indices("humaneval")
    assert len(he) == 7 and all(plan.cases[i].graded for i in he)
    assert all(not plan.cases[i].graded
               for i in plan.indices("doctest", "edge", "hypothesis", "scaling"))
    assert [c.size for c in plan.cases if c.source == "scaling"] == [8, 64, 512]
    assert [spec_text(p.spec) for p in plan.params] == ["list[float]", "float"]
    assert plan.cases[0].label == "has_close_elements([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3)"
    order = [c.source for c in plan.cases]
    assert order == sorted(order, key=plan.sources.index)


def test_collect_inputs_with_explicit_tests_and_unannotated_params() -> None:
    code = 'def add(a, b):\n    """\n    >>> add(1, 2)\n    3\n    """\n    return a + b\n'
    tests = [model.TestCase(kind="call", args=(2, 2), expected=4, has_expected=True)]
    ss = VersionSet.from_codes("t", [code], entry_point="add", tests=tests)
    plan = collect_inputs(ss, hypothesis_examples=3, sizes=(8, 64))
    assert plan.sources == ["tests", "doctest", "edge", "hypothesis", "scaling"]
    assert plan.cases[0].graded and not plan.cases[1].graded  # doctests graded only alone
    assert [spec_text(p.spec) for p in plan.params] == ["int", "int"]  # from add(2, 2)
    assert [c.test.args for c in plan.cases if c.source == "scaling"] == [(8, 8), (64, 64)]
    alone = collect_inputs(VersionSet.from_codes("t", [code]), use_hypothesis=False, scaling=False)
    assert alone.entry_point == "add"
    # a generated version's docstring proposes inputs, never expected values
    assert [(c.source, c.graded, c.test.expected) for c in alone.cases] == [
        ("doctest", False, None)
    ]
    current = VersionSet(task_id="t", versions=[model.Version(code, origin="current")])
    mine = collect_inputs(current, use_hypothesis=False, scaling=False)
    assert [(c.source, c.graded, c.test.expected) for c in mine.cases] == [("doctest", True, 3)]
    prompt = VersionSet(task_id="t", versions=[model.Version("def add(a, b):\n    return 0\n")],
                       prompt=code)
    from_prompt = collect_inputs(prompt, use_hypothesis=False, scaling=False)
    assert [c.graded for c in from_prompt.cases] == [True]


def test_collect_inputs_never_runs_candidate_code(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    code = (
        f"open({str(marker)!r}, 'w').write('x')\n"
        "def f(xs: list[int]) -> int:\n"
        f"    open({str(marker)!r}, 'w').write('y')\n"
        "    return len(xs)\n"
    )
    plan = collect_inputs(VersionSet.from_codes("t", [code], entry_point="f"))
    assert plan.sources == ["edge", "hypothesis", "scaling"]
    assert not marker.exists()


def test_stdio_tests_without_signature_keep_only_the_tests() -> None:
    tests = [model.TestCase(kind="stdio", stdin="1\n", expected="1")]
    plan = collect_inputs(VersionSet.from_codes("t", ["print(input())\n"], tests=tests))
    assert plan.sources == ["tests"]
    assert plan.notes


def test_humaneval_split_and_residual_check() -> None:
    zero = humaneval.tests_for("HumanEval/0")
    assert [t.kind for t in zero] == ["call"] * 7
    assert zero[0].args == ([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3)
    assert zero[0].expected is True and zero[0].has_expected
    whole = humaneval.tests_for("HumanEval/0", split=False)
    assert len(whole) == 1 and whole[0].kind == "check"
    poly = humaneval.tests_for("HumanEval/32")
    assert [t.kind for t in poly] == ["check"]
    src = poly[0].source or ""
    # the harness reads the prompt's poly(): the sandbox seeds its namespace from the module
    assert "poly(" in src and "__globals__" not in src
    assert humaneval.entry_point_for("HumanEval/32") == "find_zero"
    with pytest.raises(humaneval.UnknownTaskError):
        humaneval.problem("HumanEval/9999")
    assert not humaneval.is_task("MBPP/1")


def test_split_check_keeps_what_cannot_be_split() -> None:
    source = (
        "def check(candidate):\n"
        "    assert candidate(1, 2) == 3\n"
        "    assert 4 == candidate(2, 2)\n"
        "    assert candidate([1]) is True\n"
        "    assert True, 'debug note'\n"
        "    assert abs(candidate(0.1, 0.2) - 0.3) < 1e-9\n"
        "    for i in range(3):\n"
        "        assert candidate(i, 0) == i\n"
    )
    cases = humaneval.split_check(source)
    calls = [(c.args, c.expected) for c in cases if c.kind == "call"]
    assert calls == [((1, 2), 3), ((2, 2), 4), (([1],), True)]
    residual = [c for c in cases if c.kind == "check"]
    assert len(residual) == 1
    body = residual[0].source or ""
    assert "abs(candidate(0.1, 0.2)" in body and "for i in range(3)" in body
    assert "candidate(1, 2) == 3" not in body and "debug note" not in body
    with_ellipsis = humaneval.split_check("def check(c):\n    assert c(...) == 1\n")
    assert [c.kind for c in with_ellipsis] == ["check"]  # ``...`` cannot cross the pipe
    only_simple = humaneval.split_check("def check(c):\n    assert c(1) == 1\n")
    assert [c.kind for c in only_simple] == ["call"]


def test_hypothesis_writes_nothing_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("HYPOTHESIS_STORAGE_DIRECTORY", raising=False)
    code = "def f(xs: list[int], k: int) -> int:\n    return sum(xs) + k\n"
    plan = collect_inputs(VersionSet.from_codes("t", [code]), hypothesis_examples=5)
    assert plan.indices("hypothesis")
    assert list(tmp_path.iterdir()) == []


def test_a_humaneval_task_without_examples_takes_the_published_ones() -> None:
    from codequorum.ingest import humaneval

    published = humaneval.prompt_for("HumanEval/0")
    stripped = published.split('    """')[0] + '    """Close elements."""\n'
    code = stripped + "    return False\n"
    ss = VersionSet.from_codes("HumanEval/0", [code, code], prompt=stripped)
    plan = collect_inputs(ss, use_hypothesis=False, scaling=False)
    examples = [c for c in plan.cases if c.source == "doctest"]
    assert [c.label for c in examples] == [
        "has_close_elements([1.0, 2.0, 3.0], 0.5)",
        "has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3)"]
    # beside the benchmark's tests they are checked against the documented values only
    assert [(c.graded, c.test.has_expected, c.test.expected) for c in examples] == [
        (False, True, False), (False, True, True)]
    assert any(c.source == "humaneval" and c.graded for c in plan.cases)
    off = collect_inputs(ss, use_hypothesis=False, scaling=False, published_examples=False)
    assert not [c for c in off.cases if c.source == "doctest"]


def test_hidden_tests_only_add_inputs_on_every_humaneval_task() -> None:
    """The inputs an editor has are the same with and without the benchmark's tests: an
    example a hidden test repeats stays an example, and the same arguments are drawn."""
    def editor(plan: InputPlan) -> list[tuple[object, ...]]:
        return [(c.source, c.label, c.test.args, c.test.kwargs, c.test.has_expected,
                 repr(c.test.expected), c.size)
                for c in plan.cases if c.source not in ("tests", "humaneval")]

    repeated = 0
    for task_id, problem in humaneval.problems().items():
        ss = VersionSet.from_codes(task_id, [problem.prompt + problem.canonical_solution],
                                  prompt=problem.prompt)
        hidden = collect_inputs(ss, hypothesis_examples=3)
        alone = collect_inputs(ss, hypothesis_examples=3, humaneval_lookup=lambda _: [])
        assert plan_sources_without_tests(hidden) == alone.sources, task_id
        assert editor(hidden) == editor(alone), task_id
        assert hidden.params == alone.params, task_id
        tests = {c.label for c in hidden.cases if c.source == "humaneval"}
        repeated += sum(1 for c in alone.cases if c.source == "doctest" and c.label in tests)
    assert repeated > 0  # some examples are also hidden tests, and stayed examples


def plan_sources_without_tests(plan: InputPlan) -> list[str]:
    """The plan's sources, the tests' left out."""
    return [s for s in plan.sources if s not in ("tests", "humaneval")]


#: Draws the input plan of a function with text, number and container parameters and
#: prints its labels. ``argv[1]``: a folder whose ``extra_constants`` module is imported
#: first ("-": none); ``argv[2]``: "stock" puts Hypothesis' default provider (which draws
#: constants of the code loaded in the process) behind the backend the inputs use.
_PLAN_SCRIPT = '''
import importlib, json, sys
if sys.argv[1] != "-":
    sys.path.insert(0, sys.argv[1])
    importlib.import_module("extra_constants")
if sys.argv[2] == "stock":
    from hypothesis.internal.conjecture.providers import AVAILABLE_PROVIDERS, HypothesisProvider
    from codequorum.behaviour.seeded_draws import plain_backend
    AVAILABLE_PROVIDERS[plain_backend()] = HypothesisProvider
from codequorum.behaviour.input_plan import collect_inputs
from codequorum.core.model import VersionSet
code = (
    "def f(words: list[str], name: str, scale: float, table: dict[str, float]) -> int:\\n"
    "    return len(words) + len(name) + int(scale) + len(table)\\n"
)
plan = collect_inputs(VersionSet.from_codes("t", [code]), hypothesis_examples=40)
print(json.dumps([case.label for case in plan.cases]))
'''


def _plan_labels(extra: Path | None, backend: str = "plain") -> list[str]:
    import json
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", _PLAN_SCRIPT, str(extra) if extra else "-", backend],
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout
    labels: list[str] = json.loads(out)
    return labels


def test_generated_inputs_do_not_depend_on_constants_in_the_loaded_code(tmp_path: Path) -> None:
    """A module of new string and float constants (as a change anywhere in codequorum
    would add) changes no drawn input; with Hypothesis' default provider behind the same
    backend the same module does, so the test sees what it guards against."""
    words = [f"{'abcdefghij'[i % 10]}{'KLMNOPQRST'[i // 10 % 10]}{i}" for i in range(300)]
    (tmp_path / "extra_constants.py").write_text(
        "".join(f"W{i} = {w!r}\n" for i, w in enumerate(words))
        + "".join(f"F{i} = {i * 0.37 + 1.5}\n" for i in range(200)),
        encoding="utf-8",
    )
    plain = _plan_labels(None)
    assert len([label for label in plain if label.startswith("f(")]) >= 40
    assert _plan_labels(tmp_path) == plain
    assert _plan_labels(tmp_path, "stock") != _plan_labels(None, "stock")


def test_optional_parameters_of_a_known_type_are_passed_other_values() -> None:
    """asyncstdlib's ``sum(iterable, start=0)`` and ``enumerate(iterable, start: int = 0)``:
    a version that ignores ``start`` agreed with the others on every drawn input, which
    all left ``start`` at its default."""
    code = ("def total(xs: list[int], start: Any = 0, *, sep: str = ', ', key=None):\n"
            "    return sum(xs, start)\n")
    plan = collect_inputs(VersionSet.from_codes("t", [code], entry_point="total"),
                          hypothesis_examples=3, scaling=False)
    passed = {tuple(c.test.kwargs) for c in plan.cases if c.test.kwargs}
    assert passed == {("start",), ("sep",)}  # ``key=None``: no type to draw from
    starts = [c for c in plan.cases if "start" in c.test.kwargs]
    # ``Any`` is wider than the default's type: ``start=''`` would make every version raise
    assert starts and all(type(c.test.kwargs["start"]) is int and c.test.kwargs["start"] != 0
                          and c.origin == "edge" for c in starts)
    assert starts[0].label.startswith("total([") and "start=" in starts[0].label
    # the required list is held at an ordinary value, never empty: an empty iterable hides
    # what ``start`` changes (asyncstdlib's ``enumerate``)
    assert all(len(c.test.args[0]) == 1 for c in plan.cases if c.test.kwargs)


#: boltons 26.2's ``strutils.ordinalize`` (BSD): its examples print the call's result.
ORDINALIZE = '''def ordinalize(number, ext_only=False):
    """Turns *number* into its cardinal form, i.e., 1st, 2nd, 3rd, 4th, etc.

    >>> print(ordinalize(1))
    1st
    >>> print(ordinalize(3694839230))
    3694839230th
    >>> print(ordinalize('hi'))
    hi
    """
    numstr, ext = str(number), ''
    if numstr and numstr[-1] in string.digits:
        try:
            if numstr[-2] == '1':
                ext = 'th'
            else:
                ext = _ORDINAL_MAP.get(numstr[-1], 'th')
        except IndexError:
            ext = _ORDINAL_MAP.get(numstr[-1], 'th')
    if ext_only:
        return ext
    else:
        return numstr + ext
'''


def test_examples_that_print_the_call_give_its_parameters_types() -> None:
    """``print(ordinalize(1))``: the call inside the example tells that ``number`` takes an
    int, so the run gets the int's edge values and draws, not only the three examples."""
    version_set = VersionSet(task_id="t", entry_point="ordinalize",
                             versions=[model.Version(code=ORDINALIZE, origin="current")])
    plan = collect_inputs(version_set)
    assert [c.source for c in plan.cases][:3] == ["doctest"] * 3
    assert [p.spec for p in plan.params][:1] == [spec_of_value(1)]
    labels = [c.label for c in plan.cases]
    assert {"ordinalize(0)", "ordinalize(-1)", "ordinalize(1, ext_only=True)"} <= set(labels)
    assert "parameter types unknown: no generated inputs" not in plan.notes


def test_a_function_without_required_parameters_is_called_once_and_its_options_varied(
        ) -> None:
    """Nothing to draw was read as "parameter types unknown", so such a function never
    ran (boltons' ``reseed``, markupsafe's ``Markup.lower``): it is called once, and each
    optional parameter of a known type passed other values."""
    plain = collect_inputs(VersionSet.from_codes("t", ["def f():\n    return 1\n"],
                                                 entry_point="f"))
    assert [c.label for c in plain.cases] == ["f()"] and plain.notes == []
    options = collect_inputs(VersionSet.from_codes(
        "t", ["def f(size=24):\n    return size\n"], entry_point="f"))
    assert [c.label for c in options.cases] == ["f()", "f(size=0)", "f(size=1)"]
    shown = collect_inputs(VersionSet.from_codes(
        "t", ['def f():\n    """\n    >>> f()\n    1\n    """\n    return 1\n'],
        entry_point="f"))
    assert [(c.source, c.label) for c in shown.cases] == [("doctest", "f()")]


EMAILS = [
    "import re\n\ndef is_email(s: str, strict: bool) -> bool:\n"
    "    return re.fullmatch(r'[\\w.+-]+@[\\w-]+\\.[a-z]{2,}', s) is not None\n",
    "import re\nEMAIL = re.compile(r'[^@ ]+@[^@ ]+')\n\n"
    "def is_email(s: str, strict: bool) -> bool:\n"
    "    return bool(EMAIL.fullmatch(s))\n",
]


def test_a_string_a_version_searches_with_a_pattern_takes_strings_of_it_and_near_misses(
) -> None:
    plan = collect_inputs(VersionSet.from_codes("t", EMAILS, entry_point="is_email"))
    drawn = [c.test.args for c in plan.cases if c.source == "hypothesis"]
    from_patterns = [a for a in drawn if "@" in a[0]]
    # each pattern's shortest match and its richest, then the first's near misses; the
    # other parameter held
    assert from_patterns == [
        ("0@0.aa", True), ("vX1l0cb8SIra@y_eQ.trozsffvcye", True), ("0@0.a", True),
        ("0@0.aa ", True), ("0@0", True), ("`h?goUnYVHv8A@4", True), ("0@", True),
        ("0@0 ", True)]
    again = collect_inputs(VersionSet.from_codes("t", EMAILS, entry_point="is_email"))
    assert [c.label for c in again.cases] == [c.label for c in plan.cases]
