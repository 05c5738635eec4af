"""DCTD (dynamic canonical trace divergence) and BEF from traced opcode counts.

Input: ``traces[c][t]`` is the opcode-name -> count mapping of candidate ``c`` on test
input ``t`` (``None`` where the candidate was not traced or did not pass that input).

- Vocabulary: the sorted union of opcode names over every trace of the sample set (one
  vocabulary for all inputs, as in the reference ``calculate_dctd.py``).
- For each input with at least two traces: ``JSD(P)``, ``JSD(Q)``, ``tau(P)``, ``tau(Q)``
  exactly as for SCTD (see :mod:`codequorum.metrics.opcodes`), with tau's denominator
  floor ``1e-9``.
- Each term is averaged over those inputs, then blended:
  ``DCTD_JSD = α mean JSD(P) + (1-α) mean JSD(Q)``; ``DCTD_TAU`` likewise.
- No input with two traces: every term is 0 and ``used`` is 0.
- ``BEF = SCTD / (DCTD + 1e-9)``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from codequorum.metrics.opcodes import (
    DYNAMIC_TAU_EPS,
    DivergenceResult,
    OpcodeMode,
    apply_mode,
    blend,
    mean_pairwise_jsd,
    opcode_weights,
    pmf_matrices,
    tau,
)

BEF_EPS = 1e-9
"""Added to DCTD in the BEF denominator."""

Trace = Mapping[str, int] | None


def dctd(
    traces: Sequence[Sequence[Trace]],
    alpha: float = 0.5,
    mode: OpcodeMode = "reference",
) -> DivergenceResult:
    """DCTD of a sample set from per-candidate, per-input traced opcode counts.

    ``traces[c][t]``: counts of candidate ``c`` on input ``t`` or ``None``. Rows may have
    different lengths (missing entries count as ``None``). ``used`` in the result is the
    number of inputs with at least two traces.
    """
    rows = [[None if t is None else apply_mode(t, mode) for t in row] for row in traces]
    n_inputs = max((len(r) for r in rows), default=0)
    vocab = sorted({name for r in rows for t in r if t is not None for name in t})
    index = {name: j for j, name in enumerate(vocab)}
    weights = opcode_weights(vocab)

    terms: list[tuple[float, float, float, float]] = []
    for t in range(n_inputs):
        present = [r[t] for r in rows if t < len(r) and r[t] is not None]
        if len(present) < 2:
            continue
        mat = np.zeros((len(present), len(vocab)), dtype=np.float64)
        for i, counts in enumerate(present):
            assert counts is not None
            for name, v in counts.items():
                mat[i, index[name]] = v
        p, q = pmf_matrices(mat, weights)
        terms.append(
            (
                mean_pairwise_jsd(p),
                mean_pairwise_jsd(q),
                tau(p, DYNAMIC_TAU_EPS),
                tau(q, DYNAMIC_TAU_EPS),
            )
        )
    if not terms:
        return DivergenceResult(0.0, 0.0, used=0)
    arr = np.array(terms, dtype=np.float64)
    jp, jq, tp, tq = (float(np.mean(arr[:, k])) for k in range(4))
    return blend((jp, jq, tp, tq), alpha, len(terms))


def bef(sctd_value: float, dctd_value: float) -> float:
    """Behavioural expansion factor ``SCTD / (DCTD + 1e-9)``.

    ``> 1000``: structurally different, behaviourally alike (redundant alternatives);
    ``< 0.1``: structurally alike, behaviourally different (runtime instability).
    """
    return float(sctd_value) / (float(dctd_value) + BEF_EPS)


__all__ = ["BEF_EPS", "Trace", "bef", "dctd"]
