"""The CPU time one call takes, untraced (stdlib only; runs in the child).

The growth of a version over the scaling series rests on this, not on opcode counts:
opcodes count only the version's own bytecode, so ``len(set(x))`` looks constant while
``set()`` walks all of ``x`` in C. CPU time sees the work of builtins and C extensions.

A cost is robust to a busy machine by construction: the thread's own CPU time (time the
thread waits for a core is not counted), calls in batches long enough for the clock's
own cost to vanish (:data:`BATCH_NS`), and the least per-call time of up to
:data:`REPEATS` batches (noise only ever adds). Each call gets arguments of its own
(``make_call`` builds them afresh), so a version that consumes or sorts its input in
place is timed on the input it was given. The garbage collector is off while timing, as
``timeit`` has it (a collection walking the batch's arguments is not the version's
work). The same batches of a function that does nothing are timed and taken off: what
is left is the version's own work.
"""

from __future__ import annotations

import gc
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    Call = tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]

#: At most this many batches per input.
REPEATS = 7
#: A batch of short calls lasts at least about this long (ns of CPU time).
BATCH_NS = 500_000
#: At most this many calls in one batch.
MAX_LOOPS = 256
#: The wall time one input's timing may take (after its first, traced call).
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


def _nothing(*_args: Any, **_kwargs: Any) -> None:
    """The call whose cost is taken off: the loop, the call and the clock themselves."""
    return None


def _batch(calls: list[Call]) -> int:
    """CPU nanoseconds the calls of one batch take together."""
    start = _clock()
    for fn, args, kwargs in calls:
        fn(*args, **kwargs)
    return _clock() - start


def _least(make_call: Callable[[], Call], loops: int, deadline: float) -> float:
    """The least per-call CPU time over up to :data:`REPEATS` batches of ``loops`` calls
    (at least one batch, whatever the deadline)."""
    best: float | None = None
    for _ in range(REPEATS):
        if best is not None and _wall() > deadline:
            break
        calls = [make_call() for _ in range(loops)]
        per_call = _batch(calls) / loops
        best = per_call if best is None else min(best, per_call)
    assert best is not None
    return best


def cpu_cost(make_call: Callable[[], Call], seconds: float = SECONDS) -> int:
    """CPU nanoseconds one call of ``make_call()`` takes, the cost of calling nothing the
    same way taken off (never below 0). A call that raises propagates: the caller drops
    the timing. ``seconds`` bounds the repetitions, not one call: a first call longer than
    it is the cost (the clock's own cost is nothing beside it, and noise little)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        deadline = _wall() + seconds
        first = _batch([make_call()])
        if first >= seconds * 1e9:
            return first
        loops = max(1, min(MAX_LOOPS, BATCH_NS // max(first, 1)))
        own = _least(make_call, loops, deadline)
        _fn, args, kwargs = make_call()
        idle = _least(lambda: (_nothing, args, kwargs), loops, _wall() + seconds)
        return max(0, round(own - idle))
    finally:
        if collecting:
            gc.enable()


__all__ = ["BATCH_NS", "MAX_LOOPS", "REPEATS", "SECONDS", "cpu_cost", "reusing"]
