"""Which calls of a Python test file run in a plain state."""

from __future__ import annotations

import ast

from codequorum.behaviour.plain_tests import plain_calls


def _plain(source: str, name: str = "f") -> list[str]:
    tree = ast.parse(source)
    ids = plain_calls(tree, name)
    return [ast.unparse(n) for n in ast.walk(tree)
            if isinstance(n, ast.Call) and id(n) in ids and ast.unparse(n).startswith("f(")]


def test_calls_before_anything_foreign_are_plain() -> None:
    assert _plain("def test_a():\n    assert f(1) == 2\n    assert f(float('nan')) == 0\n"
                  "    with pytest.raises(ValueError):\n        f(-1)\n"
                  "    i18n.activate('fr')\n    assert f(1) == '1er'\n"
                  "def test_b():\n    assert f(2) == 3\n") == [
        "f(1)", "f(float('nan'))", "f(-1)", "f(2)"]


def test_a_test_with_fixtures_or_set_up_is_not_plain() -> None:
    assert _plain("def test_a(monkeypatch):\n    assert f(1) == 2\n") == []
    assert _plain("@pytest.mark.parametrize('x', [1])\ndef test_a(x):\n    assert f(x) == 2\n") \
        == ["f(x)"]
    assert _plain("class T(unittest.TestCase):\n    def setUp(self):\n        reset()\n"
                  "    def test(self):\n        self.assertEqual(f(1), 2)\n") == []
    assert _plain("class T(unittest.TestCase):\n"
                  "    def test(self):\n        self.assertEqual(f(1), 2)\n") == ["f(1)"]


def test_a_file_with_an_autouse_fixture_has_nothing_plain() -> None:
    assert _plain("@pytest.fixture(autouse=True)\ndef reset():\n    yield\n"
                  "def test_a():\n    assert f(1) == 2\n") == []


def test_a_try_reads_in_order_and_a_with_of_something_else_taints() -> None:
    assert _plain("def test_a(locale):\n    pass\n"
                  "def test_b():\n    try:\n        activate('fr')\n    except OSError:\n"
                  "        pass\n    else:\n        assert f(1) == 'x'\n"
                  "def test_c():\n    with mock.patch('time.time'):\n        assert f(3) == 1\n"
                  "def test_d():\n    for x in range(3):\n        assert f(4) == 4\n") == ["f(4)"]
