"""What a Python test file's assertions say calls give."""

from __future__ import annotations

import ast

from codequorum.behaviour.expectations import Expectation, expectations, truths


def _said(source: str) -> dict[str, Expectation]:
    tree = ast.parse(source)
    calls = {id(n): ast.unparse(n) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    resolved = {calls[k]: v.resolve() for k, v in expectations(tree).items()}
    return {k: v for k, v in resolved.items() if v is not None}


def test_asserted_equalities_give_expected_values_either_side() -> None:
    said = _said("assert f(2) == 4\nassert [1] == f(3)\nassert f(4) is None\n"
                 "assert f(5) is True\n")
    assert said == {"f(2)": Expectation(4), "f(3)": Expectation([1]),
                    "f(4)": Expectation(None), "f(5)": Expectation(True)}


def test_what_says_nothing_is_left_out() -> None:
    said = _said("assert f(2) != 4\nassert f(3)\nassert f(4) == g(1)\nassert f(5) is 7\n"
                 "assert f(6) == pytest.approx(1.5)\nassert 1 < f(7) < 3\nassert f(8) == x\n")
    assert said == {}


def test_unittest_assertions_are_read_in_either_order() -> None:
    said = _said("class T:\n    def test(self):\n        self.assertEqual(f(1), 'a')\n"
                 "        self.assertEqual((1, 2), f(2))\n        self.assertIsNone(f(3))\n"
                 "        self.assertIs(f(4), False)\n        self.assertTrue(f(5))\n"
                 "        self.assertEqual(f(6), 1, msg='x')\n")
    assert said == {"f(1)": Expectation("a"), "f(2)": Expectation((1, 2)),
                    "f(3)": Expectation(None), "f(4)": Expectation(False)}


def test_a_block_that_must_raise_names_its_class() -> None:
    said = _said(
        "with pytest.raises(ValueError):\n    f(-1)\n"
        "with pytest.raises(errors.ParseError, match='x'):\n    y = f('')\n"
        "with self.assertRaises((TypeError, KeyError)):\n    f(None)\n"
        "with pytest.raises(ValueError):\n    f(1)\n    f(2)\n"
        "with open('x') as fh:\n    f(3)\n")
    assert said == {"f(-1)": Expectation(raises="ValueError"),
                    "f('')": Expectation(raises="ParseError"),
                    "f(None)": Expectation(raises="")}


def test_an_assertion_inside_a_block_that_must_raise_says_the_call_raises() -> None:
    """semver's ``with pytest.raises(TypeError, match=...): assert replace("1.2.3",
    unknown=...)``: the call raises before the assertion is reached; nothing says it is
    true."""
    source = ("with pytest.raises(TypeError, match='x'):\n    assert f('1.2.3', unknown=1)\n"
              "with pytest.raises(ValueError):\n    assert f(2) == 3\n"
              "with pytest.raises(KeyError):\n    assert not f(4)\n")
    assert _said(source) == {"f('1.2.3', unknown=1)": Expectation(raises="TypeError"),
                             "f(2)": Expectation(raises="ValueError"),
                             "f(4)": Expectation(raises="KeyError")}
    assert truths(ast.parse(source)) == []


def test_the_expected_side_is_read_with_a_cases_bindings() -> None:
    tree = ast.parse("assert f(x) == want\nassert f(y) is want")
    [first, second] = [expectations(tree)[id(n)] for n in ast.walk(tree)
                       if isinstance(n, ast.Call)]
    assert first.resolve() is None  # ``want`` is no literal until a case binds it
    assert first.resolve({"want": [1, 2]}) == Expectation([1, 2])
    assert second.resolve({"want": None}) == Expectation(None)
    assert second.resolve({"want": 3}) is None  # ``is`` with a number says nothing sure


def test_the_float_specials_are_literals_as_tests_write_them() -> None:
    import math

    from codequorum.behaviour.expectations import literal

    def read(text: str) -> tuple[bool, object]:
        return literal(ast.parse(text, mode="eval").body)

    assert read("float('inf')") == (True, math.inf)
    assert read("-math.inf") == (True, -math.inf)
    assert read("float(' -Infinity')") == (True, -math.inf)
    ok, nan = read("float('nan')")
    assert ok and isinstance(nan, float) and math.isnan(nan)
    assert read("float('1.5')") == (False, None)
    assert read("math.pi") == (False, None)


def test_a_name_holding_a_calls_result_is_that_call() -> None:
    said = _said("def test_a():\n    result = f(2)\n    assert result == 4\n"
                 "    other = f(3)\n    other.append(1)\n    assert other == [1]\n"
                 "    value = f(4)\n    self.assertEqual(value, 'x')\n"
                 "    assert value is not None\n"
                 "def test_b():\n    assert result == 9\n")
    assert said == {"f(2)": Expectation(4), "f(4)": Expectation("x")}


def test_arithmetic_of_literals_is_a_literal_bounded() -> None:
    from codequorum.behaviour.expectations import literal

    def read(text: str) -> tuple[bool, object]:
        return literal(ast.parse(text, mode="eval").body, {"n": 3})

    assert read("60 * 1000") == (True, 60000)
    assert read("2 ** 10 - 1") == (True, 1023)
    assert read("-7 // 2") == (True, -4)
    assert read("'a' + 'b'") == (True, "ab")
    assert read("n * 2") == (True, 6)  # a case's name bound
    assert read("1 / 0") == (False, None)
    assert read("2 ** 1000") == (False, None)
    assert read("10 ** 200") == (False, None)
    assert read("'a' * 3") == (False, None)
    assert read("x + 1") == (False, None)
    assert read(" + ".join(["1"] * 900)) == (False, None)  # no recursion on a long chain


def test_a_long_run_of_minus_signs_is_read_without_recursion() -> None:
    from codequorum.behaviour.expectations import literal

    node = ast.parse("-" * 900 + "math.inf", mode="eval").body
    assert literal(node) == (True, float("inf"))


def test_only_the_latest_names_are_held() -> None:
    from codequorum.behaviour.expectations import MAX_HELD

    lines = [f"    r{i} = f({i})" for i in range(5000)]
    said = _said("def test_a():\n" + "\n".join(lines)
                 + "\n    assert r0 == 0\n    assert r4999 == 4999\n")
    assert said == {"f(4999)": Expectation(4999)}  # r0 was let go long before
    assert MAX_HELD == 16


def test_what_an_assertion_says_is_true_or_false_is_read_as_a_truth() -> None:
    """``assert f(1)``, ``assert not f(2)``, ``assert f(3) > 0``, ``assertTrue``,
    ``assertFalse`` and ``assertIn``-style comparisons; ``assert f(4) == 1`` is an
    expectation, not a truth."""
    tree = ast.parse("assert f(1)\nassert not f(2)\nassert f(3) > 0\nassert f(4) == 1\n"
                      "self.assertTrue(f(5))\nself.assertFalse(f(6))\n"
                      "self.assertIn(7, f(7))\nself.assertLess(f(8), 9)\n"
                      "self.assertIsNotNone(f(10))\nself.assertIsInstance(f(11), int)\n"
                      "self.assertCountEqual(f(12), [1, 2])\nself.assertNotEqual(f(13), 0)\n")
    said = [(ast.unparse(node), wanted) for node, wanted in truths(tree)]
    assert sorted(said) == sorted([("f(1)", True), ("f(2)", False), ("f(3) > 0", True),
                                   ("f(5)", True), ("f(6)", False), ("7 in f(7)", True),
                                   ("f(8) < 9", True), ("f(10) is not None", True),
                                   ("isinstance(f(11), int)", True),
                                   ("sorted(f(12), key=repr) == sorted([1, 2], key=repr)", True),
                                   ("f(13) != 0", True)])


def test_an_inline_snapshot_s_value_is_the_expected_value() -> None:
    """``inline-snapshot``: ``assert f(1) == snapshot("a-b")`` expects ``"a-b"``; an empty
    ``snapshot()`` (not yet filled in) says nothing."""
    tree = ast.parse("assert f(1) == snapshot('a-b')\nassert f(2) == snapshot()\n")
    said = {ast.unparse(next(n for n in ast.walk(tree) if id(n) == k)): v.resolve()
            for k, v in expectations(tree).items()}
    assert said == {"f(1)": Expectation("a-b")}


def test_approx_and_almost_equal_are_read_as_the_comparisons_they_make() -> None:
    """``X == pytest.approx(v)`` (``rel=``/``abs=``, either side) and unittest's
    ``assertAlmostEqual`` (``places=``) become comparisons that run without pytest;
    ``approx`` of a sequence or of a value that is not a finite number stays as written."""
    tree = ast.parse("assert f(1) == pytest.approx(0.3)\n"
                     "assert approx(2.5, rel=0.01) == f(2)\n"
                     "assert f(3) == pytest.approx([1, 2])\n"
                     "self.assertAlmostEqual(f(4), 0.1)\n"
                     "self.assertAlmostEqual(f(5), 0.1, places=3)\n"
                     "assert f(6) == approx(float('inf'))\n")
    said = [(ast.unparse(node), wanted) for node, wanted in truths(tree)]
    assert sorted(said) == sorted([
        ("abs(f(1) - 0.3) <= max(1e-06 * abs(0.3), 1e-12)", True),
        ("abs(f(2) - 2.5) <= max(0.01 * abs(2.5), 1e-12)", True),
        ("f(3) == pytest.approx([1, 2])", True), ("round(f(4) - 0.1, 7) == 0", True),
        ("round(f(5) - 0.1, 3) == 0", True), ("f(6) == approx(float('inf'))", True)])
