"""How a version's cost grows with the size of its input: the exponent of a power law.

The costs are CPU nanoseconds per call over the scaling series, measured in the sandbox
(``behaviour/sandbox/timing.py``), so they see work done inside builtins and C extensions
that opcode counts miss.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

#: Costs below this many nanoseconds are raised to it: under it a per-call time is the
#: clock's and the call's own noise, not work that grows (a lookup ``x[0]`` takes ~50 ns).
COST_FLOOR_NS = 250.0


def growth_exponent(sizes: npt.ArrayLike, costs: npt.ArrayLike,
                    floor: float = COST_FLOOR_NS) -> float | None:
    """Exponent ``k`` of ``cost ≈ c · size^k``.

    With ``x = log(size)`` and ``y = log(max(cost, floor))`` over the points with a size
    and a cost above 0, ``k`` is the least-squares slope of ``y`` on ``x`` over the larger
    half of the distinct sizes (at least the two largest): at small sizes the fixed cost
    of a call hides how the work grows, and the asymptote is what the verdict is about.
    Raising costs to ``floor`` keeps noise from being called growth: a version whose
    every cost is below it gets exactly 0. ``None`` with fewer than two distinct sizes.
    """
    s = np.asarray(sizes, dtype=np.float64)
    c = np.asarray(costs, dtype=np.float64)
    keep = (s > 0) & np.isfinite(c) & (c >= 0)
    s, c = s[keep], c[keep]
    distinct = np.unique(s)
    if distinct.size < 2:
        return None
    upper = distinct[-max(2, math.ceil(distinct.size / 2)):]
    chosen = np.isin(s, upper)
    x = np.log(s[chosen])
    y = np.log(np.maximum(c[chosen], floor))
    dx = x - x.mean()
    return float(np.dot(dx, y - y.mean()) / np.dot(dx, dx))


def growth_class(exponent: float) -> int:
    """The whole-number exponent nearest ``exponent`` (halves round up), never below 0:
    what measured CPU time tells apart. A sort (n log n) has a slope of about 1.2 over
    the default sizes and is class 1; fractions are noise, and two runs of the same
    versions give the same class where they would not give the same slope."""
    return max(0, math.floor(exponent + 0.5))


__all__ = ["COST_FLOOR_NS", "growth_class", "growth_exponent"]
