"""One instant and one luck for every version (stdlib only; runs in the sandboxed child).

A version that reads the clock or draws random numbers would otherwise be compared on when
and with what luck it ran: three identical copies of ``return datetime.now() + ttl`` came
out as three outputs. Here, before any version's code runs, the world it reads besides its
inputs is made the same for every version of a set and every run (the JavaScript
runtime's ``values.js`` does the same for ``Date`` and ``Math.random``):

- **the wall clock** stands at :data:`NOW` (2025-01-01T12:00:00Z) at the start of each
  input and moves only by the time a version sleeps (``time.sleep`` still sleeps, so a slow
  version is still slow, and a retry loop that sleeps until a deadline still ends):
  ``time.time``, ``time_ns``, ``localtime``, ``gmtime``, ``ctime``, ``asctime`` and
  ``strftime`` without a time, and, once the ``datetime`` module is imported by anyone,
  ``datetime.now``, ``utcnow``, ``today`` and ``date.today``; the zone is UTC
  (``startup.environment`` sets ``TZ``). A loop that spins on the wall clock without
  ``time.sleep`` never sees it move and runs into its time limit. ``monotonic`` and
  ``perf_counter`` are left running: they measure waits (``asyncio``, ``threading``
  time their timers by them), and a duration is a measurement, not a value to compare;
- **randomness**: ``random`` is seeded by the input's place, whenever it is imported, and
  ``os.urandom`` (so ``uuid.uuid4``, ``secrets``, ``random.SystemRandom``) gives a fixed
  stream per input.

None of this is a boundary: a version can reach the real clock (``type(datetime.now())``
is the real class); it only has no reason to. The harness's own timing keeps the real
clocks it bound before :func:`install` (``timing.py``, ``child.py``).
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: The instant every input starts at, in seconds since the epoch (2025-01-01T12:00:00Z):
#: the JavaScript runtime's too.
NOW = 1_735_732_800
_MASK = (1 << 64) - 1
_PATCHED_ON_IMPORT = ("datetime", "random")
#: The standard library's folder (``os`` is always its own).
_STDLIB = os.path.dirname(os.__file__)


class _World:
    """The clock's offset (nanoseconds slept since the input began) and the stream
    ``os.urandom`` draws from."""

    def __init__(self) -> None:
        self.slept_ns = 0
        self.index = 0
        self.state = 0

    def reset(self, index: int) -> None:
        self.slept_ns = 0
        self.index = index
        self.state = (index * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & _MASK

    def random_bytes(self, n: int) -> bytes:
        """``n`` bytes of a splitmix64 stream: the same ones for every version."""
        out = bytearray()
        while len(out) < n:
            self.state = z = (self.state + 0x9E3779B97F4A7C15) & _MASK
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
            out += (z ^ (z >> 31)).to_bytes(8, "little")
        return bytes(out[:n])


_world = _World()


def reset(index: int) -> None:
    """Start input ``index``: the clock back at :data:`NOW`, ``random`` (when loaded)
    seeded by ``index``, the ``os.urandom`` stream restarted."""
    _world.reset(index)
    rnd = sys.modules.get("random")
    if rnd is not None and _standard(rnd):
        rnd.seed(index)


def install() -> None:
    """Fix the clock and the random source (before any version's code runs)."""
    _fix_time(time)
    _fix_urandom()
    for name in _PATCHED_ON_IMPORT:
        module = sys.modules.get(name)
        if module is not None and _standard(module):
            _ON_IMPORT[name](module)
    sys.meta_path.insert(0, _FixOnImport())


def _fix_time(module: Any) -> None:
    real_sleep = module.sleep
    real_localtime, real_gmtime = module.localtime, module.gmtime
    real_asctime, real_strftime = module.asctime, module.strftime

    def time_ns() -> int:
        return NOW * 1_000_000_000 + _world.slept_ns

    def now() -> float:
        return time_ns() / 1e9

    def sleep(seconds: float) -> None:
        real_sleep(seconds)  # raises as the real one does on a bad argument
        _world.slept_ns += int(seconds * 1e9)

    def localtime(seconds: float | None = None) -> Any:
        return real_localtime(now() if seconds is None else seconds)

    def gmtime(seconds: float | None = None) -> Any:
        return real_gmtime(now() if seconds is None else seconds)

    def ctime(seconds: float | None = None) -> str:
        return str(real_asctime(localtime(seconds)))

    def asctime(moment: Any = None) -> str:
        return str(real_asctime(localtime() if moment is None else moment))

    def strftime(format: str, moment: Any = None) -> str:
        return str(real_strftime(format, localtime() if moment is None else moment))

    for name, fixed in (("time", now), ("time_ns", time_ns), ("sleep", sleep),
                        ("localtime", localtime), ("gmtime", gmtime), ("ctime", ctime),
                        ("asctime", asctime), ("strftime", strftime)):
        fixed.__name__ = fixed.__qualname__ = name
        setattr(module, name, fixed)


def _fix_urandom() -> None:
    def urandom(size: int) -> bytes:
        if size < 0:
            raise ValueError("negative argument not allowed")
        return _world.random_bytes(int(size))

    os.urandom = urandom
    if hasattr(os, "getrandom"):
        os.getrandom = lambda size, flags=0: urandom(size)


def _fix_random(module: Any) -> None:
    """``random``: ``SystemRandom`` draws from the fixed ``os.urandom``; seeded now."""
    module._urandom = os.urandom
    module.seed(_world.index)


def _fix_datetime(module: Any) -> None:
    """``datetime.datetime`` and ``datetime.date`` replaced by classes whose ``now``,
    ``utcnow`` and ``today`` read the fixed clock; what they make is the real class's
    instance, and ``isinstance``, ``issubclass`` and pickling see the real class (only
    ``type(x) is datetime`` tells them apart)."""
    real_date, real_datetime, utc = module.date, module.datetime, module.timezone.utc
    epoch = real_datetime(1970, 1, 1, tzinfo=utc)

    def moment(tz: Any = None) -> Any:
        at = epoch + module.timedelta(microseconds=time.time_ns() // 1000)
        return at.replace(tzinfo=None) if tz is None else at.astimezone(tz)

    def today(cls: Any) -> Any:
        day = moment()
        return cls(day.year, day.month, day.day)

    def now(cls: Any, tz: Any = None) -> Any:
        at = moment(tz)
        return at if cls is fixed_datetime else cls(*_fields(at), tzinfo=at.tzinfo)

    def utcnow(cls: Any) -> Any:
        return cls.now()

    module.date = _standing_in(real_date, today=classmethod(today))
    fixed_datetime = module.datetime = _standing_in(
        real_datetime, now=classmethod(now), utcnow=classmethod(utcnow),
        today=classmethod(utcnow))


class _StandIn(type):
    """The metaclass of a class standing in for a real one (``_real``): the real class's
    instances and subclasses are its own (its subclasses check as any class does)."""

    def __instancecheck__(cls, obj: object) -> bool:
        real = cls.__dict__.get("_real")
        return isinstance(obj, real) if real is not None else type.__instancecheck__(cls, obj)

    def __subclasscheck__(cls, sub: type) -> bool:
        real = cls.__dict__.get("_real")
        return issubclass(sub, real) if real is not None else type.__subclasscheck__(cls, sub)


def _standing_in(real: type, **methods: Any) -> Any:
    """A subclass of ``real`` under its name, with ``methods``, that makes instances of
    ``real`` itself (its own subclasses make their own); pickled instances of ``real``
    name it, as the module now does."""
    import copyreg

    def __new__(cls: Any, *args: Any, **kwargs: Any) -> Any:
        return real(*args, **kwargs) if cls is made else real.__new__(cls, *args, **kwargs)

    made = _StandIn(real.__name__, (real,), {
        "_real": real, "__new__": __new__, "__module__": real.__module__,
        "__qualname__": real.__qualname__, **methods})
    copyreg.pickle(real, lambda obj: (made, obj.__reduce__()[1]))
    return made


def _fields(at: Any) -> tuple[int, ...]:
    return (at.year, at.month, at.day, at.hour, at.minute, at.second, at.microsecond)


_ON_IMPORT = {"datetime": _fix_datetime, "random": _fix_random}


class _FixOnImport:
    """A meta-path finder that fixes ``datetime`` and ``random`` right after either is
    first imported (by a version, its module or the standard library), before the
    importer reads a name of it."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name not in _ON_IMPORT:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _ThenFix(spec.loader, _ON_IMPORT[name])  # type: ignore[assignment]
                return spec
        return None


class _ThenFix:
    """A loader that runs the real one, then fixes the module it made."""

    def __init__(self, loader: Any, fix: Any) -> None:
        self.loader = loader
        self.fix = fix

    def create_module(self, spec: Any) -> Any:
        return self.loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self.loader.exec_module(module)
        if _standard(module):
            self.fix(module)


def _standard(module: Any) -> bool:
    """Whether ``module`` is the standard library's (a workspace's own ``random.py`` is
    left as it is)."""
    where = getattr(module, "__file__", None)
    return isinstance(where, str) and os.path.dirname(where) == _STDLIB
