"""Child side: a docstring example run as doctest runs it, and results that are iterators
consumed or functions called (stdlib only; the sandbox child loads this file by path).

An ``example`` test holds the example's own code (``source``) and the examples before it
in its docstring (``setup``). Like doctest, the example runs in a copy of its module's
globals (the version already in the function's place): each earlier example is executed
first, its output discarded and its errors passed over (doctest goes on after a failing
example), then the example itself in ``single`` mode, so an expression shows its value
on the captured output. What the example shows is its value: the text printed, and the
canonical repr of an expression's value (an iterator or an async generator shown as the
list of its first :data:`MAX_ITEMS` items, a coroutine as what it returns: :func:`driven`).

A function a version returns (``once(f)``, ``memoize(f)``, ``adder(3)``) is shown by what
it does, not by its name: :func:`probed` calls it on :func:`probe_rows` and keeps what each
call gave, and what a function an input passed (:func:`recording`) was called with
meanwhile. Two versions whose returned functions answer alike return the same thing
(``wrapper`` and ``inner`` alike); a ``once`` that calls ``f`` again differs from one that
does not, and a ``memoize`` that calls ``f`` on every call from one that caches.
"""

from __future__ import annotations

import _thread
import functools
import itertools
import sys
import types

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

#: The file name examples are compiled under (tracebacks and the tracer see it).
EXAMPLE_FILENAME = "<doctest>"
#: How many items of an iterator a result shows (a generator may never end).
MAX_ITEMS = 1000


def is_iterator(value: Any) -> bool:
    """A generator or an iterator object (``map``, ``zip``, ``itertools.*``, a class
    whose ``__iter__`` returns itself): something only consuming shows."""
    if isinstance(value, types.GeneratorType):
        return True
    kind = type(value)
    return (getattr(kind, "__next__", None) is not None
            and getattr(kind, "__iter__", None) is not None
            and not isinstance(value, (str, bytes, bytearray, list, tuple, dict)))


def driven(awaitable: Any) -> Any:
    """What an awaitable (an ``async def`` function's coroutine) gives, driven step by step
    without an event loop: an ``await asyncio.sleep(0)`` passes; waiting on an event
    loop's future is an error that says so."""
    steps = awaitable.__await__()
    while True:
        try:
            step = steps.send(None)
        except StopIteration as end:
            return end.value
        if step is not None:
            steps.close()
            raise RuntimeError("it waits on an event loop's future; the sandbox runs "
                               "coroutines without an event loop")


#: The arguments a returned function of one parameter is called with, one call each:
#: the first again last, so that a function that remembers (``once``, a cache, a counter)
#: answers differently from one that does not.
PROBES = (1, 2, 1)
#: Most parameters a probe fills.
MAX_ARITY = 3
#: Most calls of an input's function a probe writes down (then one ``(...)``).
MAX_HEARD = 100
#: Most ``threading.Timer`` callbacks run after a probe's calls (:func:`_timers_run`).
MAX_TICKS = 100


def _unwrapped(fn: Any) -> tuple[Any, int]:
    """The function under a bound method, a ``functools.partial`` or a
    ``functools.lru_cache``/``cache`` wrapper, and how many of its positional arguments
    they already give."""
    bound = 0
    tools = sys.modules.get("functools")
    if tools is not None and isinstance(fn, tools.partial):
        bound, fn = len(fn.args), fn.func
    if isinstance(fn, types.MethodType):
        bound, fn = bound + 1, fn.__func__
    if tools is not None and isinstance(fn, tools._lru_cache_wrapper):
        fn = fn.__wrapped__
    return fn, bound


def is_made_function(value: Any) -> bool:
    """A function written in Python (a ``def`` or ``lambda``, bound or partially applied):
    what a version makes and returns, never a builtin or a class."""
    return isinstance(_unwrapped(value)[0], types.FunctionType)


def arity(fn: Any) -> int:
    """How many positional arguments a probe gives ``fn``: its parameters without a
    default (one for ``*args`` alone), at most :data:`MAX_ARITY`."""
    fn, bound = _unwrapped(fn)
    code = fn.__code__
    wanted: int = code.co_argcount - len(fn.__defaults__ or ()) - bound
    if wanted <= 0 and code.co_flags & 0x04:  # CO_VARARGS
        wanted = 1
    return min(max(wanted, 0), MAX_ARITY)


class Raised:
    """A timer's callback that raised, as :func:`probed` hears it: its class name."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


class Returned:
    """A returned function as the calls :func:`probed` made: ``(args, value)`` where it
    returned, ``(args, None, name)`` where it raised ``name``; ``heard``: the arguments
    of each call a function an input passed received meanwhile, from ``later`` on those
    the timers the calls started made (None: none)."""

    __slots__ = ("calls", "heard", "later")

    def __init__(self, calls: list[tuple[Any, ...]],
                 heard: list[tuple[Any, ...] | Raised] | None = None,
                 later: int | None = None) -> None:
        self.calls = calls
        self.heard = heard or []
        self.later = later

    def text(self, shown: Callable[[Any], str]) -> str:
        """``<function: (1) -> 2, (2) -> raises TypeError; calls back (1), then later
        (2)>``; ``shown`` writes a value."""
        parts = []
        for call in self.calls:
            args = ", ".join(map(repr, call[0]))
            said = f"raises {call[2]}" if len(call) > 2 else (
                "<function>" if is_made_function(call[1]) else shown(call[1]))
            parts.append(f"({args}) -> {said}")
        cut = len(self.heard) if self.later is None else self.later
        at_once = ", ".join(_heard_word(h, shown) for h in self.heard[:cut])
        later = ", ".join(_heard_word(h, shown) for h in self.heard[cut:])
        back = at_once + (", then later " if at_once and later else "later " if later
                          else "") + later
        return "<function: " + ", ".join(parts) + ("; calls back " + back if back else "") + ">"

    def __repr__(self) -> str:
        return self.text(repr)


def _heard_word(heard: tuple[Any, ...] | Raised, shown: Callable[[Any], str]) -> str:
    """One call heard, ``(1, 'a')``; ``...`` past the bound; ``raises E`` for a timer's
    callback that raised."""
    if isinstance(heard, Raised):
        return f"raises {heard.name}"
    if heard == (Ellipsis,):
        return "..."
    return "(" + ", ".join("<function>" if is_made_function(a) else shown(a)
                           for a in heard) + ")"


#: While a returned function is probed: the arguments each call of an input's function
#: received on the probing thread (:func:`recording`); None otherwise.
_heard: list[tuple[Any, ...]] | None = None
_probing_thread: int | None = None


def recording(fn: Any) -> Any:
    """``fn`` (a function an input passes) writing down the arguments of each call made
    while a returned function is probed; its signature stays ``fn``'s (``__wrapped__``).
    A call from another thread (a ``threading.Timer`` that fires whenever it fires) is not
    written down: what is heard must not depend on when a thread ran."""
    if not callable(fn):
        return fn

    @functools.wraps(fn)
    def made(*args: Any, **kwargs: Any) -> Any:
        if (_heard is not None and len(_heard) <= MAX_HEARD
                and _thread.get_ident() == _probing_thread):
            _heard.append(args + tuple(sorted(kwargs.items())) if len(_heard) < MAX_HEARD
                          else (Ellipsis,))
        return fn(*args, **kwargs)

    return made


def probe_rows(width: int) -> list[tuple[int, ...]]:
    """The calls' arguments for ``width`` parameters: each of :data:`PROBES` for one (none
    for none); for more, ``(1, 2)``, ``(2, 3)``, ``(1, 5)`` (the first row with its last
    argument changed: a cache keyed on the first argument alone answers it from the
    first call) and the first again."""
    if width <= 1:
        return [(probe,) * width for probe in PROBES]
    first = tuple(range(1, width + 1))
    return [first, tuple(range(2, width + 2)), (*first[:-1], width + 3), first]


def probed(fn: Any) -> Returned:
    """``fn`` called on each of :func:`probe_rows` (inside the test's clock and trace, as a
    caller of the returned function would run it); an exception is kept by its class
    name only (its message names the function, which versions name as they like)."""
    global _heard, _probing_thread
    calls: list[tuple[Any, ...]] = []
    width = arity(fn)
    outer, _heard = _heard, []
    heard: list[tuple[Any, ...] | Raised] = _heard  # type: ignore[assignment]
    _probing_thread = _thread.get_ident()
    timers: list[tuple[float, int, Any]] = []
    start = _deferring(timers)
    try:
        for args in probe_rows(width):
            try:
                calls.append((args, consumed(fn(*args), probe=False)))
            except Exception as exc:  # the version's own error is what the call gave
                calls.append((args, None, type(exc).__name__))
        at_once = len(heard)
        _timers_run(timers, heard)
    finally:
        _heard = outer
        if start is not None:
            import threading
            threading.Timer.start = start  # type: ignore[method-assign]
    return Returned(calls, heard, at_once if len(heard) > at_once else None)


def _deferring(timers: list[tuple[float, int, Any]]) -> Any:
    """``threading.Timer.start`` made to queue the timer in ``timers`` by when it is due
    (on a clock that stands while the probes run) instead of starting a thread: what a
    ``debounce`` passes on must not depend on when a thread ran. The original ``start``
    (None where the interpreter has no threads module)."""
    try:
        import threading
    except ImportError:
        return None
    original = threading.Timer.start
    order = itertools.count()

    def deferred(self: Any) -> None:
        try:
            due = float(self.interval)
        except (TypeError, ValueError):
            due = 0.0
        timers.append((due, next(order), self))

    threading.Timer.start = deferred  # type: ignore[method-assign]
    return original


def _timers_run(timers: list[tuple[float, int, Any]],
                heard: list[tuple[Any, ...] | Raised]) -> None:
    """The queued timers not cancelled, in order of when they are due (one a callback
    starts is due that much after it), at most :data:`MAX_TICKS`, on the probing thread:
    what their callbacks pass to an input's function is heard; one that raises is heard
    as :class:`Raised`."""
    now = 0.0
    for _ in range(MAX_TICKS):
        if not timers:
            return
        timers.sort(key=lambda t: (t[0], t[1]))
        due, _order, timer = timers.pop(0)
        now = max(now, due)
        if timer.finished.is_set():  # cancelled
            continue
        timer.finished.set()
        waiting = len(timers)
        try:
            timer.function(*timer.args, **timer.kwargs)
        except Exception as exc:  # the version's callback: heard as what it raised
            heard.append(Raised(type(exc).__name__))
        for k in range(waiting, len(timers)):  # started by the callback: due from now
            timers[k] = (now + timers[k][0], timers[k][1], timers[k][2])


def consumed(value: Any, probe: bool = True) -> Any:
    """``value``, the result of a coroutine, or the list of an iterator's (or an async
    generator's) first :data:`MAX_ITEMS` items; with ``probe``, a function a version made
    as what it gave on each probe (:func:`probed`)."""
    if probe and is_made_function(value):
        return probed(value)
    if isinstance(value, types.CoroutineType):
        return consumed(driven(value), probe)
    if isinstance(value, types.AsyncGeneratorType):
        items: list[Any] = []
        while len(items) < MAX_ITEMS:
            try:
                items.append(driven(value.__anext__()))
            except StopAsyncIteration:
                break
        return items
    if is_iterator(value):
        return list(itertools.islice(value, MAX_ITEMS))
    return value


def consuming(entry: Callable[..., Any]) -> Callable[..., Any]:
    """``entry`` whose iterator results come back consumed (inside the test's clock and
    trace: the generator's body runs while it is consumed)."""

    def call(*args: Any, **kwargs: Any) -> Any:
        return consumed(entry(*args, **kwargs))

    return call


def prepare(globals_: dict[str, Any], test: dict[str, Any], discard: Any,
            shown: Callable[[Any], str]) -> Callable[[], None]:
    """The example's run, its earlier examples already executed in a copy of
    ``globals_`` with their output written to ``discard``. ``shown`` turns a value into
    the text an expression shows."""
    namespace = dict(globals_)
    kept = sys.stdout
    sys.stdout = discard
    try:
        for source in test.get("setup") or ():
            try:
                exec(compile(str(source), EXAMPLE_FILENAME, "single", dont_inherit=True),
                     namespace)
            except Exception:  # doctest goes on after an example that fails
                continue
    finally:
        sys.stdout = kept
    code = compile(str(test.get("source") or ""), EXAMPLE_FILENAME, "single",
                   dont_inherit=True)

    def display(value: Any) -> None:
        if value is not None:
            sys.stdout.write(shown(consumed(value)) + "\n")

    def run() -> None:
        hook = sys.displayhook
        sys.displayhook = display
        try:
            exec(code, namespace)
        finally:
            sys.displayhook = hook

    return run
