"""DCTD and BEF against the reference traces of three CPython versions."""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from pathlib import Path

import pytest

from codequorum.metrics.opcodes import count_matrix, mean_pairwise_jsd, opcode_weights, pmf_matrices
from codequorum.metrics.trace_divergence import bef, dctd

VERSIONS = ["3.11.7", "3.12.1", "3.13.0"]


def _traces(reference_dir: Path, version: str) -> dict[str, list[list[dict[str, int] | None]]]:
    data: dict[str, dict[str, dict[int, dict[str, int]]]] = defaultdict(lambda: defaultdict(dict))
    with (reference_dir / "dynamic" / f"ref_py{version}" / "traces_pass.jsonl").open() as fh:
        for line in fh:
            rec = json.loads(line)
            assert rec["status"] == "pass"
            data[rec["problem_id"]][rec["solution_id"]][rec["test_case_index"]] = rec["opcodes"]
    out = {}
    for pid, sols in data.items():
        n = 1 + max(t for s in sols.values() for t in s)
        out[pid] = [[sols[sid].get(t) for t in range(n)] for sid in sorted(sols)]
    return out


def _csv(reference_dir: Path, version: str, name: str) -> dict[str, dict[str, str]]:
    with (reference_dir / "dynamic" / f"ref_py{version}" / name).open() as fh:
        return {row["problem_id"]: row for row in csv.DictReader(fh)}


@pytest.mark.parametrize("version", VERSIONS)
def test_dctd_matches_reference(reference_dir: Path, version: str) -> None:
    ref = _csv(reference_dir, version, "dctd.csv")
    traces = _traces(reference_dir, version)
    assert set(ref) == set(traces)
    for pid, tr in traces.items():
        res = dctd(tr)
        assert res.used == 3
        assert res.jsd == pytest.approx(float(ref[pid]["DCTD_JSD"]), abs=1e-9, rel=0)
        assert res.tau == pytest.approx(float(ref[pid]["DCTD_TAU"]), abs=1e-9, rel=0)


@pytest.mark.parametrize("version", VERSIONS)
def test_bef_matches_reference_outputs(reference_dir: Path, version: str) -> None:
    outputs = json.loads((reference_dir / "dynamic" / "reference_outputs.json").read_text())
    per_problem = outputs["results"][version]["per_problem"]
    traces = _traces(reference_dir, version)
    for pid, row in per_problem.items():
        d = dctd(traces[pid])
        assert bef(row["SCTD_JSD"], d.jsd) == pytest.approx(
            row["BEF_JSD_sctd_over_dctd"], abs=1e-9, rel=0
        )
        assert bef(row["SCTD_TAU"], d.tau) == pytest.approx(
            row["BEF_TAU_sctd_over_dctd"], abs=1e-9, rel=0
        )


def test_per_input_terms_match_the_published_rounding(reference_dir: Path) -> None:
    # reference_outputs.json lists (test, jsP, jsQ, tauP, tauQ) rounded to 4 places
    traces = _traces(reference_dir, "3.11.7")["dedupe"]
    expected = [
        (0.0133, 0.0221, 0.0007, 0.0044),
        (0.1614, 0.1728, 0.0113, 0.0259),
        (0.2606, 0.2452, 0.0178, 0.032),
    ]
    for t, exp in enumerate(expected):
        col: list[list[dict[str, int] | None]] = [[row[t]] for row in traces]
        r = dctd(col)
        # one input alone: the vocabulary shrinks to that input's opcodes, so compare
        # with the full-vocabulary figure only through the rounded published values
        full_vocab = sorted({k for row in traces for c in row if c for k in c})
        padded = [[{**{k: 0 for k in full_vocab}, **(row[t] or {})}] for row in traces]
        rp = dctd(padded)
        assert (round(rp.jsd_p, 4), round(rp.jsd_q, 4)) == exp[:2]
        assert (round(rp.tau_p, 4), round(rp.tau_q, 4)) == exp[2:]
        assert r.used == 1


def test_inputs_with_fewer_than_two_traces_are_skipped() -> None:
    a = {"LOAD_FAST": 3, "BINARY_OP": 1}
    b = {"LOAD_FAST": 1, "FOR_ITER": 4}
    only_first = dctd([[a, a], [b, None], [None, None]])
    assert only_first.used == 1
    vocab, mat = count_matrix([a, b])
    p, q = pmf_matrices(mat, opcode_weights(vocab))
    assert only_first.jsd == pytest.approx(
        0.5 * mean_pairwise_jsd(p) + 0.5 * mean_pairwise_jsd(q), abs=1e-9, rel=0
    )
    nothing = dctd([[a, None], [None, b]])
    assert nothing.used == 0 and nothing.jsd == 0.0 and nothing.tau == 0.0
    assert dctd([]).used == 0


def test_vocabulary_spans_all_inputs() -> None:
    # an opcode seen only on input 1 still smooths the PMFs of input 0
    a0, b0 = {"X": 2}, {"X": 1, "Y": 1}
    with_extra = dctd([[a0, {"Z": 5}], [b0, None]])
    without = dctd([[a0, None], [b0, None]])
    assert with_extra.used == without.used == 1
    assert with_extra.jsd != without.jsd
    assert with_extra.jsd == pytest.approx(without.jsd, abs=1e-6)


def test_bef_direction() -> None:
    assert bef(0.2, 0.0) == pytest.approx(2e8, rel=1e-12)
    assert bef(0.0, 0.3) == 0.0
    assert bef(0.1, 0.2) == pytest.approx(0.1 / (0.2 + 1e-9), rel=1e-15)
