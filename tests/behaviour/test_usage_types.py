"""A parameter's type from how the versions use it."""

from __future__ import annotations

import ast

from codequorum.behaviour.usage_types import usage_spec


def _spec(*bodies: str, name: str = "p") -> object:
    fns = []
    for body in bodies:
        node = ast.parse(f"def f({name}):\n" + "".join(f"    {line}\n" for line in
                                                        body.splitlines())).body[0]
        assert isinstance(node, ast.FunctionDef)
        fns.append(node)
    return usage_spec(fns, name)


def test_each_use_asks_for_its_kind() -> None:
    assert _spec("return p[0]") == ("list", ("int",))
    assert _spec("return len(p)") == ("list", ("int",))
    assert _spec("for x in p:\n    pass") == ("list", ("int",))
    assert _spec("return p + 1") == ("int",)
    assert _spec("return p / 2") == ("float",)
    assert _spec("return range(p)") == ("int",)
    assert _spec("return p.lower()") == ("str",)
    assert _spec("return p + '!'") == ("str",)
    assert _spec("return list(p.items())") == ("dict", ("str",), ("int",))
    assert _spec("p.append(1)") == ("list", ("int",))
    assert _spec("return float(p) - m") == ("float",)
    assert _spec("return math.isnan(p)") == ("float",)
    assert _spec("return int(p)") == ("int",)


def test_the_strongest_use_over_all_versions_wins_and_nothing_telling_is_none() -> None:
    assert _spec("return p[0]", "return p.strip()") == ("str",)
    assert _spec("return p[0] + 1") == ("list", ("int",))
    assert _spec("return q(p)") is None
    assert _spec("return p") is None
    assert _spec("return p + q") is None and _spec("return p * q") == ("int",)


def test_an_async_functions_iterated_parameter_is_a_list() -> None:
    """asyncstdlib's ``sum(iterable, start=0)`` (``async for item in aiter(iterable)``, an
    alias hint the inputs cannot draw) got no input at all."""
    for body in ("async for x in p:\n        pass", "async for x in aiter(p):\n        pass",
                 "return [x async for x in p]"):
        node = ast.parse(f"async def f(p):\n    {body}\n").body[0]
        assert isinstance(node, ast.AsyncFunctionDef)
        assert usage_spec([node], "p") == ("list", ("int",)), body
