"""The literals a test holds in names where it calls the function."""

from __future__ import annotations

import ast

from codequorum.behaviour.local_literals import held_literals


def _held(source: str) -> list[tuple[str, dict[str, object]]]:
    tree = ast.parse(source)
    found = held_literals(tree)
    return [(ast.unparse(n), found.get(id(n), {})) for n in ast.walk(tree)
            if isinstance(n, ast.Call) and ast.unparse(n).startswith("f(")]


def test_a_name_holds_the_literal_assigned_last_before_the_call() -> None:
    held = _held("def test_a(self):\n    txt = 'a b'\n    r = f(txt)\n"
                 "    txt = 'c' + 'd'\n    n: int = 3\n    f(txt, n)\n    txt = g()\n    f(txt)\n")
    assert sorted(held, key=lambda h: str(h[1])) == sorted([
        ("f(txt)", {"txt": "a b"}), ("f(txt, n)", {"txt": "cd", "n": 3}), ("f(txt)", {"n": 3})],
        key=lambda h: str(h[1]))


def test_a_name_a_block_or_a_loop_assigns_holds_nothing_after_it() -> None:
    held = _held("def test_b():\n    x = 1\n    if cond:\n        x = 2\n        f(x, 'in')\n"
                 "    f(x, 'after')\n    for x in range(3):\n        f(x, 'loop')\n"
                 "    y = [1, 2]\n    with ctx() as y:\n        f(y)\n")
    assert dict((call, h) for call, h in held) == {
        "f(x, 'in')": {"x": 2}, "f(x, 'after')": {}, "f(x, 'loop')": {}, "f(y)": {}}


def test_a_name_holding_a_name_and_another_tests_names_are_apart() -> None:
    held = _held("def test_c():\n    a = 5\n    b = a\n    f(b)\n\n"
                 "def test_d():\n    f(a, b)\n")
    assert dict(held) == {"f(b)": {"a": 5, "b": 5}, "f(a, b)": {}}
