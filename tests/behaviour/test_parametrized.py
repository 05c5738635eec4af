"""The cases of a parametrized Python test."""

from __future__ import annotations

import ast

from codequorum.behaviour.parametrized import MAX_CASES, case_bindings, decorated_cases


def _cases(source: str) -> list[dict[str, object]]:
    fn = ast.parse(source).body[0]
    assert isinstance(fn, (ast.FunctionDef, ast.ClassDef))
    return decorated_cases(fn.decorator_list)


def test_each_case_binds_its_names() -> None:
    assert _cases("@pytest.mark.parametrize('text, want', [('a b', 'a-b'), ('', '')])\n"
                  "def test(text, want): pass\n") == [
        {"text": "a b", "want": "a-b"}, {"text": "", "want": ""}]
    assert _cases("@mark.parametrize(['n'], (1, 2, [3]))\ndef test(n): pass\n") == [
        {"n": 1}, {"n": 2}, {"n": [3]}]


def test_pytest_param_is_unwrapped_and_a_failing_mark_leaves_the_case_out() -> None:
    assert _cases("@pytest.mark.parametrize('a,b', [pytest.param(1, 2, id='x'),\n"
                  "    pytest.param(3, 4, marks=pytest.mark.xfail), (5, 6)])\n"
                  "def test(a, b): pass\n") == [{"a": 1, "b": 2}, {"a": 5, "b": 6}]


def test_a_value_that_is_no_literal_leaves_its_name_unbound() -> None:
    assert _cases("@pytest.mark.parametrize('a,b', [(x, 2), (1, 2, 3)])\n"
                  "def test(a, b): pass\n") == [{"b": 2}]


def test_what_cannot_be_read_binds_nothing() -> None:
    assert _cases("@pytest.mark.parametrize('a', [1], indirect=True)\ndef test(a): pass\n") \
        == [{}]
    assert _cases("@pytest.mark.parametrize(NAMES, CASES)\ndef test(a): pass\n") == [{}]
    assert _cases("def test(a): pass\n") == [{}]


def test_stacked_decorators_and_a_class_multiply() -> None:
    source = ("@pytest.mark.parametrize('a', [1, 2])\nclass TestF:\n"
              "    @pytest.mark.parametrize('b', ['x', 'y'])\n"
              "    def test(self, a, b):\n        assert f(a, b) == 1\n")
    tree = ast.parse(source)
    [call] = [n for n in ast.walk(tree) if isinstance(n, ast.Call)
              and isinstance(n.func, ast.Name) and n.func.id == "f"]
    assert case_bindings(tree)[id(call)] == [{"a": 1, "b": "x"}, {"a": 1, "b": "y"},
                                             {"a": 2, "b": "x"}, {"a": 2, "b": "y"}]


def test_cases_are_bounded() -> None:
    rows = ", ".join(str(i) for i in range(MAX_CASES * 2))
    assert len(_cases(f"@pytest.mark.parametrize('a', [{rows}])\ndef test(a): pass\n")) \
        == MAX_CASES


def _bound(source: str) -> dict[str, list[dict[str, object]]]:
    tree = ast.parse(source)
    found = case_bindings(tree)
    return {ast.unparse(n): found[id(n)] for n in ast.walk(tree)
            if isinstance(n, ast.Call) and ast.unparse(n).startswith("f(") and id(n) in found}


def test_a_table_the_module_names_and_a_loop_over_a_table_give_cases() -> None:
    assert _bound("CASES = [(1, 2), (3, 4)]\n\n"
                  "@pytest.mark.parametrize('x, want', CASES)\ndef test_a(x, want):\n"
                  "    assert f(x) == want\n") == {"f(x)": [{"x": 1, "want": 2},
                                                          {"x": 3, "want": 4}]}
    assert _bound("ROWS = ((5, 'a'),)\n\ndef test_b():\n    for n, s in ROWS:\n"
                  "        assert f(n) == s\n    for k in [7, 8]:\n        f(k)\n"
                  "    for q in range(3):\n        f(q, 1)\n") == {
        "f(n)": [{"n": 5, "s": "a"}], "f(k)": [{"k": 7}, {"k": 8}]}


def test_a_table_in_the_test_a_dicts_items_and_its_keys_give_cases() -> None:
    """``cases`` assigned inside the test, ``for text, want in TESTS.items()`` and ``for
    text in TESTS:`` (the dict bound by its name, so that ``TESTS[text]`` reads the
    value); a test's own table shadows the module's, and a name assigned twice names none."""
    tests = {"a b": "a-b", "": ""}
    assert _bound("def test_a():\n    cases = [(1, 2)]\n    for x, want in cases:\n"
                  "        assert f(x) == want\n") == {"f(x)": [{"x": 1, "want": 2}]}
    assert _bound("TESTS = {'a b': 'a-b', '': ''}\n\ndef test_b():\n"
                  "    for text, want in TESTS.items():\n        assert f(text) == want\n"
                  "    for t in TESTS:\n        assert f(t, 0) == TESTS[t]\n") == {
        "f(text)": [{"text": "a b", "want": "a-b"}, {"text": "", "want": ""}],
        "f(t, 0)": [{"t": "a b", "TESTS": tests}, {"t": "", "TESTS": tests}]}
    # each test's own table, shadowing the module's; a name a test assigns twice: none
    assert _bound("T = [(0,)]\n\ndef test_c():\n    T = [(1,)]\n    for (x,) in T:\n"
                  "        f(x)\n\ndef test_d():\n    for (y,) in T:\n        f(y)\n\n"
                  "def test_e():\n    T = [(2,)]\n    T = [(3,)]\n    for z in T:\n"
                  "        f(z)\n") == {"f(x)": [{"x": 1}], "f(y)": [{"y": 0}]}


def test_a_row_is_read_by_its_key_or_index_where_the_assertion_reads_it() -> None:
    from codequorum.behaviour.expectations import literal

    def read(expr: str, bound: dict[str, object]) -> tuple[bool, object]:
        return literal(ast.parse(expr, mode="eval").body, bound)

    bound: dict[str, object] = {"row": ("in", None), "T": {"a": [1, 2]}, "k": "a"}
    assert read("row[1]", bound) == (True, None) and read("T[k][1]", bound) == (True, 2)
    assert read("T['b']", bound) == (False, None) and read("row[5]", bound) == (False, None)
    assert read("other[0]", bound) == (False, None) and read("row[0:1]", bound) == (False, None)
