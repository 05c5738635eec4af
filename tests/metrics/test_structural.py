"""Structural metrics: symbols, SCE and JSD similarity matrices.

Reference values come from tests/fixtures/reference/structural.json (the published
code-sce 0.1.0 with the pinned grammars); the JSD there is the natural-log flavour.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from codequorum.core.errors import UnknownLanguageError
from codequorum.metrics.structural import (
    EPS,
    jsd_similarity_matrix,
    pair_means,
    sce_matrix,
    structural_matrices,
    subtree_counts,
)

REPO = Path(__file__).resolve().parents[2]
FIELDS = {
    "sce_struct": "sce_struct",
    "sce_value": "sce_value",
    "jsd_struct_ln": "jsd_struct",
    "jsd_value_ln": "jsd_value",
}


@pytest.fixture(scope="module")
def reference(reference_dir: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((reference_dir / "structural.json").read_text())
    return data


@pytest.fixture(scope="module")
def code_sce() -> Iterator[ModuleType]:
    """The published package, its parser loader pointed at the pinned grammars."""
    shim = str(REPO / "bench" / "_refshim")
    sys.path.insert(0, shim)
    try:
        yield pytest.importorskip("code_sce")
    finally:
        sys.path.remove(shim)


# --------------------------------------------------------------------- direct formulas


def ref_sce(a: Counter[Any], b: Counter[Any]) -> float:
    """SCE(A -> B) exactly as DESIGN.md states it, one pair at a time."""
    na, nb = sum(a.values()), sum(b.values())
    union = set(a) | set(b)
    p = {u: a[u] / na if a[u] else EPS for u in union}
    q = {u: b[u] / nb if b[u] else EPS for u in union}
    h_q = -sum(q[u] * math.log2(q[u]) for u in union)
    h_pq = -sum(p[u] * math.log2(q[u]) for u in union)
    return h_q / h_pq if h_pq > 0 else 0.0


def ref_jsd_similarity(a: Counter[Any], b: Counter[Any], base: float = 2.0) -> float:
    """1 - JSD(A, B) with the published smoothing steps, one pair at a time."""
    na, nb = sum(a.values()), sum(b.values())
    union = sorted(set(a) | set(b), key=repr)
    p = np.array([a[u] / na for u in union])
    q = np.maximum(np.array([b[u] / nb for u in union]), EPS)
    q = q / q.sum()
    p = (p + EPS) / (p + EPS).sum()
    q = (q + EPS) / (q + EPS).sum()
    m = 0.5 * (p + q)
    jsd = 0.5 * (np.sum(p * np.log(p / m)) + np.sum(q * np.log(q / m)))
    return float(1.0 - jsd / math.log(base))


def row_counter(row: np.ndarray) -> Counter[int]:
    return Counter({int(j): int(c) for j, c in enumerate(row) if c})


# --------------------------------------------------------------------- reference values


def test_reference_pairs_both_ways_and_depth10(reference: dict[str, Any]) -> None:
    assert len(reference["pairs"]) >= 3
    for pair in reference["pairs"]:
        full = structural_matrices([pair["A"], pair["B"]], pair["lang"], jsd_log_base=math.e)
        shallow = structural_matrices(
            [pair["A"], pair["B"]], pair["lang"], max_depth=10, jsd_log_base=math.e
        )
        for key, attr in FIELDS.items():
            m = getattr(full, attr)
            assert m[0, 1] == pytest.approx(pair["AB"][key], abs=1e-9, rel=0), (pair["name"], key)
            assert m[1, 0] == pytest.approx(pair["BA"][key], abs=1e-9, rel=0), (pair["name"], key)
            d10 = getattr(shallow, attr)
            assert d10[0, 1] == pytest.approx(pair["AB_depth10"][key], abs=1e-9, rel=0), pair[
                "name"
            ]


def test_reference_five_samples(reference: dict[str, Any], reference_dir: Path) -> None:
    five = reference["five_samples"]
    on_disk = [(reference_dir / "structural_samples" / f"s{i}.py").read_text() for i in range(1, 6)]
    assert on_disk == five["samples"]
    m = structural_matrices(on_disk, five["lang"], jsd_log_base=math.e)
    for key, attr in FIELDS.items():
        ordered, unordered = pair_means(getattr(m, attr))
        assert unordered == pytest.approx(five["unordered_mean"][key], abs=1e-9, rel=0), key
        assert ordered == pytest.approx(five["ordered_mean"][key], abs=1e-9, rel=0), key


def test_reference_real_sample_sets(reference: dict[str, Any]) -> None:
    sets = reference["real_sets"]
    assert len(sets) == 30
    for s in sets:
        m = structural_matrices(s["samples"], s["lang"], jsd_log_base=math.e)
        for key, attr in FIELDS.items():
            ordered, unordered = pair_means(getattr(m, attr))
            assert unordered == pytest.approx(s["unordered_mean"][key], abs=1e-9, rel=0), (
                s["task_id"],
                key,
            )
            assert ordered == pytest.approx(s["ordered_mean"][key], abs=1e-9, rel=0), (
                s["task_id"],
                key,
            )


def test_identical_pair_is_exactly_one(reference: dict[str, Any]) -> None:
    pair = next(p for p in reference["pairs"] if p["A"] == p["B"])
    m = structural_matrices([pair["A"], pair["B"]], pair["lang"])
    for attr in FIELDS.values():
        assert getattr(m, attr).tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_one_symbol_tree_scores_one_unlike_the_reference() -> None:
    # An empty module is a single leaf: H(P, Q) = 0. code-sce returns 0 there (its bug);
    # identical inputs must score 1.
    m = structural_matrices(["", ""], "python")
    assert m.sce_struct.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert m.jsd_value.tolist() == [[1.0, 1.0], [1.0, 1.0]]


# --------------------------------------------------------------------- symbols


SNIPPETS: dict[str, list[str]] = {
    "python": [
        "def f(x):\n    # note\n    return [y for y in x if y]\n",
        "def g(:\n    return (1 +\n",  # ERROR and MISSING nodes
        "class A:\n    def m(self): pass\n",
    ],
    "sql": [
        "SELECT a, b FROM t WHERE a > 1 ORDER BY b;",
        "SELECT FROM WHERE ;;",
        "INSERT INTO t (a) VALUES (1), (2);",
    ],
    "javascript": ["const f = (a) => a + 1; // c\nclass K { m() { return `x${f(1)}`; } }"],
    "typescript": ["function f(a: number): string { return String(a as any); }"],
    "tsx": ["const C = () => <div className='x'>{1}</div>;"],
    "java": ["class A { int f(int x) { return x + 1; } }"],
    "go": ["package m\nfunc (t T) M(a int) int { return a }\n"],
    "rust": ["impl T { fn m(&self) -> u8 { 1 } }\nfn f() { let x = 'a'; }"],
    "c": ["#include <x.h>\nint f(int a) { return a * 2; }\n"],
    "cpp": ["int A::m(int a) const { return a; }\ntemplate<class T> T g(T t) { return t; }"],
}


@pytest.mark.parametrize("lang", sorted(SNIPPETS))
@pytest.mark.parametrize("depth", [1, 2, 3, 30])
def test_symbols_match_published_extraction(code_sce: ModuleType, lang: str, depth: int) -> None:
    from codequorum.core.parsing import get_parser

    codes = SNIPPETS[lang]
    counts = subtree_counts(codes, lang, max_depth=depth)
    struct_names = counts.struct_symbols()
    value_names = counts.value_symbols()
    assert len(set(struct_names)) == len(struct_names)
    assert len(set(value_names)) == len(value_names)
    for i, code in enumerate(codes):
        src = code.encode()
        root = get_parser(lang).parse(src).root_node
        want_s = code_sce.extract_subtrees(root, depth)
        want_v = code_sce.extract_subtrees_withvalue(root, src, depth)
        got_s = Counter({struct_names[j]: int(c) for j, c in enumerate(counts.struct[i]) if c})
        got_v = Counter({value_names[j]: int(c) for j, c in enumerate(counts.value[i]) if c})
        assert got_s == want_s
        assert got_v == want_v


def test_sql_pair_matches_published_package(code_sce: ModuleType) -> None:
    a, b = SNIPPETS["sql"][0], SNIPPETS["sql"][2]
    m = structural_matrices([a, b], "sql", jsd_log_base=math.e)
    for i, j, x, y in ((0, 1, a, b), (1, 0, b, a)):
        assert m.sce_struct[i, j] == pytest.approx(
            code_sce.compute_sce_norm_struct("sql", x, y), abs=1e-9, rel=0
        )
        assert m.sce_value[i, j] == pytest.approx(
            code_sce.compute_sce_norm_value("sql", x, y), abs=1e-9, rel=0
        )
        assert m.jsd_struct[i, j] == pytest.approx(
            code_sce.compute_cte_jsd_struct("sql", x, y), abs=1e-9, rel=0
        )
        assert m.jsd_value[i, j] == pytest.approx(
            code_sce.compute_cte_jsd_value("sql", x, y), abs=1e-9, rel=0
        )


def test_children_of_the_deepest_level_still_name_the_symbol() -> None:
    counts = subtree_counts(["x = 1\n"], "python", max_depth=1)
    assert counts.struct_symbols() == [("module", ("expression_statement",))]
    assert counts.struct.tolist() == [[1]]
    counts2 = subtree_counts(["x = 1\n"], "python", max_depth=2)
    assert sorted(counts2.struct_symbols()) == [
        ("expression_statement", ("assignment",)),
        ("module", ("expression_statement",)),
    ]


def test_leaf_text_in_value_symbols_only() -> None:
    counts = subtree_counts(["a = b\n", "a = c\n"], "python")
    assert ("identifier", ()) in counts.struct_symbols()
    values = counts.value_symbols()
    assert ("identifier", ("b",)) in values and ("identifier", ("c",)) in values
    assert counts.struct[0].tolist() == counts.struct[1].tolist()
    assert counts.value[0].tolist() != counts.value[1].tolist()


def test_syntax_errors_counted_per_sample() -> None:
    counts = subtree_counts(["x = 1\n", "def f(:\n", "print((1\n"], "python")
    assert counts.syntax_errors[0] == 0
    assert counts.syntax_errors[1] >= 1
    assert counts.syntax_errors[2] >= 1


def test_odd_inputs_do_not_raise() -> None:
    junk = bytes(range(256)) * 4
    deep = "x = " + "(" * 3000 + "1" + ")" * 3000 + "\n"
    m = structural_matrices(["", junk, deep, "\x00\x01", "é = 'ü'\n"], "py")
    for attr in FIELDS.values():
        a = getattr(m, attr)
        assert a.shape == (5, 5)
        assert np.isfinite(a).all()
        assert (np.diag(a) == 1.0).all()
    assert structural_matrices([], "python").sce_struct.shape == (0, 0)


def test_bad_arguments_have_clear_errors() -> None:
    with pytest.raises(UnknownLanguageError, match="known"):
        subtree_counts(["x"], "cobol")
    with pytest.raises(ValueError, match="max_depth"):
        subtree_counts(["x"], "python", max_depth=0)
    with pytest.raises(ValueError, match="non-negative"):
        sce_matrix(np.array([[1, -1]]))
    with pytest.raises(ValueError, match="2-d"):
        jsd_similarity_matrix(np.array([1, 2]))
    with pytest.raises(ValueError, match="base"):
        jsd_similarity_matrix(np.array([[1, 2]]), base=1.0)


# --------------------------------------------------------------------- matrices


def test_duplicates_and_proportional_rows_score_one() -> None:
    counts = np.array([[2, 4, 0], [1, 2, 0], [2, 4, 0], [0, 1, 5]])
    s = sce_matrix(counts)
    j = jsd_similarity_matrix(counts)
    for m in (s, j):
        assert m[0, 1] == m[1, 0] == m[0, 2] == m[2, 1] == 1.0
        assert m[0, 3] < 1.0
        assert (np.diag(m) == 1.0).all()


def test_empty_rows_score_zero() -> None:
    counts = np.array([[0, 0], [1, 1]])
    assert sce_matrix(counts).tolist() == [[0.0, 0.0], [0.0, 1.0]]
    assert jsd_similarity_matrix(counts).tolist() == [[0.0, 0.0], [0.0, 1.0]]


def test_log_base_only_rescales_the_divergence() -> None:
    counts = subtree_counts(["a = 1\n", "for i in x:\n    f(i)\n"], "python").struct
    two = jsd_similarity_matrix(counts, 2.0)
    e = jsd_similarity_matrix(counts, math.e)
    assert 1 - two[0, 1] == pytest.approx((1 - e[0, 1]) / math.log(2), abs=1e-15)


def test_small_matrix_by_hand() -> None:
    # A = {s0: 1, s1: 1}, B = {s0: 1}: U = {s0, s1}
    counts = np.array([[1, 1], [1, 0]])
    p, q = [0.5, 0.5], [1.0, EPS]
    h_q = -sum(v * math.log2(v) for v in q)
    h_pq = -sum(a * math.log2(b) for a, b in zip(p, q, strict=True))
    assert sce_matrix(counts)[0, 1] == pytest.approx(h_q / h_pq, abs=1e-15)
    # B -> A: P = [1, eps], Q = [0.5, 0.5]: H(Q) = 1, H(P, Q) = 1 + eps
    assert sce_matrix(counts)[1, 0] == pytest.approx(1 / (1 + EPS), abs=1e-15)
    assert jsd_similarity_matrix(counts)[0, 1] == pytest.approx(
        ref_jsd_similarity(Counter({0: 1, 1: 1}), Counter({0: 1})), abs=1e-15
    )


def test_pair_means() -> None:
    m = np.array([[1.0, 0.2, 0.4], [0.6, 1.0, 0.8], [0.0, 0.1, 1.0]])
    ordered, unordered = pair_means(m)
    assert ordered == pytest.approx((0.2 + 0.4 + 0.6 + 0.8 + 0.0 + 0.1) / 6, abs=1e-15)
    assert unordered == pytest.approx((0.2 + 0.4 + 0.8) / 3, abs=1e-15)
    assert all(math.isnan(v) for v in pair_means(np.ones((1, 1))))
    with pytest.raises(ValueError, match="square"):
        pair_means(np.ones((2, 3)))


count_matrices = st.integers(2, 6).flatmap(
    lambda n: st.integers(1, 12).flatmap(
        lambda v: arrays(np.int64, (n, v), elements=st.integers(0, 40))
    )
)


@settings(max_examples=60, deadline=None)
@given(count_matrices)
def test_matrices_equal_pairwise_formulas(counts: np.ndarray) -> None:
    counts = counts[counts.sum(axis=1) > 0]
    s = sce_matrix(counts)
    j2 = jsd_similarity_matrix(counts)
    je = jsd_similarity_matrix(counts, math.e)
    rows = [row_counter(r) for r in counts]
    for i, a in enumerate(rows):
        for k, b in enumerate(rows):
            if a and b and np.array_equal(counts[i] * b.total(), counts[k] * a.total()):
                assert s[i, k] == j2[i, k] == je[i, k] == 1.0  # same distribution
                continue
            assert s[i, k] == pytest.approx(ref_sce(a, b), abs=1e-12)
            assert j2[i, k] == pytest.approx(ref_jsd_similarity(a, b), abs=1e-12)
            assert je[i, k] == pytest.approx(ref_jsd_similarity(a, b, math.e), abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(count_matrices)
def test_jsd_bounded_and_nearly_symmetric(counts: np.ndarray) -> None:
    j = jsd_similarity_matrix(counts)
    assert (j >= 0.0).all() and (j <= 1.0).all()
    # the published smoothing is not symmetric, but only at the eps level
    assert np.abs(j - j.T).max() <= 1e-7


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.sampled_from(["x = 1", "y = f(x)", "if a:\n    b()", "# c", "(", "return"]),
        min_size=0,
        max_size=6,
    ).map("\n".join)
)
def test_identical_code_scores_exactly_one(code: str) -> None:
    m = structural_matrices([code, code], "python")
    for attr in FIELDS.values():
        assert getattr(m, attr).tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_sce_is_not_symmetric() -> None:
    m = structural_matrices(["x = 1\n", "x = 1\ny = [i for i in x]\n"], "python")
    assert m.sce_struct[0, 1] != pytest.approx(m.sce_struct[1, 0], abs=1e-3)


def test_large_sets_score_each_pair_as_small_ones(
    reference: dict[str, Any], shared_dir: Path
) -> None:
    # Pair scores depend on the pair only: a reference set padded with 35 more real
    # samples (beyond the small-set batching) must keep its reference values.
    s = reference["real_sets"][0]
    with (shared_dir / "data" / "humaneval_codegen16b_t0.8.jsonl").open() as fh:
        task = json.loads(fh.readline())
    extra = [task["prompt"] + body for body in task["samples"][:35]]
    m = structural_matrices(s["samples"] + extra, s["lang"], jsd_log_base=math.e)
    for key, attr in FIELDS.items():
        full = getattr(m, attr)
        assert full.shape == (40, 40)
        ordered, unordered = pair_means(full[:5, :5])
        assert unordered == pytest.approx(s["unordered_mean"][key], abs=1e-9, rel=0), key
        assert ordered == pytest.approx(s["ordered_mean"][key], abs=1e-9, rel=0), key
    counts = subtree_counts(s["samples"] + extra, s["lang"])
    np.testing.assert_allclose(m.sce_value, sce_matrix(counts.value), rtol=0, atol=1e-12)
    np.testing.assert_allclose(
        m.jsd_struct, jsd_similarity_matrix(counts.struct, math.e), rtol=0, atol=1e-12
    )


def test_compiled_and_numpy_paths_agree(
    reference: dict[str, Any], shared_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The compiled kernel and the array-expression path implement the same formulas
    # independently; on real samples (duplicates included) they must agree.
    from codequorum.metrics import structural

    with (shared_dir / "data" / "humaneval_codegen16b_t0.8.jsonl").open() as fh:
        task = [json.loads(next(fh)) for _ in range(3)][2]
    codes = [task["prompt"] + body for body in task["samples"][:40]]
    compiled = structural_matrices(codes, "python")
    monkeypatch.setattr(structural, "USE_COMPILED", False)
    plain = structural_matrices(codes, "python")
    for attr in FIELDS.values():
        np.testing.assert_allclose(
            getattr(compiled, attr), getattr(plain, attr), rtol=0, atol=1e-12
        )
    assert compiled.syntax_errors == plain.syntax_errors


def test_sparse_wide_counts() -> None:
    # few symbols spread over a wide vocabulary (the kernel's id table spans it sparsely)
    counts = np.zeros((3, 20000), dtype=np.int64)
    counts[0, [3, 15000]] = [2, 1]
    counts[1, [3, 19999]] = [1, 1]
    counts[2, [15000, 19999]] = [5, 5]
    rows = [row_counter(r) for r in counts]
    s = sce_matrix(counts)
    j = jsd_similarity_matrix(counts, math.e)
    for i in range(3):
        for k in range(3):
            if i != k:
                assert s[i, k] == pytest.approx(ref_sce(rows[i], rows[k]), abs=1e-12)
                assert j[i, k] == pytest.approx(
                    ref_jsd_similarity(rows[i], rows[k], math.e), abs=1e-12
                )


def test_warm_up_loads_the_compiled_path() -> None:
    from codequorum.metrics.structural import warm_up

    assert warm_up() is True


def test_repeated_samples_are_counted_like_the_first() -> None:
    codes = ["x = 1\n", "def f(a):\n    return a\n", "x = 1\n", "def f(:\n", "def f(:\n"]
    counts = subtree_counts(codes, "python")
    assert counts.struct[2].tolist() == counts.struct[0].tolist()
    assert counts.value[4].tolist() == counts.value[3].tolist()
    assert counts.syntax_errors[4] == counts.syntax_errors[3] > 0
    single = subtree_counts(codes[:2], "python")
    assert counts.struct[:2].sum() == single.struct.sum()
    m = structural_matrices(codes, "python")
    assert m.sce_value[0, 2] == m.jsd_struct[3, 4] == 1.0
    assert m.sce_struct[1, 0] == m.sce_struct[1, 2]


_FRESH_PROCESS = """
import json, sys
import numpy as np
from codequorum.metrics.structural import structural_matrices, subtree_counts
codes = json.load(open(sys.argv[1]))
m = structural_matrices(codes, "python")
c = subtree_counts(codes, "python")
np.savez(sys.argv[2], sce_struct=m.sce_struct, sce_value=m.sce_value,
         jsd_struct=m.jsd_struct, jsd_value=m.jsd_value, struct=c.struct, value=c.value)
"""


def test_scores_do_not_depend_on_what_the_process_scored_before(
    shared_dir: Path, tmp_path: Path
) -> None:
    # The symbol vocabulary is shared by all calls of a process; the columns (and so the
    # summation order) must not follow it, or results would change in the last bits with
    # the sets scored before (e.g. with `score --jobs`).
    with (shared_dir / "data" / "humaneval_codegen16b_t0.8.jsonl").open() as fh:
        tasks = [json.loads(next(fh)) for _ in range(6)]
    sets = [[t["prompt"] + body for body in t["samples"][:30]] for t in tasks]
    target = sets[3]
    for other in sets[:3] + sets[4:]:
        structural_matrices(other, "python")
    here = structural_matrices(target, "python")
    counts = subtree_counts(target, "python")
    (tmp_path / "codes.json").write_text(json.dumps(target))
    subprocess.run(
        [sys.executable, "-c", _FRESH_PROCESS, str(tmp_path / "codes.json"),
         str(tmp_path / "fresh.npz")],
        check=True, cwd=REPO, timeout=300,
    )
    fresh = np.load(tmp_path / "fresh.npz")
    for attr in FIELDS.values():
        assert getattr(here, attr).tobytes() == fresh[attr].tobytes(), attr
    assert counts.struct.tobytes() == fresh["struct"].tobytes()
    assert counts.value.tobytes() == fresh["value"].tobytes()
    # columns in order of first appearance: sample 0's symbols come first
    assert (counts.struct[0, : np.count_nonzero(counts.struct[0])] > 0).all()
