"""How a version's cost grows with the size of its input: the exponent of a power law.

The costs are CPU nanoseconds per call over the scaling series, measured in the sandbox
(``behaviour/sandbox/timing.py``), or, where the portable sandbox ran, the WebAssembly
instructions (fuel) of one untraced call less an empty call's; either sees work done
inside builtins and C extensions that opcode counts miss. JavaScript's cost is the
executed Ignition bytecodes of one call (``behaviour/runtimes/node_trace.py``): exact and
the same on every run, blind to work inside V8's builtins.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

#: Costs below this many nanoseconds are raised to it: under it a per-call time (an empty
#: call's, timed in the same rounds, already taken off) is the clock's, the caches' and a
#: busy machine's noise, not work that grows (a lookup ``x[0]`` reads 0 to a few hundred
#: ns on two loaded cores). It stays well under a linear pass in C at the largest default
#: size on a fast processor (``sum`` of 512 ints: about 1 µs at 2 ns an int, 3 µs on a
#: server core), whose slope from the floor must still read as n: 512's cost above
#: ``floor * 8 ** 0.5``.
COST_FLOOR_NS = 200.0
#: The floor in fuel (WebAssembly instructions, exact on every run): an empty call's own
#: cost is taken off already, so what is left under it is a lookup's, not work that grows.
COST_FLOOR_FUEL = 500.0
#: The same floor in executed bytecodes (JavaScript on Node): a call and a lookup take a
#: few tens of bytecodes; under this a count is the call's own, not work that grows.
COST_FLOOR_BYTECODES = 50.0


def cost_floor(measure: str) -> float:
    """The cost floor of a growth measure (``cpu-time``, ``fuel`` or ``bytecodes``)."""
    return {"fuel": COST_FLOOR_FUEL, "bytecodes": COST_FLOOR_BYTECODES}.get(measure,
                                                                           COST_FLOOR_NS)


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


#: How far past a half-way point above n a slope must reach to take the class above: a
#: busy neighbour on a shared core slows the largest sizes more than the small ones, which
#: lifts a slope, so an ambiguous one above 1.5 goes to the class below.
CLASS_MARGIN = 0.15


def growth_class(exponent: float) -> int:
    """The whole-number class of ``exponent``, never below 0: the nearest whole number
    (halves round up), except that above n a slope within :data:`CLASS_MARGIN` of the
    half-way point takes the class below (1.6 is n, 1.7 is n²). What measured CPU time
    tells apart: a sort (n log n) has a slope of about 1.2 over the default sizes and is
    class 1, a linear pass measures 0.85–1.1 and a quadratic one 1.9–2.0 (on two loaded
    cores); fractions are noise, and two runs of the same versions give the same class
    where they would not give the same slope."""
    nearest = max(0, math.floor(exponent + 0.5))
    if nearest >= 2 and exponent < nearest - 0.5 + CLASS_MARGIN:
        return nearest - 1
    return nearest


#: A slope above n this close to the point where its class changes supports neither
#: class: the timings, not the version, decide which side it falls on.
UNDECIDED_BAND = 0.1
#: A local slope over smaller sizes this far above the slope over the larger ones means a
#: middle size was slowed by load (fixed costs only ever flatten the small sizes).
SLOPE_DROP = 0.5


def undecided(exponent: float) -> bool:
    """Whether ``exponent`` (above 1) lies within :data:`UNDECIDED_BAND` of the point
    where :func:`growth_class` changes class."""
    if exponent < 1.0:
        return False
    edge = math.floor(exponent + 0.5 - CLASS_MARGIN) + 0.5 + CLASS_MARGIN
    return min(abs(exponent - edge), abs(exponent - (edge - 1))) < UNDECIDED_BAND


def local_slopes(sizes: npt.ArrayLike, costs: npt.ArrayLike,
                 floor: float = COST_FLOOR_NS) -> list[float]:
    """The log-log slope between each pair of consecutive distinct sizes (the least cost
    of a size when it was timed more than once; costs raised to ``floor``)."""
    s = np.asarray(sizes, dtype=np.float64)
    c = np.asarray(costs, dtype=np.float64)
    keep = (s > 0) & np.isfinite(c) & (c >= 0)
    s, c = s[keep], c[keep]
    distinct = np.unique(s)
    least = np.log([max(float(c[s == x].min()), floor) for x in distinct])
    return [float(v) for v in np.diff(least) / np.diff(np.log(distinct))]


def judged_class(sizes: npt.ArrayLike, costs: npt.ArrayLike,
                 floor: float = COST_FLOOR_NS) -> int | None:
    """The growth class of a version's ``(sizes, costs)`` when its points support one:
    :func:`growth_class` of :func:`growth_exponent`, or None with fewer than two sizes,
    when the slope is :func:`undecided` or when a local slope over smaller sizes exceeds
    the last one by :data:`SLOPE_DROP` (a slowed middle size). None is an honest "not
    judged", never a guess: a busy machine must not make a class."""
    exponent = growth_exponent(sizes, costs, floor)
    if exponent is None or undecided(exponent):
        return None
    slopes = local_slopes(sizes, costs, floor)
    if len(slopes) >= 2 and max(slopes[:-1]) > slopes[-1] + SLOPE_DROP:
        return None
    return growth_class(exponent)


__all__ = ["CLASS_MARGIN", "COST_FLOOR_BYTECODES", "COST_FLOOR_FUEL", "COST_FLOOR_NS",
           "SLOPE_DROP", "UNDECIDED_BAND", "cost_floor", "growth_class",
           "growth_exponent", "judged_class", "local_slopes", "undecided"]
