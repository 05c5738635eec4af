"""The CPU time one call takes, untraced (stdlib only; runs in the child).

The growth of a version over the scaling series rests on this, not on opcode counts:
opcodes count only the version's own bytecode, so ``len(set(x))`` looks constant while
``set()`` walks all of ``x`` in C. CPU time sees the work of builtins and C extensions.

A cost is robust to a busy machine by construction: the thread's own CPU time (time the
thread waits for a core is not counted), calls in batches long enough for the clock's
own cost to vanish (:data:`BATCH_NS`), the sizes of a series timed in turns so that a
burst of load slows every size alike (:func:`round_robin`), and the least per-call time
of each size, repeated until its two least batches agree (:func:`settled`: noise only
ever adds). Each call gets arguments of its own
(``make_call`` builds them afresh), so a version that consumes or sorts its input in
place is timed on the input it was given. The garbage collector is off while timing, as
``timeit`` has it (a collection walking the batch's arguments is not the version's
work). The same batches of a function that does nothing, wrapped as the version's calls
are, are timed and taken off: what is left is the version's own work.
"""

from __future__ import annotations

import gc
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    Call = tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]

#: A batch of short calls lasts at least about this long (ns of CPU time).
BATCH_NS = 500_000
#: At most this many calls in one batch.
MAX_LOOPS = 256
#: The wall time one input's timing may take (after its traced call).
SECONDS = 0.25

# bound once, before any candidate code runs (it cannot swap them)
_clock = getattr(time, "thread_time_ns", time.process_time_ns)
_wall = time.perf_counter


_ATOMS = (int, float, complex, str, bytes, bool, type(None))


def _unchanging(value: Any, depth: int = 0) -> bool:
    """Whether no call can change ``value`` (atoms, and tuples and frozensets of them)."""
    if isinstance(value, _ATOMS):
        return True
    if isinstance(value, tuple | frozenset) and depth < 50:
        return all(_unchanging(v, depth + 1) for v in value)
    return False


class _Foreign(Exception):
    """A value :func:`_fresh` cannot copy (not one the protocol decodes)."""


def _fresh(value: Any, depth: int = 0) -> Any:
    """A copy of a decoded argument that no earlier call can have touched: containers
    anew, atoms and unchanging tuples as they are (much cheaper than decoding again)."""
    if isinstance(value, _ATOMS):
        return value
    if depth > 50:
        raise _Foreign("nested too deep")
    kind = type(value)
    if kind is list:
        return [_fresh(v, depth + 1) for v in value]
    if kind is dict:
        return {k: _fresh(v, depth + 1) for k, v in value.items()}
    if kind is set:
        return set(value)  # its items are hashable, so unchanging
    if kind is bytearray:
        return bytearray(value)
    if kind is tuple:
        items = tuple(_fresh(v, depth + 1) for v in value)
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    if kind is frozenset:
        return value
    raise _Foreign(kind.__name__)


def _copier(value: Any) -> Callable[[Any], Any]:
    """How to copy ``value`` afresh, decided once: as it is when nothing can change it, a
    flat copy of a list, dict or set of atoms (C speed), else :func:`_fresh`."""
    if _unchanging(value):
        return _same
    kind = type(value)
    if kind is list and all(isinstance(v, _ATOMS) for v in value):
        return list.copy
    if kind is dict and all(isinstance(v, _ATOMS) for v in value.values()):
        return dict.copy
    if kind is set:
        return set.copy
    _fresh(value)  # raises _Foreign for a value it cannot copy
    return _fresh


def _same(value: Any) -> Any:
    return value


def reusing(make_call: Callable[[], Call], shareable: bool) -> Callable[[], Call]:
    """Calls like ``make_call()``'s, cheaper: when the call is ``shareable`` (no receiver
    of its own), one call made once with its arguments copied afresh each time
    (:func:`_copier`), else ``make_call`` itself."""
    fn, args, kwargs = make_call()
    if not shareable:
        return make_call
    try:
        copies = [_copier(a) for a in args]
        named = {k: _copier(v) for k, v in kwargs.items()}
    except _Foreign:
        return make_call
    return lambda: (fn, tuple(c(a) for c, a in zip(copies, args, strict=True)),
                    {k: named[k](v) for k, v in kwargs.items()})


def nothing(*_args: Any, **_kwargs: Any) -> None:
    """The call whose cost is taken off: the loop, the call and the clock themselves."""
    return None


def _batch(calls: list[Call]) -> int:
    """CPU nanoseconds the calls of one batch take together."""
    start = _clock()
    for fn, args, kwargs in calls:
        fn(*args, **kwargs)
    return _clock() - start


#: Two least per-call times within this fraction of each other settle an input's cost.
AGREE = 0.05
#: At least this many rounds, at most :data:`MAX_ROUNDS`, of the round-robin timing.
MIN_ROUNDS = 5
MAX_ROUNDS = 15


def settled(times: Sequence[float]) -> bool:
    """Whether the two least of ``times`` agree within :data:`AGREE` (noise only ever
    adds: two batches this close to the least saw the input's own cost, not a burst)."""
    if len(times) < 2:
        return False
    a, b = sorted(times)[:2]
    return b <= a * (1 + AGREE) + 1.0


def round_robin(measure: Callable[[int], float | None], n: int,
                out_of_time: Callable[[], bool]) -> list[float | None]:
    """The least per-call time of each of ``n`` inputs, timed in turns: each round times
    every input not yet :func:`settled` once (``measure(i)``, None when the call raised:
    that input is dropped), so a burst of load hits every size alike rather than the one
    being timed; from :data:`MIN_ROUNDS` until every input settled, at most
    :data:`MAX_ROUNDS` or until ``out_of_time()`` (after a first round)."""
    times: list[list[float]] = [[] for _ in range(n)]
    dropped: set[int] = set()
    for r in range(MAX_ROUNDS):
        if r > 0 and out_of_time():
            break
        open_ = [i for i in range(n) if i not in dropped
                 and (r < MIN_ROUNDS or not settled(times[i]))]
        if not open_:
            break
        for i in open_:
            got = measure(i)
            if got is None:
                dropped.add(i)
            else:
                times[i].append(got)
    return [None if i in dropped or not times[i] else min(times[i]) for i in range(n)]


def _safe_batch(make_call: Callable[[], Call], loops: int) -> float | None:
    """Per-call CPU ns of one batch, None when a call raised (the version's own error:
    its traced outcome already says so, only this input's timing is lost)."""
    try:
        return _batch([make_call() for _ in range(loops)]) / loops
    except Exception:
        return None


def _idle_call(make_call: Callable[[], Call], idle: Callable[..., Any]) -> Callable[[], Call]:
    """Calls of ``idle`` on arguments of their own, made as ``make_call`` makes them: a
    batch's arguments are copies made before it, as cold in the caches as the timed
    calls' (one object shared by every idle call would be hot, and the difference would
    read as growth)."""
    def made() -> Call:
        _fn, args, kwargs = make_call()
        return idle, args, kwargs
    return made


def cpu_costs(makers: Sequence[Callable[[], Call]], seconds: float = SECONDS,
              idle: Callable[..., Any] = nothing) -> list[int | None]:
    """CPU nanoseconds one call of each input (the sizes of a series) takes, less an
    empty call's: each input's calls and calls of ``idle`` on arguments made the same way
    are timed in the same rounds of :func:`round_robin` (within ``seconds`` per input), so
    both see the same load, and the least of one is taken off the least of the other
    (never below 0); None for an input whose call raised. ``idle`` is :func:`nothing`
    wrapped as the makers' functions are (a wrapper's own cost is a fixed cost per call
    that, left in, flattens every slope). A first call longer than ``seconds`` is its cost
    (noise is little beside it, and nothing is taken off)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        firsts = [_safe_batch(make_call, 1) for make_call in makers]
        loops = [max(1, min(MAX_LOOPS, int(BATCH_NS // max(f or 1, 1)))) for f in firsts]
        empties = [_idle_call(make_call, idle) for make_call in makers]
        n = len(makers)
        deadline = _wall() + 2 * seconds * max(1, n)

        def measure(j: int) -> float | None:
            i = j % n
            first = firsts[i]
            if first is None or first >= seconds * 1e9:
                return first  # a call longer than the budget is its own cost
            return _safe_batch(makers[i] if j < n else empties[i], loops[i])

        least = round_robin(measure, 2 * n, lambda: _wall() > deadline)
        out: list[int | None] = []
        for i, (own, empty) in enumerate(zip(least[:n], least[n:], strict=True)):
            first = firsts[i]
            if own is None or first is None:
                out.append(None)
            elif first >= seconds * 1e9 or empty is None:
                out.append(round(own))
            else:
                out.append(max(0, round(own - empty)))
        return out
    finally:
        if collecting:
            gc.enable()


__all__ = ["AGREE", "BATCH_NS", "MAX_LOOPS", "MAX_ROUNDS", "MIN_ROUNDS", "SECONDS",
           "cpu_costs", "nothing", "reusing", "round_robin", "settled"]
