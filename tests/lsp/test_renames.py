"""Which rename turns one list of qualified names into another."""

from __future__ import annotations

import pytest

from codequorum.lsp.server import rename_between


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        (["f", "g"], ["f", "h"], ("g", "h")),
        (["f", "A.x", "A.y"], ["f", "B.x", "B.y"], ("A", "B")),
        (["A.m.inner"], ["A.n.inner"], ("A.m.inner", "A.n.inner")),
        (["A.m", "A.m.inner"], ["A.n", "A.n.inner"], ("A.m", "A.n")),
        (["A.x", "A.y"], ["B.x", "C.y"], None),  # two different renames
        (["a", "b"], ["c", "d"], None),
        (["a"], ["a", "b"], None),  # an added function is not a rename
        (["a", "b"], ["a"], None),
        (["a"], ["a"], None),
    ],
)
def test_rename_between(before: list[str], after: list[str], expected: object) -> None:
    assert rename_between(before, after) == expected
