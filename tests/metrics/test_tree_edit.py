"""TSED: reference values, the published implementation itself, and edit distance checks."""

from __future__ import annotations

import json
import math
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codequorum.core.parsing import get_parser
from codequorum.metrics.tree_edit import (
    PUBLISHED_COSTS,
    UNIT_COSTS,
    TsedTree,
    build_tree,
    sexp_tree,
    tree_edit_distance,
    tsed,
    tsed_from_distance,
    tsed_matrix,
    tsed_tree_matrix,
    tsed_trees,
)

COSTS = {"tsed_1_1_1": UNIT_COSTS, "tsed_1_08_1": PUBLISHED_COSTS}


@pytest.fixture(scope="module")
def structural(reference_dir: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((reference_dir / "structural.json").read_text())
    return data


def _pair_cases(structural: dict[str, Any]) -> Iterator[tuple[str, str, str, str, float]]:
    for pair in structural["pairs"]:
        for direction, (a, b) in (("AB_tsed", ("A", "B")), ("BA_tsed", ("B", "A"))):
            for key, value in pair[direction].items():
                yield pair[a], pair[b], pair["lang"], key, value


def test_reference_pairs_both_directions(structural: dict[str, Any]) -> None:
    cases = list(_pair_cases(structural))
    assert len(cases) == 12
    for a, b, lang, key, expected in cases:
        assert tsed(a, b, lang, COSTS[key]) == pytest.approx(expected, abs=1e-9), key


def test_published_costs_are_directional(structural: dict[str, Any]) -> None:
    pair = next(p for p in structural["pairs"] if p["name"] == "ifelse")
    ab = tsed(pair["A"], pair["B"], "python", PUBLISHED_COSTS)
    ba = tsed(pair["B"], pair["A"], "python", PUBLISHED_COSTS)
    assert ab == pytest.approx(0.70625, abs=1e-12)
    assert ba == pytest.approx(0.675, abs=1e-12)


def test_reference_five_samples_unordered_mean(structural: dict[str, Any]) -> None:
    five = structural["five_samples"]
    iu = np.triu_indices(len(five["samples"]), 1)
    for key, costs in COSTS.items():
        matrix = tsed_matrix(five["samples"], five["lang"], costs)
        assert matrix.shape == (5, 5)
        assert np.all(np.diag(matrix) == 1.0)
        assert float(matrix[iu].mean()) == pytest.approx(five["unordered_mean"][key], abs=1e-9)
        # every entry agrees with the pair function, in its direction
        for i in range(5):
            for j in range(5):
                if i != j:
                    expected = tsed(five["samples"][i], five["samples"][j], "python", costs)
                    assert matrix[i, j] == pytest.approx(expected, abs=1e-12)


def test_matrix_threads_and_prebuilt_trees_give_the_same_values(
    structural: dict[str, Any],
) -> None:
    versions = structural["five_samples"]["samples"]
    trees = [build_tree(s, "python") for s in versions]
    for costs in (UNIT_COSTS, PUBLISHED_COSTS):
        serial = tsed_matrix(versions, "python", costs)
        np.testing.assert_array_equal(tsed_matrix(versions, "python", costs, workers=2), serial)
        np.testing.assert_array_equal(tsed_tree_matrix(trees, costs), serial)


def test_matrix_with_repeated_samples() -> None:
    a = "def f(x):\n    return x + 1\n"
    b = "def f(x):\n    y = x + 1\n    return y\n"
    a_same_tree = "def  f( x ):\n    return x+1\n"
    a_commented = "def f(x):  # one more node\n    return x + 1\n"
    ta, ts = build_tree(a, "python"), build_tree(a_same_tree, "python")
    assert ta.left is not None and ts.left is not None
    assert ta.left.labels == ts.left.labels
    codes = [a, b, a, a_same_tree, a_commented, b, ""]
    for costs in (UNIT_COSTS, PUBLISHED_COSTS):
        matrix = tsed_matrix(codes, "python", costs)
        for i, ci in enumerate(codes):
            for j, cj in enumerate(codes):
                expected = 1.0 if i == j else tsed(ci, cj, "python", costs)
                assert matrix[i, j] == pytest.approx(expected, abs=1e-12), (i, j)
    assert tsed_matrix([a, a_same_tree], "python")[0, 1] == 1.0
    # comments are named nodes
    assert tsed_matrix([a, a_commented], "python")[0, 1] < 1.0
    # trees too large to compare stay NaN even when identical
    big = "".join(f"x{i} = {i}\n" for i in range(50))
    matrix = tsed_matrix([big, big, "x = 1"], "python", max_nodes=20)
    assert np.isnan(matrix[0, 1]) and np.isnan(matrix[1, 0]) and np.isnan(matrix[0, 2])
    np.testing.assert_array_equal(np.diag(matrix), [1.0, 1.0, 1.0])


def test_matrix_symmetry_follows_costs(structural: dict[str, Any]) -> None:
    versions = structural["five_samples"]["samples"][:3]
    unit = tsed_matrix(versions, "python", UNIT_COSTS)
    np.testing.assert_array_equal(unit, unit.T)
    published = tsed_matrix(versions, "python", PUBLISHED_COSTS)
    assert not np.allclose(published, published.T)


# -- the published implementation, run in this process on small inputs ---------------------


@pytest.fixture(scope="module")
def reference_tsed() -> Any:
    """The published ``TSED`` module, its parser loader pointed at the pinned grammars."""
    pytest.importorskip("apted")
    shim = types.ModuleType("tree_sitter_language_pack")
    shim.get_parser = lambda name: get_parser(name)  # type: ignore[attr-defined]
    shim.SupportedLanguage = str  # type: ignore[attr-defined]
    saved = sys.modules.get("tree_sitter_language_pack")
    sys.modules["tree_sitter_language_pack"] = shim
    try:
        module = pytest.importorskip("TSED")
    finally:
        if saved is None:
            sys.modules.pop("tree_sitter_language_pack", None)
        else:
            sys.modules["tree_sitter_language_pack"] = saved
    return module


SNIPPETS = [
    "",
    "x = 1\n",
    "def f(a, b):\n    return a + b\n",
    "def f(a, b):\n    s = a\n    s += b\n    return s\n",
    "def f(xs):\n    return [x * 2 for x in xs if x]\n",
    "def f(xs):\n    out = []\n    for x in xs:\n        if x:\n            out.append(x * 2)\n"
    "    return out\n",
    # syntax errors: ERROR nodes are part of the tree
    "def f(x):\n    return (x +\n",
    "foo(a, b",
    'x = "(" + ',
    "class A:\n    def m(self):\n        pass\nclass",
]


def test_matches_published_implementation_on_snippets(reference_tsed: Any) -> None:
    for a in SNIPPETS:
        for b in SNIPPETS:
            for costs in (UNIT_COSTS, PUBLISHED_COSTS):
                expected = reference_tsed.Calculate("python", a, b, *costs)
                assert tsed(a, b, "python", costs) == pytest.approx(expected, abs=1e-9), (a, b)


def _postorder(node: Any) -> list[tuple[str, int]]:
    """(label, number of children) of every node, in postorder."""
    out: list[tuple[str, int]] = []
    for child in node.children:
        out.extend(_postorder(child))
    out.append((node.name, len(node.children)))
    return out


QUIRKY_SEXPS = [
    "(module)",
    "(module (function_definition name: (identifier) body: (block)))",
    '(module (ERROR (MISSING ")") (identifier)))',
    '(module (call arguments: (argument_list (MISSING "(") (identifier))))',
    "(a (b) (c)) )) (d)",
    "(a (b (c (d)) (e)) (f (g)) (h))",
    "(a (b (c",
    "(a (b) (c (d) (e",
    "word (x) (y)",
    "() (x)",
    ") ( a ) (b (c))",
]


def test_tree_reading_matches_reference(reference_tsed: Any) -> None:
    for sexp in QUIRKY_SEXPS:
        ours = sexp_tree(sexp)
        ref = reference_tsed.parse_tree_string(sexp)
        expected = _postorder(ref)
        assert ours.left is not None
        assert list(ours.left.labels) == [label for label, _ in expected]
        assert ours.n_close == sexp.count(")")
        assert ours.n_nodes == len(expected)
        # same shape: distance 0 to the reference tree written out cleanly
        clean = sexp_tree(_sexp(ref))
        assert tree_edit_distance(ours, clean) == 0.0
        assert tree_edit_distance(clean, ours, PUBLISHED_COSTS) == 0.0


def test_field_name_overwrites_label() -> None:
    tree = sexp_tree("(module (function_definition name: (identifier) body: (block)))")
    assert tree.left is not None
    # postorder: identifier, block, function_definition (last word "body:"), module
    assert tree.left.labels == ("identifier", "block", "body:", "module")
    assert tree.n_nodes == 4
    assert tree.n_close == 4


# -- edit distance against the published APTED on random trees -------------------------------


class _AptedNode:
    def __init__(self, name: str, children: list[_AptedNode]) -> None:
        self.name = name
        self.children = children


def _sexp(node: Any) -> str:
    inner = "".join(" " + _sexp(c) for c in node.children)
    return f"({node.name}{inner})"


trees = st.recursive(
    st.builds(_AptedNode, st.sampled_from("abc"), st.just([])),
    lambda kids: st.builds(_AptedNode, st.sampled_from("abc"), st.lists(kids, max_size=4)),
    max_leaves=14,
)


@settings(max_examples=120, deadline=None)
@given(trees, trees)
def test_distance_equals_apted(a: _AptedNode, b: _AptedNode) -> None:
    apted = pytest.importorskip("apted")
    ta, tb = sexp_tree(_sexp(a)), sexp_tree(_sexp(b))
    for costs in (UNIT_COSTS, PUBLISHED_COSTS, (0.5, 2.0, 1.5)):
        expected = apted.APTED(a, b, apted.PerEditOperationConfig(*costs)).compute_edit_distance()
        assert tree_edit_distance(ta, tb, costs) == pytest.approx(expected, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(trees, trees)
def test_distance_properties(a: _AptedNode, b: _AptedNode) -> None:
    ta, tb = sexp_tree(_sexp(a)), sexp_tree(_sexp(b))
    assert tree_edit_distance(ta, ta, PUBLISHED_COSTS) == 0.0
    d_unit = tree_edit_distance(ta, tb, UNIT_COSTS)
    assert d_unit == tree_edit_distance(tb, ta, UNIT_COSTS)
    assert d_unit <= ta.n_nodes + tb.n_nodes
    assert d_unit >= abs(ta.n_nodes - tb.n_nodes)
    # deleting from a == inserting into b: swapping the two costs reverses the direction
    assert tree_edit_distance(ta, tb, (1.0, 0.8, 1.0)) == pytest.approx(
        tree_edit_distance(tb, ta, (0.8, 1.0, 1.0)), abs=1e-12
    )


def test_left_and_right_decompositions_agree(structural: dict[str, Any]) -> None:
    from codequorum.metrics import tree_edit as te

    five = structural["five_samples"]["samples"]
    ta, tb = build_tree(five[0], "python"), build_tree(five[2], "python")
    assert ta.left and ta.right and tb.left and tb.right
    vocab: dict[str, int] = {}
    results = []
    for da, db in ((ta.left, tb.left), (ta.right, tb.right)):
        la = np.array([vocab.setdefault(s, len(vocab)) for s in da.labels], dtype=np.int64)
        lb = np.array([vocab.setdefault(s, len(vocab)) for s in db.labels], dtype=np.int64)
        results.append(
            te._kernel()(
                la, da.leftmost, da.keyroots, lb, db.leftmost, db.keyroots, 1.0, 0.8, 1.0
            )
        )
    assert results[0] == pytest.approx(results[1], abs=1e-9)
    assert results[0] > 0


@settings(max_examples=30, deadline=None)
@given(trees, trees)
def test_uncompiled_source_equals_compiled_kernel(a: _AptedNode, b: _AptedNode) -> None:
    from codequorum.metrics import tree_edit as te

    ta, tb = sexp_tree(_sexp(a)), sexp_tree(_sexp(b))
    assert ta.left and tb.left
    vocab: dict[str, int] = {}
    args = (
        te._label_ids(vocab, ta.left.labels),
        ta.left.leftmost,
        ta.left.keyroots,
        te._label_ids(vocab, tb.left.labels),
        tb.left.leftmost,
        tb.left.keyroots,
        1.0,
        0.8,
        1.0,
    )
    assert te._zhang_shasha_source(*args) == pytest.approx(te._kernel()(*args), abs=1e-12)


# -- edges ------------------------------------------------------------------------------------


def test_empty_and_identical_inputs() -> None:
    assert tsed("", "", "python") == 1.0
    code = "def f(x):\n    return x\n"
    assert tsed(code, code, "python", PUBLISHED_COSTS) == 1.0
    # "" is (module): one node. `code` has 8 named nodes, so L = 8 and d = 7 insertions
    assert build_tree(code, "python").n_close == 8
    assert tsed("", code, "python") == pytest.approx(1 / 8, abs=1e-15)
    assert tsed("", code, "python", PUBLISHED_COSTS) == pytest.approx(1 - 7 * 0.8 / 8, abs=1e-12)
    assert tsed(code, "", "python", PUBLISHED_COSTS) == pytest.approx(1 / 8, abs=1e-15)
    # (module (comment)): L = 2, one insertion
    assert tsed("", "\n\n# only a comment\n", "python") == 0.5


def test_tsed_from_distance() -> None:
    assert tsed_from_distance(0.0, 0) == 1.0
    assert tsed_from_distance(3.0, 2) == 0.0
    assert tsed_from_distance(2.0, 8) == 0.75
    assert math.isnan(tsed_from_distance(math.nan, 8))


def test_oversized_tree_is_nan_with_reason() -> None:
    big = "".join(f"x{i} = {i}\n" for i in range(200))  # ~ 800 named nodes
    small = "x = 1\n"
    tree = build_tree(big, "python", max_nodes=100)
    assert isinstance(tree, TsedTree)
    assert tree.too_large is not None and "100" in tree.too_large
    assert math.isnan(tsed(big, small, "python", max_nodes=100))
    assert math.isnan(tsed_trees(tree, build_tree(small, "python")))
    matrix = tsed_matrix([small, big, small], "python", max_nodes=100)
    assert matrix[0, 2] == 1.0 and matrix[2, 0] == 1.0
    assert np.isnan(matrix[0, 1]) and np.isnan(matrix[1, 2]) and np.isnan(matrix[1, 0])
    assert matrix[1, 1] == 1.0
    # within the default limit the same code is compared
    assert 0.0 <= tsed(big, small, "python") <= 1.0


def test_huge_input_is_refused_quickly() -> None:
    huge = "x = [" + ", ".join(str(i) for i in range(150_000)) + "]\n"  # about 1 MB
    assert len(huge) > 1_000_000
    assert math.isnan(tsed(huge, "x = []\n", "python"))


def test_empty_matrix_and_single_sample() -> None:
    assert tsed_matrix([], "python").shape == (0, 0)
    np.testing.assert_array_equal(tsed_matrix(["x = 1"], "python"), np.ones((1, 1)))


def test_bad_costs_are_rejected() -> None:
    with pytest.raises(ValueError):
        tsed("a", "b", "python", (1.0, 1.0))
    with pytest.raises(ValueError):
        tsed("a", "b", "python", (1.0, -1.0, 1.0))


def test_other_languages() -> None:
    a = "function f(x) { return x + 1; }"
    b = "function f(x) { const y = x + 1; return y; }"
    value = tsed(a, b, "javascript")
    assert 0.0 < value < 1.0
    assert tsed(a, a, "js") == 1.0


def test_warm_up_loads_the_kernel_distances_use() -> None:
    from codequorum.metrics import tree_edit

    tree_edit.warm_up()
    assert tree_edit._kernel.cache_info().currsize == 1
    # the loaded kernel is the one later distances run on
    a = tree_edit.sexp_tree("(a (b) (c))")
    assert tree_edit.tree_edit_distance(a, tree_edit.sexp_tree("(a (c))")) == 1.0
    assert tree_edit._kernel.cache_info().hits >= 1


# -- the shared pass against the per-pair computation -----------------------------------------


def _real_sets(shared_dir: Path, tasks: tuple[int, ...], versions: int) -> list[list[str]]:
    """Prompt + completion of the first ``samples`` samples of some HumanEval tasks."""
    lines = (shared_dir / "data" / "humaneval_codegen16b_t0.8.jsonl").read_text().splitlines()
    records = [json.loads(lines[k]) for k in tasks]
    return [[r["prompt"] + s for s in r["samples"][:versions]] for r in records]


def test_shared_pass_equals_pairs_on_real_sets(shared_dir: Path) -> None:
    # tasks with small and large trees (HumanEval/124 has trees of up to 305 nodes)
    for codes in _real_sets(shared_dir, (0, 32, 124), 40):
        trees = [build_tree(c, "python") for c in codes]
        for costs in (UNIT_COSTS, PUBLISHED_COSTS):
            pairs = tsed_tree_matrix(trees, costs, method="pairs")
            shared = tsed_tree_matrix(trees, costs, method="shared")
            np.testing.assert_allclose(shared, pairs, rtol=0, atol=1e-12)
            if costs == UNIT_COSTS:  # integers: equal to the bit, and symmetric
                np.testing.assert_array_equal(shared, pairs)
                np.testing.assert_array_equal(shared, shared.T)
            np.testing.assert_array_equal(tsed_tree_matrix(trees, costs), shared)


def test_shared_pass_with_other_costs_and_without_room(
    shared_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from codequorum.metrics import tree_edit as te

    codes = _real_sets(shared_dir, (2,), 25)[0]
    trees = [build_tree(c, "python") for c in codes]
    # not multiples of 1/s for a small s: float64 sums; and unequal delete / insert
    for costs in ((1.0, 1.0 / 3.0, 1.0), (0.7071067811865476, 1.3, 0.5), (2.0, 2.0, 3.0)):
        pairs = tsed_tree_matrix(trees, costs, method="pairs")
        np.testing.assert_allclose(
            tsed_tree_matrix(trees, costs, method="shared"), pairs, rtol=0, atol=1e-12
        )
    # a set whose tables would not fit goes pair by pair, with the same values
    monkeypatch.setattr(te, "SHARED_MAX_BYTES", 0)
    np.testing.assert_array_equal(
        tsed_tree_matrix(trees, PUBLISHED_COSTS, method="shared"),
        tsed_tree_matrix(trees, PUBLISHED_COSTS, method="pairs"),
    )


def test_shared_pass_edges() -> None:
    big = "".join(f"x{i} = {i}\n" for i in range(50))
    codes = [
        "def f(x):\n    return x + 1\n",
        "",
        big,
        "def f(x):\n    y = x + 1\n    return y\n",
        "def  f( x ):\n    return x+1\n",  # the same tree as the first
        "x = 1\n",
        big,
    ]
    for costs in (UNIT_COSTS, PUBLISHED_COSTS):
        for max_nodes in (20, 3000):
            trees = [build_tree(c, "python", max_nodes) for c in codes]
            pairs = tsed_tree_matrix(trees, costs, method="pairs")
            shared = tsed_tree_matrix(trees, costs, method="shared")
            np.testing.assert_array_equal(np.isnan(shared), np.isnan(pairs))
            np.testing.assert_allclose(shared, pairs, rtol=0, atol=1e-12)
    with pytest.raises(ValueError):
        tsed_tree_matrix(trees, method="fast")  # type: ignore[arg-type]


@settings(max_examples=40, deadline=None)
@given(st.lists(trees, min_size=2, max_size=6))
def test_shared_pass_equals_pairs_on_random_trees(forest: list[_AptedNode]) -> None:
    built = [sexp_tree(_sexp(t)) for t in forest]
    for costs in (UNIT_COSTS, PUBLISHED_COSTS):
        np.testing.assert_allclose(
            tsed_tree_matrix(built, costs, method="shared"),
            tsed_tree_matrix(built, costs, method="pairs"),
            rtol=0,
            atol=1e-12,
        )


def test_uncompiled_shared_source_equals_compiled_kernel() -> None:
    from codequorum.metrics import tree_edit as te

    sexps = ["(a (b) (c (d)))", "(a (c (d)) (b))", "(a (b (c)) (e))", "(x (b) (c))"]
    built = [sexp_tree(s) for s in sexps]
    decs = [t.left for t in built if t.left is not None]
    for symmetric, costs in ((True, (1.0, 1.0, 1.0)), (False, (1.0, 0.8, 1.0))):
        forests = te._shared_forests(decs, symmetric)
        tables = []
        for run in (te._shared_source, te._shared_kernel()):
            td = np.zeros((forests.n_subtrees, forests.n_subtrees))
            fd = np.zeros((forests.max_rows + 1, forests.col_label.shape[0]))
            run(
                forests.col_label, forests.col_parent, forests.col_before, forests.col_tree,
                forests.level_start, forests.level_cut, forests.row_start, forests.row_skip,
                forests.row_need,
                forests.row_label, forests.row_tree, forests.row_before,
                np.float64(costs[0]), np.float64(costs[1]), np.float64(costs[2]), td, fd,
            )
            tables.append(td[np.ix_(forests.roots, forests.roots)])
        np.testing.assert_array_equal(tables[0], tables[1])
        for i, a in enumerate(built):
            for j, b in enumerate(built):
                if i < j or not symmetric:
                    assert tables[0][i, j] == pytest.approx(
                        tree_edit_distance(a, b, costs), abs=1e-12
                    )


# -- trees read together, from the structural metrics' parse ----------------------------------

MALFORMED_SEXPS = [
    "", "   ", "x", "(a) (b)", "(a (b c) d e)", ")(", "(a (b (c", "((()))",
    "(a b: (c) d: (e))) (f)", "x (a (b) c)", "(a\x1c b\x0b(c))", "(a (b) ) ) (c (d))",
    "(a (b (c) (d", "word (x (y", '(MISSING ")") (x)', "(a (b) (b) (b))",
]


def _same_tree(a: TsedTree, b: TsedTree) -> None:
    assert (a.n_nodes, a.n_close, a.too_large) == (b.n_nodes, b.n_close, b.too_large)
    assert (a.left is None) == (b.left is None) and (a.right is None) == (b.right is None)
    for da, db in ((a.left, b.left), (a.right, b.right)):
        if da is None or db is None:
            continue
        assert da.labels == db.labels
        np.testing.assert_array_equal(da.ids, db.ids)
        np.testing.assert_array_equal(da.leftmost, db.leftmost)
        np.testing.assert_array_equal(da.keyroots, db.keyroots)
        assert da.work == db.work


def test_trees_read_together_equal_the_python_reader(shared_dir: Path) -> None:
    """The compiled batch reader (``sexp_trees``) gives the trees of ``_read_sexp`` (the
    reference's reading, step for step) on real S-expressions and on malformed ones."""
    from codequorum.metrics import tree_edit as te

    sexps = [str(get_parser("python").parse(c.encode()).root_node)
             for codes in _real_sets(shared_dir, (0, 32, 124), 30) for c in codes]
    sexps += QUIRKY_SEXPS + MALFORMED_SEXPS
    te._TREES.clear()
    together = te.sexp_trees(sexps)
    for sexp, tree in zip(sexps, together, strict=True):
        _same_tree(tree, te._python_tree(sexp))
        labels, _ = te._read_sexp(sexp)
        if labels:
            assert sorted(tree.left.labels) == sorted(labels)  # type: ignore[union-attr]
    assert sexp_tree("(a (b) (c))").left.labels == ("b", "c", "a")  # type: ignore[union-attr]
    # not ASCII: read by _read_sexp, whose blanks are Python's
    assert sexp_tree("(a\u2003(b))").left.labels == ("b", "a")  # type: ignore[union-attr]


def test_trees_from_the_structural_parse_give_the_same_matrices(shared_dir: Path) -> None:
    """``build_trees`` over the structural metrics' parse (identical codes read once)
    gives the trees and the TSED matrices of ``build_tree`` per code."""
    from codequorum.metrics import tree_edit as te
    from codequorum.metrics.structural import structural_matrices

    for codes in _real_sets(shared_dir, (2, 32), 40):
        codes = [*codes, codes[3], "", codes[0]]
        sm = structural_matrices(codes, "python")
        assert len(sm.parsed) == len(codes)
        te._TREES.clear()
        shared = te.build_trees(codes, "python", parsed=sm.parsed)
        te._TREES.clear()
        alone = [build_tree(c, "python") for c in codes]
        for a, b in zip(shared, alone, strict=True):
            _same_tree(a, b)
        assert shared[-1] is shared[0]
        for costs in (UNIT_COSTS, PUBLISHED_COSTS):
            np.testing.assert_array_equal(tsed_tree_matrix(shared, costs),
                                          tsed_tree_matrix(alone, costs))
    with pytest.raises(ValueError):
        te.build_trees(["a = 1"], "python", parsed=())


def test_shared_rows_equal_rows_computed_per_keyroot(shared_dir: Path) -> None:
    """Keyroots that begin with the same forest reuse its rows (``row_skip``), each row
    compared with the forests every keyroot reusing it needs (``row_need``): the subtree
    distances equal those of computing every keyroot's rows afresh with its own first
    tree, exactly, and rows are indeed shared."""
    from codequorum.metrics import tree_edit as te

    for codes in _real_sets(shared_dir, (0, 124), 40):
        trees = list({te._shape_key(t, k): t for k, t in
                      enumerate(build_tree(c, "python") for c in codes)}.values())
        decs = [t.left for t in trees if t.left is not None]
        for symmetric, costs in ((True, (1.0, 1.0, 1.0)), (False, (1.0, 0.8, 1.0))):
            f = te._shared_forests(decs, symmetric)
            assert int(f.row_skip.sum()) > 0
            sizes = np.diff(f.row_start)
            # afresh: no reuse, each row with the first tree of its own keyroot
            first = np.array([f.row_need[s + n - 1] for s, n in zip(f.row_start[:-1], sizes,
                                                                     strict=True)])
            own_need = np.repeat(first, sizes) if symmetric else np.zeros_like(f.row_need)
            tables = []
            for skip, need in ((f.row_skip, f.row_need), (np.zeros_like(f.row_skip), own_need)):
                td = np.zeros((f.n_subtrees, f.n_subtrees))
                fd = np.zeros((f.max_rows + 1, f.col_label.shape[0]))
                te._shared_kernel()(
                    f.col_label, f.col_parent, f.col_before, f.col_tree, f.level_start,
                    f.level_cut, f.row_start, skip, need, f.row_label, f.row_tree,
                    f.row_before, np.float64(costs[0]), np.float64(costs[1]),
                    np.float64(costs[2]), td, fd,
                )
                tables.append(td[np.ix_(f.roots, f.roots)])
            if symmetric:
                upper = np.triu_indices(len(decs), 1)
                np.testing.assert_array_equal(tables[0][upper], tables[1][upper])
            else:
                np.testing.assert_array_equal(tables[0], tables[1])


def test_shared_pass_does_not_depend_on_the_order_of_the_trees(shared_dir: Path) -> None:
    """The pass takes the trees smallest first and puts the distances back in the input's
    order: any order of the input gives the same matrix, permuted alike, to the bit."""
    for codes in _real_sets(shared_dir, (2, 124), 30):
        trees = [build_tree(c, "python") for c in codes]
        perm = np.random.default_rng(3).permutation(len(trees))
        for costs in (UNIT_COSTS, PUBLISHED_COSTS):
            whole = tsed_tree_matrix(trees, costs, method="shared")
            shuffled = tsed_tree_matrix([trees[k] for k in perm], costs, method="shared")
            np.testing.assert_array_equal(shuffled, whole[np.ix_(perm, perm)])
