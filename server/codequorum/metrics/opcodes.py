"""Static opcode distributions and SCTD (static canonical trace divergence).

Pipeline: code -> opcode counts (compiled, never executed) -> count matrix over the
vocabulary of the sample set -> structure PMF ``P`` and cost PMF ``Q`` -> mean pairwise
Jensen–Shannon divergence and normalised trace of covariance (tau) -> SCTD.

Formulas (per sample set of ``m`` candidates, vocabulary of ``d`` opcodes):

- ``P[i] = c[i] / Σ c[i]``; ``Q[i] = w ⊙ c[i] / Σ (w ⊙ c[i])``; both clipped to
  ``[1e-9, 1]`` and renormalised; an all-zero row becomes uniform.
- ``JSD(p, q) = ½ Σ p log2(p/m) + ½ Σ q log2(q/m)``, ``m = (p + q)/2``; mean over the
  ``m(m-1)/2`` unordered pairs.
- ``tau(X) = (1/m Σ_i ||x_i - μ||²) / (1 - ||μ||²)``; 0 when the denominator is
  ``<= eps`` (``eps = 0`` static, ``1e-9`` dynamic).
- ``SCTD_JSD = α JSD(P) + (1-α) JSD(Q)``; ``SCTD_TAU = α tau(P) + (1-α) tau(Q)``.

The counting rule (``dis.get_instructions`` on the module code object and every code
object reachable through ``co_consts``, names from ``dis.opname``) follows the published
reference implementation, so values match it exactly under the same CPython version.
``mode="family"`` folds version-specific opcode names into families so counts from
CPython 3.10–3.13 compare sensibly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from codequorum.metrics import _opcount
from codequorum.metrics._opcount import code_object_counts, source_counts

OpcodeMode = Literal["reference", "family"]

PMF_EPS = 1e-9
"""Smoothing floor for every PMF entry."""

STATIC_TAU_EPS = 0.0
"""tau is 0 when its denominator is <= this (static counts)."""

DYNAMIC_TAU_EPS = 1e-9
"""tau is 0 when its denominator is <= this (traced counts)."""

_WEIGHT_100 = frozenset({"BINARY_MATRIX_MULTIPLY", "INPLACE_MATRIX_MULTIPLY"})
_WEIGHT_10 = frozenset(
    {
        "UNPACK_SEQUENCE",
        "UNPACK_EX",
        "BUILD_LIST",
        "BUILD_TUPLE",
        "BUILD_SET",
        "BUILD_MAP",
        "BUILD_STRING",
        "LIST_EXTEND",
        "SET_UPDATE",
        "DICT_MERGE",
        "DICT_UPDATE",
        "FOR_ITER",
        "CONTAINS_OP",
        "BINARY_SLICE",
        "STORE_SLICE",
        "BINARY_OP",
        "INSTRUMENTED_FOR_ITER",
    }
)


@dataclass(frozen=True)
class DivergenceResult:
    """SCTD or DCTD of one sample set.

    ``jsd``/``tau`` are the α-blended values in [0, 1]; ``*_pct`` are 100 × those;
    ``jsd_p``/``jsd_q``/``tau_p``/``tau_q`` are the unblended terms; ``used`` is the number
    of candidates (static) or inputs (dynamic) that entered the figures.
    """

    jsd: float
    tau: float
    jsd_p: float = 0.0
    jsd_q: float = 0.0
    tau_p: float = 0.0
    tau_q: float = 0.0
    used: int = 0

    @property
    def jsd_pct(self) -> float:
        """100 × ``jsd``."""
        return 100.0 * self.jsd

    @property
    def tau_pct(self) -> float:
        """100 × ``tau``."""
        return 100.0 * self.tau

    def to_dict(self) -> dict[str, float | int]:
        """JSON-ready form."""
        return {
            "jsd": self.jsd,
            "tau": self.tau,
            "jsd_pct": self.jsd_pct,
            "tau_pct": self.tau_pct,
            "jsd_p": self.jsd_p,
            "jsd_q": self.jsd_q,
            "tau_p": self.tau_p,
            "tau_q": self.tau_q,
            "used": self.used,
        }


# --------------------------------------------------------------------------- counting


def static_opcode_counts(code: str, mode: OpcodeMode = "reference") -> dict[str, int] | None:
    """Opcode counts of ``code`` compiled as a module (compiled, never executed).

    Returns ``None`` when the text does not compile (``SyntaxError``, null bytes...): such
    a candidate has no static profile and is left out of SCTD, as in the reference.
    """
    counts = source_counts(code)
    if counts is None:
        return None
    return to_families(counts) if mode == "family" else counts


STATIC_COUNT_SCRIPT = Path(_opcount.__file__).read_text(encoding="utf-8")
"""Stdlib-only program (the source of :mod:`codequorum.metrics._opcount`): reads a JSON list
of code strings on stdin, writes a JSON list of opcode counts (or null) on stdout. Runs the
same counting rule under another CPython."""


# --------------------------------------------------------------------------- families

_DROPPED = frozenset(
    {
        "CACHE",
        "RESUME",
        "EXTENDED_ARG",
        "NOP",
        "PRECALL",
        "KW_NAMES",
        "PUSH_NULL",
        "END_FOR",
        "POP_ITER",
        "COPY_FREE_VARS",
        "MAKE_CELL",
        "RETURN_GENERATOR",
        "GEN_START",
        "TO_BOOL",
        "SETUP_FINALLY",
        "SETUP_CLEANUP",
        "SETUP_EXCEPT",
        "SETUP_LOOP",
        "POP_BLOCK",
        "INTERPRETER_EXIT",
        "ENTER_EXECUTOR",
        "SET_FUNCTION_ATTRIBUTE",
        "NOT_TAKEN",
    }
)

_RENAMED: dict[str, str] = {
    # calls
    "CALL_FUNCTION": "CALL",
    "CALL_FUNCTION_KW": "CALL",
    "CALL_METHOD": "CALL",
    "CALL_KW": "CALL",
    # attribute / method loads
    "LOAD_METHOD": "LOAD_ATTR",
    # conditional jumps
    "POP_JUMP_FORWARD_IF_FALSE": "POP_JUMP_IF_FALSE",
    "POP_JUMP_BACKWARD_IF_FALSE": "POP_JUMP_IF_FALSE",
    "JUMP_IF_FALSE_OR_POP": "POP_JUMP_IF_FALSE",
    "POP_JUMP_FORWARD_IF_TRUE": "POP_JUMP_IF_TRUE",
    "POP_JUMP_BACKWARD_IF_TRUE": "POP_JUMP_IF_TRUE",
    "JUMP_IF_TRUE_OR_POP": "POP_JUMP_IF_TRUE",
    "POP_JUMP_FORWARD_IF_NONE": "POP_JUMP_IF_NONE",
    "POP_JUMP_BACKWARD_IF_NONE": "POP_JUMP_IF_NONE",
    "POP_JUMP_FORWARD_IF_NOT_NONE": "POP_JUMP_IF_NOT_NONE",
    "POP_JUMP_BACKWARD_IF_NOT_NONE": "POP_JUMP_IF_NOT_NONE",
    "JUMP_IF_NOT_EXC_MATCH": "CHECK_EXC_MATCH",
    # unconditional jumps
    "JUMP_ABSOLUTE": "JUMP_BACKWARD",
    "JUMP_BACKWARD_NO_INTERRUPT": "JUMP_BACKWARD",
    "JUMP_NO_INTERRUPT": "JUMP_FORWARD",
    "JUMP": "JUMP_FORWARD",
    # stack shuffles
    "DUP_TOP": "COPY",
    "DUP_TOP_TWO": "COPY",
    "ROT_TWO": "SWAP",
    "ROT_THREE": "SWAP",
    "ROT_FOUR": "SWAP",
    "ROT_N": "SWAP",
    # local variable variants
    "LOAD_FAST_CHECK": "LOAD_FAST",
    "LOAD_FAST_AND_CLEAR": "LOAD_FAST",
    "LOAD_FAST_BORROW": "LOAD_FAST",
    "LOAD_CLOSURE": "LOAD_FAST",
    "STORE_FAST_MAYBE_NULL": "STORE_FAST",
    "LOAD_SMALL_INT": "LOAD_CONST",
    # slices and subscripts
    "BINARY_SLICE": "BINARY_SUBSCR",
    "STORE_SLICE": "STORE_SUBSCR",
    # context managers, generators
    "SETUP_WITH": "BEFORE_WITH",
    "SETUP_ASYNC_WITH": "BEFORE_ASYNC_WITH",
    "YIELD_FROM": "SEND",
    # formatting
    "FORMAT_SIMPLE": "FORMAT_VALUE",
    "FORMAT_WITH_SPEC": "FORMAT_VALUE",
    "CONVERT_VALUE": "FORMAT_VALUE",
    # intrinsics that used to be opcodes
    "LIST_TO_TUPLE": "CALL_INTRINSIC_1",
    "PRINT_EXPR": "CALL_INTRINSIC_1",
    "UNARY_POSITIVE": "CALL_INTRINSIC_1",
    "IMPORT_STAR": "CALL_INTRINSIC_1",
}

_EXPANDED: dict[str, tuple[str, ...]] = {
    "RETURN_CONST": ("LOAD_CONST", "RETURN_VALUE"),
    "LOAD_FAST_LOAD_FAST": ("LOAD_FAST", "LOAD_FAST"),
    "LOAD_FAST_BORROW_LOAD_FAST_BORROW": ("LOAD_FAST", "LOAD_FAST"),
    "STORE_FAST_LOAD_FAST": ("STORE_FAST", "LOAD_FAST"),
    "STORE_FAST_STORE_FAST": ("STORE_FAST", "STORE_FAST"),
}


def _family_names(name: str) -> tuple[str, ...]:
    """The family names one opcode stands for (empty: no cross-version counterpart)."""
    if name.startswith("INSTRUMENTED_"):
        name = name[len("INSTRUMENTED_") :]
    if name in _DROPPED:
        return ()
    if name in _EXPANDED:
        return _EXPANDED[name]
    if name in _RENAMED:
        return (_RENAMED[name],)
    if name.startswith(("BINARY_", "INPLACE_")) and name not in (
        "BINARY_SUBSCR",
        "BINARY_OP",
    ):
        return ("BINARY_OP",)
    return (name,)


def opcode_family(name: str) -> str:
    """Canonical family of an opcode name across CPython 3.10–3.13.

    E.g. ``BINARY_ADD`` and ``INPLACE_ADD`` -> ``BINARY_OP``; ``POP_JUMP_FORWARD_IF_FALSE``
    -> ``POP_JUMP_IF_FALSE``; ``CALL_FUNCTION``/``CALL_METHOD``/``CALL_KW`` -> ``CALL``;
    ``LOAD_METHOD`` -> ``LOAD_ATTR``; ``RETURN_CONST`` -> ``RETURN_VALUE`` (its first
    family; :func:`to_families` also adds the ``LOAD_CONST``). Opcodes without a
    counterpart in the other versions (``RESUME``, ``PRECALL``, ``PUSH_NULL``, ``CACHE``...)
    map to ``""`` and are dropped by :func:`to_families`.
    """
    names = _family_names(name)
    if not names:
        return ""
    return names[-1] if name.endswith("RETURN_CONST") else names[0]


def to_families(counts: Mapping[str, int]) -> dict[str, int]:
    """Fold opcode counts into family counts (see :func:`opcode_family`)."""
    out: dict[str, int] = {}
    for name, c in counts.items():
        for fam in _family_names(name):
            out[fam] = out.get(fam, 0) + int(c)
    return out


def apply_mode(counts: Mapping[str, int], mode: OpcodeMode) -> dict[str, int]:
    """``counts`` as given (``reference``) or folded into families (``family``)."""
    if mode == "family":
        return to_families(counts)
    if mode == "reference":
        return dict(counts)
    raise ValueError(f"unknown opcode mode {mode!r} (use 'reference' or 'family')")


# --------------------------------------------------------------------------- maths


def count_matrix(
    counts_list: Sequence[Mapping[str, int]],
) -> tuple[list[str], NDArray[np.float64]]:
    """Vocabulary (sorted union of opcode names) and the ``m × d`` count matrix."""
    vocab = sorted(set().union(*[set(c) for c in counts_list])) if counts_list else []
    index = {name: j for j, name in enumerate(vocab)}
    mat = np.zeros((len(counts_list), len(vocab)), dtype=np.float64)
    for i, c in enumerate(counts_list):
        for name, v in c.items():
            mat[i, index[name]] = v
    return vocab, mat


def opcode_weights(vocab: Sequence[str]) -> NDArray[np.float64]:
    """Cost weight per opcode: 100 matrix multiply, 10 O(n) opcodes, 1 otherwise."""
    return np.array(
        [100.0 if n in _WEIGHT_100 else 10.0 if n in _WEIGHT_10 else 1.0 for n in vocab],
        dtype=np.float64,
    )


def _pmf_rows(num: NDArray[np.float64], eps: float) -> NDArray[np.float64]:
    """Row-normalise, uniform for all-zero rows, clip to [eps, 1], renormalise."""
    num = np.asarray(num, dtype=np.float64)
    if num.shape[1] == 0:
        return num.copy()
    den = num.sum(axis=1, keepdims=True)
    zero = den[:, 0] == 0
    if zero.any():
        num = num.copy()
        num[zero] = 1.0
        den = num.sum(axis=1, keepdims=True)
    pmf = num / den
    pmf = np.clip(pmf, eps, 1.0)
    out: NDArray[np.float64] = pmf / pmf.sum(axis=1, keepdims=True)
    return out


def pmf_matrices(
    counts: NDArray[np.float64], weights: NDArray[np.float64], eps: float = PMF_EPS
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Structure PMFs ``P = c/Σc`` and cost PMFs ``Q = w·c/Σ(w·c)``, one row per candidate.

    Both are clipped to ``[eps, 1]`` and renormalised; an all-zero row becomes uniform.
    """
    counts = np.asarray(counts, dtype=np.float64)
    return _pmf_rows(counts, eps), _pmf_rows(counts * weights[None, :], eps)


def pairwise_jsd(pmfs: NDArray[np.float64]) -> NDArray[np.float64]:
    """``m × m`` matrix of base-2 Jensen–Shannon divergences between PMF rows (see
    ``_jsd_pairs`` for the arithmetic)."""
    p = np.asarray(pmfs, dtype=np.float64)
    m = p.shape[0]
    rows, cols = np.divmod(np.arange(m * m), m)
    out: NDArray[np.float64] = _jsd_pairs(p, rows, cols).reshape(m, m)
    return out


def _jsd_pairs(
    p: NDArray[np.float64], rows: NDArray[np.intp], cols: NDArray[np.intp]
) -> NDArray[np.float64]:
    """``JSD(p[rows[k]], p[cols[k]])`` for each ``k``, base 2.

    ``JSD(a, b) = ½ (Σ a log2 a + Σ b log2 b) - Σ m log2 m`` with ``m = (a + b)/2`` and
    ``0 log 0 = 0``: the definition ``½ Σ a log2(a/m) + ½ Σ b log2(b/m)`` with its
    logarithms split, so a pair costs one logarithm per opcode instead of two and two
    divisions (the two forms differ by rounding, about 1e-16).
    """
    own = _xlog2x(p).sum(axis=1)
    mix = 0.5 * (p[rows] + p[cols])
    out: NDArray[np.float64] = 0.5 * (own[rows] + own[cols]) - _xlog2x(mix).sum(axis=1)
    return out


def _xlog2x(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """``x log2 x`` element-wise, 0 where ``x <= 0``."""
    logs = np.log2(x, out=np.zeros_like(x), where=x > 0)
    out: NDArray[np.float64] = x * logs
    return out


def mean_pairwise_jsd(pmfs: NDArray[np.float64]) -> float:
    """Mean JSD (base 2, not square-rooted) over unordered pairs; 0 for fewer than 2 rows.

    Identical rows (versions with the same opcode counts, common in real sample sets) are
    scored once, and each pair of distinct rows once: with ``u`` distinct rows of
    multiplicities ``w``, the mean over the ``m(m-1)/2`` pairs is
    ``Σ_{i<j} w_i w_j JSD(i, j) / (m(m-1)/2)`` (pairs of equal rows add 0).
    """
    rows = np.asarray(pmfs, dtype=np.float64)
    m = int(rows.shape[0])
    if m < 2:
        return 0.0
    distinct, counts = np.unique(rows, axis=0, return_counts=True)
    if distinct.shape[0] < 2:
        return 0.0
    weights = counts.astype(np.float64)
    iu = np.triu_indices(distinct.shape[0], k=1)
    total = float(np.sum(_jsd_pairs(distinct, *iu) * weights[iu[0]] * weights[iu[1]]))
    return total / (m * (m - 1) / 2)


def tau(pmfs: NDArray[np.float64], eps: float = STATIC_TAU_EPS) -> float:
    """Normalised trace of covariance ``(1/m Σ||x_i-μ||²) / (1-||μ||²)``.

    0 for fewer than 2 rows or when the denominator is ``<= eps``.
    """
    x = np.asarray(pmfs, dtype=np.float64)
    m = x.shape[0]
    if m < 2:
        return 0.0
    mu = x.mean(axis=0)
    trace_cov = float(np.sum((x - mu) ** 2)) / m
    upper = 1.0 - float(np.sum(mu**2))
    if upper <= eps:
        return 0.0
    return float(trace_cov / upper)


def divergence_terms(
    counts: NDArray[np.float64], vocab: Sequence[str], tau_eps: float
) -> tuple[float, float, float, float]:
    """``(JSD(P), JSD(Q), tau(P), tau(Q))`` for one count matrix."""
    p, q = pmf_matrices(counts, opcode_weights(vocab))
    return mean_pairwise_jsd(p), mean_pairwise_jsd(q), tau(p, tau_eps), tau(q, tau_eps)


def blend(terms: tuple[float, float, float, float], alpha: float, used: int) -> DivergenceResult:
    """α-blend ``(jsd_p, jsd_q, tau_p, tau_q)`` into a :class:`DivergenceResult`."""
    jp, jq, tp, tq = terms
    return DivergenceResult(
        jsd=alpha * jp + (1.0 - alpha) * jq,
        tau=alpha * tp + (1.0 - alpha) * tq,
        jsd_p=jp,
        jsd_q=jq,
        tau_p=tp,
        tau_q=tq,
        used=used,
    )


def sctd(
    counts_list: Sequence[Mapping[str, int] | None],
    alpha: float = 0.5,
    mode: OpcodeMode = "reference",
) -> DivergenceResult:
    """SCTD over static opcode counts, one mapping per candidate.

    ``None`` entries (candidates that do not compile) are left out; fewer than two usable
    candidates give 0 for every term (as the reference does).
    """
    usable = [apply_mode(c, mode) for c in counts_list if c is not None]
    if len(usable) < 2:
        return DivergenceResult(0.0, 0.0, used=len(usable))
    vocab, mat = count_matrix(usable)
    return blend(divergence_terms(mat, vocab, STATIC_TAU_EPS), alpha, len(usable))


def total_opcodes(counts: Mapping[str, int] | None) -> int:
    """Σ counts (0 for ``None``)."""
    return sum(counts.values()) if counts else 0


__all__ = [
    "DYNAMIC_TAU_EPS",
    "PMF_EPS",
    "STATIC_COUNT_SCRIPT",
    "STATIC_TAU_EPS",
    "DivergenceResult",
    "OpcodeMode",
    "apply_mode",
    "blend",
    "code_object_counts",
    "count_matrix",
    "divergence_terms",
    "mean_pairwise_jsd",
    "opcode_family",
    "opcode_weights",
    "pairwise_jsd",
    "pmf_matrices",
    "sctd",
    "static_opcode_counts",
    "tau",
    "to_families",
    "total_opcodes",
]
