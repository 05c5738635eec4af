"""Messages between the parent and the sandbox child (version 1).

Stdlib only: the child loads this file by path under ``python -s -S``.

Framing: every message is a 4-byte big-endian length followed by that many bytes of
UTF-8 JSON, an object ``{"v": 1, "type": ..., ...}``. The parent sends one ``run``
message on the child's stdin; the child answers on a dedicated pipe (never its stdout).

Child -> parent message types:
``hello`` (layers, python), ``test-start`` (index), ``test`` (index, outcome),
``forbidden`` (what, detail), ``output-limit``, ``syntax-error`` (detail),
``exit`` (code), ``error`` (detail), ``done``, and for a version run in its module
``module`` (loaded, detail), sent once, after ``hello`` and before any version code runs.

Test values (``args``, ``kwargs``, ``expected``) cross the pipe as tagged JSON built
by :func:`encode_value`: ``None``, ``bool``, ``int``, ``float`` (NaN and infinities
too), ``str``, ``list`` as plain JSON; ``tuple``, ``set``, ``frozenset``, ``dict`` (any
literal keys), ``bytes``, ``bytearray`` and ``complex`` as ``{"$": tag, "v": ...}``, and
``datetime``'s ``timedelta`` (days, seconds, microseconds), ``date`` and naive ``datetime``
(ISO text) the same way (``datetime`` is imported only where such a value is decoded), and a
function an input passes as its source, ``{"$": "lambda", "v": "lambda x: x * 2 + 1"}``
(:class:`Lambda`: text in the parent, made into a function in the child only).
Anything else is refused in the parent with :class:`TypeError`.
"""

from __future__ import annotations

# The JSON codec is ``json``'s own C accelerator, driven as ``json.dumps``/``json.loads``
# drive it (the same text), without importing ``json``: its ``re`` and ``enum`` were a
# third of what a portable guest's start cost.
import _json
import math
import struct

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

VERSION = 1
HEADER = struct.Struct(">I")
MAX_FRAME = 64 * 1024 * 1024

MSG_RUN = "run"
MSG_HELLO = "hello"
MSG_TEST_START = "test-start"
MSG_TEST = "test"
MSG_FORBIDDEN = "forbidden"
MSG_OUTPUT_LIMIT = "output-limit"
MSG_SYNTAX_ERROR = "syntax-error"
MSG_EXIT = "exit"
MSG_ERROR = "error"
MSG_DONE = "done"
MSG_MODULE = "module"


class ProtocolError(Exception):
    """A malformed or oversized frame, or a message of another version."""


def _not_json(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def dumps(value: Any) -> str:
    """``json.dumps(value, separators=(",", ":"), allow_nan=False)``, the same text."""
    encode = _json.make_encoder({}, _not_json, _json.encode_basestring_ascii, None,
                                ":", ",", False, False, False)
    return "".join(encode(value, 0))


class _Scan:
    """What ``_json.make_scanner`` reads from a decoder: ``json.loads``'s defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = float  # NaN, Infinity, -Infinity


_scan = _json.make_scanner(_Scan)  # type: ignore[arg-type]  # reads the attributes only
_SPACE = " \t\n\r"


def loads(text: str) -> Any:
    """``json.loads(text)`` for a str: the same value, or ValueError."""
    start = len(text) - len(text.lstrip(_SPACE))
    try:
        value, end = _scan(text, start)
    except StopIteration as stop:
        raise ValueError(f"Expecting value at char {stop.value}") from None
    except SystemError:  # malformed: the accelerator builds its error from ``json.decoder``
        raise ValueError("malformed JSON") from None  # only where that is imported already
    if end < len(text.rstrip(_SPACE)):
        raise ValueError(f"Extra data at char {end}")
    return value


def encode_frame(message: dict[str, Any]) -> bytes:
    """One message -> length-prefixed JSON bytes (adds the version field)."""
    body = dumps({"v": VERSION, **message})
    data = body.encode("utf-8")
    if len(data) > MAX_FRAME:
        raise ProtocolError(f"message of {len(data)} bytes exceeds {MAX_FRAME}")
    return HEADER.pack(len(data)) + data


def decode_body(data: bytes) -> dict[str, Any]:
    """The JSON body of one frame -> message dict (checks the version)."""
    try:
        message = loads(data.decode("utf-8"))
    except RecursionError:
        raise ProtocolError("bad frame: nested too deeply") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise ProtocolError(f"bad frame: {exc}") from None
    if not isinstance(message, dict) or message.get("v") != VERSION or "type" not in message:
        raise ProtocolError("frame is not a version-1 message")
    result: dict[str, Any] = message
    return result


class FrameReader:
    """Incremental decoder: feed bytes, take whole messages."""

    def __init__(self, max_frame: int = MAX_FRAME) -> None:
        self._buf = bytearray()
        self._max = max_frame

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        """Add bytes; return the messages completed by them."""
        self._buf += data
        out = []
        while len(self._buf) >= HEADER.size:
            (size,) = HEADER.unpack_from(self._buf)
            if size > self._max:
                raise ProtocolError(f"frame of {size} bytes exceeds {self._max}")
            if len(self._buf) < HEADER.size + size:
                break
            body = bytes(self._buf[HEADER.size : HEADER.size + size])
            del self._buf[: HEADER.size + size]
            out.append(decode_body(body))
        return out

    @property
    def pending(self) -> int:
        """Bytes of an incomplete frame still buffered."""
        return len(self._buf)


def encode_value(value: Any) -> Any:
    """A literal Python value -> tagged JSON-safe data (see the module docstring)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return {"$": "float", "v": repr(value)}
    if isinstance(value, list):
        return [encode_value(v) for v in value]
    if isinstance(value, tuple):
        return {"$": "tuple", "v": [encode_value(v) for v in value]}
    if isinstance(value, frozenset):
        return {"$": "frozenset", "v": [encode_value(v) for v in value]}
    if isinstance(value, set):
        return {"$": "set", "v": [encode_value(v) for v in value]}
    if isinstance(value, dict):
        return {"$": "dict", "v": [[encode_value(k), encode_value(v)] for k, v in value.items()]}
    if isinstance(value, (bytes, bytearray)):
        tag = "bytes" if isinstance(value, bytes) else "bytearray"
        return {"$": tag, "v": bytes(value).hex()}
    if isinstance(value, complex):
        return {"$": "complex", "v": [encode_value(value.real), encode_value(value.imag)]}
    timed = _encode_time(value)
    if timed is not None:
        return timed
    if type(value) is Lambda:
        return {"$": "lambda", "v": value.source}
    raise TypeError(f"test value of type {type(value).__name__} is not a literal")


#: The values of ``datetime`` a test may hold, by their tag (a type's own name).
TIME_TAGS = frozenset({"timedelta", "date", "datetime"})


def _encode_time(value: Any) -> dict[str, Any] | None:
    """A ``timedelta``, ``date`` or naive ``datetime`` (exactly those types) as tagged
    data; None for anything else (a time zone is an object of its own)."""
    kind = type(value)
    if kind.__module__ != "datetime" or kind.__name__ not in TIME_TAGS:
        return None
    if kind.__name__ == "timedelta":
        return {"$": "timedelta", "v": [value.days, value.seconds, value.microseconds]}
    if kind.__name__ == "datetime" and value.tzinfo is not None:
        return None
    return {"$": kind.__name__, "v": value.isoformat()}


def _decode_time(tag: str, v: Any) -> Any:
    import datetime

    if tag == "timedelta":
        days, seconds, microseconds = (int(x) for x in v)
        return datetime.timedelta(days=days, seconds=seconds, microseconds=microseconds)
    made = datetime.datetime if tag == "datetime" else datetime.date
    return made.fromisoformat(str(v))


MAX_PLAIN_ITEMS = 10_000
MAX_PLAIN_DEPTH = 32
MAX_PLAIN_STR = 1 << 20
_PLAIN_SCALARS = (type(None), bool, int, float, str, bytes, bytearray, complex)
_PLAIN_CONTAINERS = (list, tuple, set, frozenset, dict)


class Lambda:
    """A function an input passes (a ``Callable`` parameter's), as the text of a
    ``lambda``: what a label shows. The parent holds only the text; the child makes the
    function (:func:`decode_value` with ``make``), inside the sandbox."""

    __slots__ = ("source",)

    def __init__(self, source: str) -> None:
        self.source = source

    def __eq__(self, other: object) -> bool:
        return type(other) is Lambda and other.source == self.source

    def __hash__(self) -> int:
        return hash(("lambda", self.source))

    def __repr__(self) -> str:
        return self.source


class Opaque:
    """A returned value that was not plain data: only its ``repr`` crossed the pipe.

    It equals nothing (not even another ``Opaque`` with the same text), so a candidate's
    object cannot pass a test by claiming equality.
    """

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __eq__(self, other: object) -> bool:
        return False

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        return self.text


def _is_plain(value: Any, budget: list[int], depth: int) -> bool:
    """Exact plain types only (no subclasses, which could override ``__eq__``), bounded."""
    budget[0] -= 1
    if budget[0] < 0 or depth > MAX_PLAIN_DEPTH:
        return False
    t = type(value)
    if t in _PLAIN_SCALARS:
        if t is int:
            return bool(value.bit_length() <= 64 * 1024)
        return not (t in (str, bytes, bytearray) and len(value) > MAX_PLAIN_STR)
    if t in _PLAIN_CONTAINERS:
        if t is dict:
            return all(
                _is_plain(k, budget, depth + 1) and _is_plain(v, budget, depth + 1)
                for k, v in value.items()
            )
        return all(_is_plain(v, budget, depth + 1) for v in value)
    return False


def encode_plain(value: Any, fallback: str | None = None) -> Any:
    """A value returned by a candidate -> tagged JSON-safe data, or ``{"$": "repr"}``.

    Plain data (exact literal types, at most ``MAX_PLAIN_ITEMS`` items, ``MAX_PLAIN_DEPTH``
    levels, strings up to ``MAX_PLAIN_STR``) crosses as :func:`encode_value` encodes it;
    anything else crosses as its ``repr`` (cut), which decodes to an :class:`Opaque`.
    """
    if _is_plain(value, [MAX_PLAIN_ITEMS], 0):
        return encode_value(value)
    text = fallback
    if text is None:
        try:
            text = repr(value)
        except Exception as exc:
            text = f"<repr failed: {type(exc).__name__}>"
        if not isinstance(text, str):
            text = "<repr returned a non-string>"
    return {"$": "repr", "v": text[:MAX_PLAIN_STR]}


def decode_value(data: Any, make: Callable[[str], Any] | None = None) -> Any:
    """Tagged JSON-safe data -> the Python value :func:`encode_value` was given; a
    function an input passes is its :class:`Lambda`, or what ``make`` makes of its text
    (the child's, which evaluates it)."""
    if isinstance(data, list):
        return [decode_value(v, make) for v in data]
    if not isinstance(data, dict):
        return data
    tag = data.get("$")
    v: Any = data.get("v")
    if tag == "float":
        return float(str(v))
    if tag == "tuple":
        return tuple(decode_value(x, make) for x in v)
    if tag == "set":
        return {decode_value(x, make) for x in v}
    if tag == "frozenset":
        return frozenset(decode_value(x, make) for x in v)
    if tag == "dict":
        return {decode_value(k, make): decode_value(x, make) for k, x in v}
    if tag == "bytes":
        return bytes.fromhex(str(v))
    if tag == "bytearray":
        return bytearray.fromhex(str(v))
    if tag == "complex":
        re_, im = v
        return complex(decode_value(re_), decode_value(im))
    if tag == "repr":
        return Opaque(str(v))
    if tag in TIME_TAGS:
        return _decode_time(str(tag), v)
    if tag == "lambda":
        return Lambda(str(v)) if make is None else make(str(v))
    raise ProtocolError(f"unknown value tag {tag!r}")


def decode_untrusted(data: Any) -> Any:
    """:func:`decode_value` for data from a child: any malformation is a ProtocolError."""
    try:
        return decode_value(data)
    except ProtocolError:
        raise
    except (TypeError, ValueError, KeyError, AttributeError, RecursionError,
            OverflowError) as exc:
        raise ProtocolError(f"malformed value: {type(exc).__name__}") from None
