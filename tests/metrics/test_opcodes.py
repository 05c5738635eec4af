"""Static opcode counts and SCTD against the reference fixtures."""

from __future__ import annotations

import csv
import dis
import json
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from codequorum.metrics.opcodes import (
    STATIC_COUNT_SCRIPT,
    count_matrix,
    mean_pairwise_jsd,
    opcode_family,
    opcode_weights,
    pairwise_jsd,
    pmf_matrices,
    sctd,
    static_opcode_counts,
    tau,
    to_families,
)

PYENV = Path("/root/.pyenv/versions")
INTERPRETERS = {
    "3.12.1": PYENV / "3.12.1" / "bin" / "python3.12",
    "3.13.0": PYENV / "3.13.0" / "bin" / "python3.13",
}


def _solutions(reference_dir: Path) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = defaultdict(list)
    with (reference_dir / "dynamic" / "solutions.jsonl").open() as fh:
        for line in fh:
            rec = json.loads(line)
            groups[rec["problem_id"]].append(rec["generated_solution"])
    return groups


def _sctd_csv(reference_dir: Path, version: str) -> dict[str, dict[str, str]]:
    path = reference_dir / "dynamic" / f"ref_py{version}" / "sctd.csv"
    with path.open() as fh:
        return {row["problem_id"]: row for row in csv.DictReader(fh)}


def _check_against(ref: dict[str, dict[str, str]], counts: dict[str, list[dict[str, int]]]) -> None:
    assert set(ref) == set(counts)
    for pid, row in ref.items():
        res = sctd(counts[pid])
        assert res.used == 3
        assert res.jsd == pytest.approx(float(row["SCTD_JSD"]), abs=1e-9, rel=0)
        assert res.tau == pytest.approx(float(row["SCTD_TAU"]), abs=1e-9, rel=0)
        assert res.jsd_pct == pytest.approx(float(row["SCTD_JSD_pct"]), abs=1e-7, rel=0)
        assert res.tau_pct == pytest.approx(float(row["SCTD_TAU_pct"]), abs=1e-7, rel=0)


@pytest.mark.skipif(sys.version_info[:3] != (3, 11, 7), reason="fixture made with CPython 3.11.7")
def test_sctd_matches_reference_py311(reference_dir: Path) -> None:
    groups = _solutions(reference_dir)
    counts = {}
    for pid, codes in groups.items():
        cs = [static_opcode_counts(c) for c in codes]
        assert all(c is not None for c in cs)
        counts[pid] = [c for c in cs if c is not None]
    _check_against(_sctd_csv(reference_dir, "3.11.7"), counts)


def _counts_under(python: Path, codes: list[str]) -> list[dict[str, int] | None]:
    proc = subprocess.run(
        [str(python), "-I", "-S", "-c", STATIC_COUNT_SCRIPT],
        input=json.dumps(codes),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    result: list[dict[str, int] | None] = json.loads(proc.stdout)
    return result


@pytest.mark.parametrize("version", sorted(INTERPRETERS))
def test_sctd_matches_reference_other_pythons(reference_dir: Path, version: str) -> None:
    python = INTERPRETERS[version]
    if not python.exists() and shutil.which(python.name) is None:
        pytest.skip(f"CPython {version} not installed at {python}")
    if not (reference_dir / "dynamic" / f"ref_py{version}" / "sctd.csv").exists():
        pytest.skip(f"no fixture for {version}")
    groups = _solutions(reference_dir)
    pids = sorted(groups)
    flat = [c for pid in pids for c in groups[pid]]
    counted = _counts_under(python, flat)
    assert all(c is not None for c in counted)
    counts: dict[str, list[dict[str, int]]] = {}
    k = 0
    for pid in pids:
        counts[pid] = [c for c in counted[k : k + len(groups[pid])] if c is not None]
        k += len(groups[pid])
    _check_against(_sctd_csv(reference_dir, version), counts)


def test_script_counts_equal_in_process_counts(reference_dir: Path) -> None:
    codes = [c for cs in _solutions(reference_dir).values() for c in cs] + ["def f(:\n"]
    assert _counts_under(Path(sys.executable), codes) == [static_opcode_counts(c) for c in codes]


def test_static_counts_walk_nested_code_objects() -> None:
    code = "def f(x):\n    g = lambda y: y + 1\n    return [g(v) for v in x]\n"
    counts = static_opcode_counts(code)
    assert counts is not None
    root = compile(code, "<t>", "exec")
    f_code = next(c for c in root.co_consts if hasattr(c, "co_code"))
    nested = [c for c in f_code.co_consts if hasattr(c, "co_code")]
    assert len(nested) >= 1  # the lambda (and, before 3.12, the comprehension)
    expected: dict[str, int] = {}
    for co in [root, f_code, *nested]:
        for ins in dis.get_instructions(co):
            expected[dis.opname[ins.opcode]] = expected.get(dis.opname[ins.opcode], 0) + 1
    assert counts == expected
    assert "CACHE" not in counts
    assert counts["BINARY_OP"] == 1


def test_syntax_error_gives_none_and_is_left_out() -> None:
    assert static_opcode_counts("def f(:\n    pass") is None
    assert static_opcode_counts("x = 1\0\n") is None  # null bytes do not compile
    good = static_opcode_counts("def f(a):\n    return a + 1\n")
    other = static_opcode_counts("def f(a):\n    return [a] * 2\n")
    assert good is not None and other is not None
    with_bad = sctd([good, None, other])
    assert with_bad.used == 2
    assert with_bad.jsd == sctd([good, other]).jsd
    assert sctd([good, None]).jsd == 0.0
    assert sctd([good, None]).used == 1


def test_weights_follow_the_table() -> None:
    vocab = ["BINARY_MATRIX_MULTIPLY", "BINARY_OP", "FOR_ITER", "LOAD_FAST", "CALL", "BUILD_LIST"]
    assert opcode_weights(vocab).tolist() == [100.0, 10.0, 10.0, 1.0, 1.0, 10.0]


def test_pmfs_clip_renormalise_and_uniform_for_zero_rows() -> None:
    counts = np.array([[3.0, 1.0, 0.0], [0.0, 0.0, 0.0]])
    w = np.array([10.0, 1.0, 1.0])
    p, q = pmf_matrices(counts, w)
    assert p.sum(axis=1) == pytest.approx([1.0, 1.0], abs=1e-9, rel=0)
    raw = np.array([0.75, 0.25, 1e-9])
    assert p[0] == pytest.approx(raw / raw.sum(), abs=1e-9, rel=0)
    rawq = np.array([30 / 31, 1 / 31, 1e-9])
    assert q[0] == pytest.approx(rawq / rawq.sum(), abs=1e-9, rel=0)
    assert p[1] == pytest.approx([1 / 3] * 3, abs=1e-9, rel=0)
    assert q[1] == pytest.approx([1 / 3] * 3, abs=1e-9, rel=0)


def test_jsd_and_tau_by_hand() -> None:
    p = np.array([[1.0, 0.0], [0.0, 1.0]])
    assert mean_pairwise_jsd(p) == pytest.approx(1.0, abs=1e-9, rel=0)  # base 2, disjoint supports
    mix = np.array([[0.5, 0.5], [1.0, 0.0]])
    # JSD = H(M) - (H(p)+H(q))/2 with M = (0.75, 0.25)
    h_m = -(0.75 * np.log2(0.75) + 0.25 * np.log2(0.25))
    assert mean_pairwise_jsd(mix) == pytest.approx(h_m - 0.5, abs=1e-9, rel=0)
    assert pairwise_jsd(mix)[0, 1] == pytest.approx(pairwise_jsd(mix)[1, 0], abs=1e-9, rel=0)
    # tau: mu = (0.75, 0.25); spread = ((0.25²+0.25²)*2)/2 = 0.125; 1-||mu||² = 0.375
    assert tau(mix) == pytest.approx(0.125 / 0.375, abs=1e-9, rel=0)
    assert tau(np.array([[1.0, 0.0], [1.0, 0.0]])) == 0.0  # denominator 0
    assert tau(mix[:1]) == 0.0
    assert mean_pairwise_jsd(mix[:1]) == 0.0


def test_identical_candidates_have_zero_sctd() -> None:
    c = static_opcode_counts("def f(x):\n    return sorted(set(x))\n")
    assert c is not None
    r = sctd([c, dict(c), dict(c)])
    assert r.jsd == pytest.approx(0.0, abs=1e-12)
    assert r.tau == pytest.approx(0.0, abs=1e-12)


def test_count_matrix_vocab_is_the_union() -> None:
    vocab, mat = count_matrix([{"A": 2}, {"B": 1, "A": 1}])
    assert vocab == ["A", "B"]
    assert mat.tolist() == [[2.0, 0.0], [1.0, 1.0]]


def test_families_fold_version_names() -> None:
    assert opcode_family("BINARY_ADD") == "BINARY_OP"
    assert opcode_family("INPLACE_ADD") == "BINARY_OP"
    assert opcode_family("BINARY_OP") == "BINARY_OP"
    assert opcode_family("BINARY_SUBSCR") == "BINARY_SUBSCR"
    assert opcode_family("POP_JUMP_FORWARD_IF_FALSE") == "POP_JUMP_IF_FALSE"
    assert opcode_family("POP_JUMP_BACKWARD_IF_TRUE") == "POP_JUMP_IF_TRUE"
    assert opcode_family("CALL_METHOD") == "CALL"
    assert opcode_family("CALL_KW") == "CALL"
    assert opcode_family("LOAD_METHOD") == "LOAD_ATTR"
    assert opcode_family("PRECALL") == ""
    assert opcode_family("RETURN_CONST") == "RETURN_VALUE"
    assert opcode_family("INSTRUMENTED_FOR_ITER") == "FOR_ITER"
    py311 = {
        "PRECALL": 2,
        "CALL": 2,
        "LOAD_METHOD": 1,
        "RESUME": 1,
        "BINARY_OP": 1,
        "POP_JUMP_FORWARD_IF_FALSE": 1,
        "LOAD_CONST": 1,
        "RETURN_VALUE": 1,
    }
    py310 = {
        "CALL_FUNCTION": 1,
        "CALL_METHOD": 1,
        "LOAD_METHOD": 1,
        "BINARY_ADD": 1,
        "POP_JUMP_IF_FALSE": 1,
        "LOAD_CONST": 1,
        "RETURN_VALUE": 1,
    }
    py312 = {
        "CALL": 2,
        "LOAD_ATTR": 1,
        "RESUME": 1,
        "BINARY_OP": 1,
        "POP_JUMP_IF_FALSE": 1,
        "RETURN_CONST": 1,
    }
    assert to_families(py311) == to_families(py310) == to_families(py312)


def test_family_mode_brings_versions_closer(reference_dir: Path) -> None:
    path = reference_dir / "dynamic"
    by_version: dict[str, dict[str, int]] = {}
    for v in ("3.11.7", "3.12.1", "3.13.0"):
        with (path / f"ref_py{v}" / "traces_pass.jsonl").open() as fh:
            for line in fh:
                rec = json.loads(line)
                if rec["solution_id"] == "maxsub-kadane" and rec["test_case_index"] == 2:
                    by_version[v] = rec["opcodes"]
    raw = sctd(list(by_version.values()))
    fam = sctd(list(by_version.values()), mode="family")
    assert fam.jsd < raw.jsd / 2
    with pytest.raises(ValueError):
        sctd([{"A": 1}, {"B": 1}], mode="bogus")  # type: ignore[arg-type]


def test_fast_reading_equals_dis_on_real_samples(shared_dir: Path) -> None:
    """The fast count (co_code read directly) equals the dis-based rule on real code."""
    import json as _json

    from codequorum.metrics import _opcount

    assert _opcount._FAST_OK
    rows = [_json.loads(line) for line in (shared_dir / "data" /
            "humaneval_codegen16b_t0.8.jsonl").open()][:30]
    checked = 0
    for row in rows:
        for version in row["samples"][:5]:
            try:
                root = compile(row["prompt"] + version, "<c>", "exec")
            except (SyntaxError, ValueError):
                continue
            for co in _opcount.walk_code(root):
                fast: dict[str, int] = {}
                slow: dict[str, int] = {}
                _opcount._count_fast(co, fast)
                _opcount._count_dis(co, slow)
                assert fast == slow
                checked += 1
    assert checked > 100


def test_compiling_the_text_counts_as_compiling_its_ast(shared_dir: Path) -> None:
    """``source_counts`` compiles the text directly: the counts (and which texts fail)
    equal those of compiling ``ast.parse(text)`` under the same future flags (this module,
    like ``_opcount``, has ``from __future__ import annotations``), on real samples,
    annotations, syntax errors, null bytes and empty answers."""
    import ast
    import json as _json

    from codequorum.metrics import _opcount

    def via_ast(src: str) -> dict[str, int] | None:
        try:
            tree = ast.parse(src, filename="<candidate>")
            root = compile(tree, "<candidate>", "exec")
        except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
            return None
        return _opcount.code_object_counts(root)

    rows = [_json.loads(line) for line in (shared_dir / "data" /
            "humaneval_codegen16b_t0.8.jsonl").open()][:40]
    texts = [row["prompt"] + s for row in rows for s in row["samples"][:10]]
    texts += ["", "def f(x: int) -> list[int]:\n    return [x]\n", "def (:\n", "a\0b"]
    failed = 0
    for text in texts:
        got = _opcount.source_counts(text)
        assert got == via_ast(text)
        failed += got is None
    assert 0 < failed < len(texts)


def test_pair_jsd_equals_the_unsplit_definition() -> None:
    """``pairwise_jsd`` (logarithms split) and the weighted mean over distinct rows equal
    ½ Σ a log2(a/m) + ½ Σ b log2(b/m) over every pair to 1e-12, zeros included."""
    rng = np.random.default_rng(7)
    raw = rng.integers(0, 5, size=(12, 9)).astype(np.float64)
    raw[3] = raw[5]  # repeated rows
    raw[8] = raw[5]
    raw[2, :4] = 0.0  # zeros: 0 log 0 = 0
    p = raw / raw.sum(axis=1, keepdims=True)
    a, b = p[:, None, :], p[None, :, :]
    mix = 0.5 * (a + b)
    with np.errstate(divide="ignore", invalid="ignore"):
        kl_a = np.where(a > 0, a * np.log2(a / mix), 0.0).sum(axis=2)
        kl_b = np.where(b > 0, b * np.log2(b / mix), 0.0).sum(axis=2)
    expected = 0.5 * (kl_a + kl_b)
    np.testing.assert_allclose(pairwise_jsd(p), expected, rtol=0, atol=1e-12)
    iu = np.triu_indices(12, k=1)
    assert mean_pairwise_jsd(p) == pytest.approx(float(expected[iu].mean()), abs=1e-12, rel=0)
