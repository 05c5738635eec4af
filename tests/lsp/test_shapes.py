"""A command's arguments are checked as they arrived, before any conversion: type, list
length, string size, object keys; the first problem says where it is."""

from __future__ import annotations

from typing import Any

import pytest

from codequorum.core.limits import MAX_ARGUMENT_CHARS, MAX_ARGUMENT_ITEMS, MAX_VERSION_BYTES
from codequorum.lsp import contract as c
from codequorum.lsp.shapes import camel, shape_problem

URI = "file:///w/a.py"


@pytest.mark.parametrize(("value", "said"), [
    ({"uri": URI, "versions": "x" * 10_000_000}, "$.versions: expected a list, got a string"),
    ({"uri": URI, "versions": [0] * (MAX_ARGUMENT_ITEMS + 1)},
     f"$.versions: {MAX_ARGUMENT_ITEMS + 1:,} items, at most {MAX_ARGUMENT_ITEMS:,}"),
    ({"uri": URI, "versions": ["x" * (MAX_VERSION_BYTES + 1)]},
     f"$.versions[0]: {MAX_VERSION_BYTES + 1:,} characters, at most {MAX_VERSION_BYTES:,}"),
    ({"uri": URI, "versions": ["ok", {"code": "x", "seed": "7"}]},
     "$.versions[1].seed: expected a whole number or null, got a string"),
    ({"uri": URI, "versions": [7]}, "$.versions[0]: expected a code string or an object, got "
     "a number"),
    ({"uri": "u" * (MAX_ARGUMENT_CHARS + 1)},
     f"$.uri: {MAX_ARGUMENT_CHARS + 1:,} characters, at most {MAX_ARGUMENT_CHARS:,}"),
    ({"uri": URI, "qualifiedName": ["f"]}, "$.qualifiedName: expected a string or null, got a "
     "list"),
    ({"uri": URI, "position": {"line": "1", "character": 0}},
     "$.position.line: expected a whole number, got a string"),
    ({"uri": URI, "position": {"line": True, "character": 0}},
     "$.position.line: expected a whole number, got true or false"),
    ({"uri": URI, **{f"k{i}": 0 for i in range(100)}}, "$: 101 keys, at most 64"),
    ([URI], "$: expected an object, got a list"),
])
def test_a_value_that_does_not_fit_is_one_reason(value: Any, said: str) -> None:
    assert shape_problem(c.AddVersionsArgs, value) == said


def test_values_that_fit_pass_and_each_field_keeps_its_own_bound() -> None:
    fits = {"uri": URI, "qualifiedName": "Cart.total", "position": {"line": 1, "character": 2},
            "versions": ["def f(): pass", {"code": "x", "model": "m", "temperature": 1}]}
    assert shape_problem(c.AddVersionsArgs, fits) is None
    content = "x" * (MAX_ARGUMENT_CHARS * 4)  # a file's text: its own, larger bound
    assert shape_problem(c.ImportVersionFileArgs, {"uri": URI, "content": content}) is None
    assert shape_problem(c.ImportVersionFileArgs, {"uri": URI, "path": content}) is not None
    assert shape_problem(c.ShowVersionArgs, {"uri": URI, "version": "consensus"}) is None
    assert shape_problem(c.ShowVersionArgs, {"uri": URI, "version": [1]}) == (
        "$.version: expected a whole number or a string or null, got a list")
    assert camel("endpoint_confirmed") == "endpointConfirmed"


def test_the_positional_form_is_counted_before_it_is_copied() -> None:
    with pytest.raises(c.ArgumentError, match="at most 3 arguments, got 10,000,000"):
        c.normalize("codequorum.addVersions", [URI] * 10_000_000)
    with pytest.raises(c.ArgumentError, match="100 keys, at most 64"):
        c.normalize("codequorum.addVersions", [URI, {f"k{i}": 0 for i in range(100)}])
