"""Groups of versions with the same shape: average-linkage clustering on a distance matrix.

Small and numpy-only on purpose: a sample set holds tens to a few hundred versions, so the
textbook O(n^3) agglomeration with Lance–Williams updates runs in milliseconds and keeps
scipy out of the dependencies.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

FloatMatrix = npt.NDArray[np.float64]


def symmetrise(similarity: FloatMatrix) -> FloatMatrix:
    """(S + Sᵀ) / 2: one similarity per unordered pair, whichever way it was measured."""
    s = np.asarray(similarity, dtype=np.float64)
    if s.ndim != 2 or s.shape[0] != s.shape[1]:
        raise ValueError(f"expected a square matrix, got shape {s.shape}")
    return (s + s.T) / 2.0


def typicality(similarity: FloatMatrix) -> npt.NDArray[np.float64]:
    """Mean similarity of each version to every other one (the diagonal is left out).

    The matrix is symmetrised first. With one version there is no other to compare with,
    so its typicality is NaN.
    """
    s = symmetrise(similarity)
    n = s.shape[0]
    if n < 2:
        return np.full(n, np.nan)
    off = s.sum(axis=1) - np.diag(s)
    return np.asarray(off / (n - 1), dtype=np.float64)


def average_linkage(distance: FloatMatrix, threshold: float) -> list[list[int]]:
    """Agglomerative clustering, average linkage, stopping when no pair of groups is closer
    than or equal to ``threshold``.

    ``distance`` is a symmetric n×n matrix (its diagonal is ignored). Two groups merge while
    the mean distance over all cross pairs is <= ``threshold``; the closest pair merges first
    (ties go to the lowest indices, so the result is deterministic). Returns the groups as
    sorted index lists, largest group first, then by first index.
    """
    d = np.array(distance, dtype=np.float64, copy=True)
    if d.ndim != 2 or d.shape[0] != d.shape[1]:
        raise ValueError(f"expected a square matrix, got shape {d.shape}")
    n = d.shape[0]
    if n == 0:
        return []
    if not np.all(np.isfinite(d)):
        raise ValueError("distance matrix holds NaN or infinite values")
    d = (d + d.T) / 2.0
    np.fill_diagonal(d, np.inf)
    members: list[list[int]] = [[i] for i in range(n)]
    sizes = np.ones(n, dtype=np.float64)
    active = np.ones(n, dtype=bool)
    for _ in range(n - 1):
        flat = int(np.argmin(d))
        i, j = divmod(flat, n)
        if not d[i, j] <= threshold:
            break
        if j < i:
            i, j = j, i
        # Lance–Williams for average linkage: d(k, i∪j) = (|i| d(k,i) + |j| d(k,j)) / (|i|+|j|)
        merged = (sizes[i] * d[i] + sizes[j] * d[j]) / (sizes[i] + sizes[j])
        merged[~active] = np.inf
        merged[i] = np.inf
        d[i, :] = merged
        d[:, i] = merged
        d[j, :] = np.inf
        d[:, j] = np.inf
        sizes[i] += sizes[j]
        active[j] = False
        members[i].extend(members[j])
        members[j] = []
    groups = [sorted(m) for m, a in zip(members, active, strict=True) if a]
    groups.sort(key=lambda g: (-len(g), g[0]))
    return groups


def pair_means(m: FloatMatrix) -> tuple[float, float]:
    """(mean over i != j, mean over i < j) of an n×n pair matrix.

    NaN entries (pairs a metric could not compare) are left out of the means; NaN when
    n < 2 or no pair has a value.
    """
    n = m.shape[0]
    if n < 2:
        return math.nan, math.nan
    pairs = n * (n - 1)
    if not np.isnan(m).any():
        ordered = (float(m.sum()) - float(np.trace(m))) / pairs
        return ordered, float(np.triu(m, k=1).sum()) / (pairs / 2)
    values = m[~np.eye(n, dtype=bool)]
    upper = m[np.triu_indices(n, k=1)]
    ordered = float(np.nanmean(values)) if not np.isnan(values).all() else math.nan
    unordered = float(np.nanmean(upper)) if not np.isnan(upper).all() else math.nan
    return ordered, unordered
