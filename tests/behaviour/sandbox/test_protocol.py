"""Framing and the tagged value codec."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codequorum.behaviour.sandbox import child, protocol

literals = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text()
    | st.binary()
    | st.complex_numbers(allow_nan=False),
    lambda inner: (
        st.lists(inner)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text() | st.integers(), inner)
        | st.frozensets(st.integers() | st.text())
    ),
    max_leaves=20,
)


@settings(max_examples=60, deadline=None)
@given(literals)
def test_values_round_trip_through_json_frames(value: object) -> None:
    frame = protocol.encode_frame({"type": "x", "value": protocol.encode_value(value)})
    (message,) = protocol.FrameReader().feed(frame)
    assert protocol.decode_value(message["value"]) == value


def test_tags_keep_container_types() -> None:
    value = {(1, 2): {3}, "b": bytearray(b"\x00\xff"), "f": frozenset({1}), "c": 1 + 2j}
    back: dict[object, object] = protocol.decode_value(protocol.encode_value(value))
    assert back == value
    assert type(next(iter(back))) is tuple
    assert type(back["b"]) is bytearray


def test_non_finite_floats() -> None:
    back = protocol.decode_value(protocol.encode_value([math.inf, -math.inf, math.nan]))
    assert back[:2] == [math.inf, -math.inf]
    assert math.isnan(back[2])


def test_non_literal_values_are_refused() -> None:
    with pytest.raises(TypeError, match="not a literal"):
        protocol.encode_value(object())


def test_reader_splits_and_joins_frames() -> None:
    data = b"".join(protocol.encode_frame({"type": "t", "i": i}) for i in range(3))
    reader = protocol.FrameReader()
    got = reader.feed(data[:5]) + reader.feed(data[5:17]) + reader.feed(data[17:])
    assert [m["i"] for m in got] == [0, 1, 2]
    assert all(m["v"] == protocol.VERSION for m in got)
    assert reader.pending == 0


def test_reader_rejects_oversized_and_foreign_frames() -> None:
    with pytest.raises(protocol.ProtocolError, match="exceeds"):
        protocol.FrameReader(max_frame=10).feed(protocol.HEADER.pack(11) + b"x" * 11)
    body = b'{"v": 2, "type": "t"}'
    with pytest.raises(protocol.ProtocolError, match="version-1"):
        protocol.FrameReader().feed(protocol.HEADER.pack(len(body)) + body)
    with pytest.raises(protocol.ProtocolError, match="bad frame"):
        protocol.FrameReader().feed(protocol.HEADER.pack(3) + b"{{{")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
    max_leaves=20,
)


@given(json_values)
@settings(max_examples=200, deadline=None)
def test_frames_hold_the_text_json_writes_and_reads(value: object) -> None:
    text = json.dumps({"value": value}, separators=(",", ":"), allow_nan=False)
    assert protocol.dumps({"value": value}) == text
    assert protocol.loads(f" {text}\n") == json.loads(text)


def test_the_codec_refuses_what_json_refuses() -> None:
    circular: list[object] = []
    circular.append(circular)
    for bad, kind in ((math.nan, ValueError), ({1j: 1}, TypeError), (object(), TypeError),
                      (circular, ValueError)):
        with pytest.raises(kind):
            protocol.dumps(bad)
    for text in ('{"a":', '{"a" 1}', "[1,]", '"\\x"', "1 2", "", "nul", "[" * 100):
        with pytest.raises(ValueError):
            protocol.loads(text)
    assert protocol.loads("[NaN, -Infinity]")[1] == -math.inf


def test_malformed_frames_are_refused_where_json_was_never_imported(tmp_path: Path) -> None:
    source = str(Path(protocol.__file__))
    script = (
        "import sys, types\n"
        f"m = types.ModuleType('p'); exec(open({source!r}).read(), m.__dict__)\n"
        "for body in (b'{\"v\": 1 \"type\"}', b'{\"a\" 1}', b'[\"\\\\x\"]', b'{}x'):\n"
        "    try:\n"
        "        m.decode_body(body)\n"
        "    except m.ProtocolError:\n"
        "        print('refused')\n"
        "print('json' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-I", "-S", "-c", script], capture_output=True,
                          text=True, check=True, cwd=tmp_path)
    assert done.stdout.split() == ["refused"] * 4 + ["False"]


def test_datetimes_values_cross_tagged_and_a_time_zone_or_a_forged_one_does_not() -> None:
    import datetime as dt

    values = [dt.timedelta(days=-1, seconds=5, microseconds=7), dt.date(2024, 2, 29),
              dt.datetime(2000, 1, 1, 12, 0, 0, 1), (dt.timedelta(0),)]
    encoded = [protocol.encode_value(v) for v in values]
    assert encoded[0] == {"$": "timedelta", "v": [-1, 5, 7]}
    assert encoded[1] == {"$": "date", "v": "2024-02-29"}
    assert [protocol.decode_value(e) for e in encoded] == values
    assert type(protocol.decode_value(encoded[2])) is dt.datetime
    with pytest.raises(TypeError, match="not a literal"):
        protocol.encode_value(dt.datetime(2000, 1, 1, tzinfo=dt.UTC))
    for forged in ({"$": "timedelta", "v": [10**12, 0, 0]}, {"$": "date", "v": "2000-13-01"},
                   {"$": "timedelta", "v": ["9" * 5000, 0, 0]}, {"$": "datetime", "v": None}):
        with pytest.raises(protocol.ProtocolError, match="malformed value"):
            protocol.decode_untrusted(forged)


def test_a_function_crosses_as_its_text_and_only_the_child_makes_it() -> None:
    made = protocol.Lambda("lambda x, *rest: x * 2 + 1")
    data = protocol.encode_value((made, [made]))
    assert data == {"$": "tuple", "v": [{"$": "lambda", "v": made.source},
                                        [{"$": "lambda", "v": made.source}]]}
    # the parent reads the text back, never a function
    assert protocol.decode_untrusted(data) == (made, [made])
    assert repr(protocol.decode_value(data)[0]) == "lambda x, *rest: x * 2 + 1"
    fn, [same] = protocol.decode_value(data, child.made_function)
    # its code is the input's (the tracer never counts it), behind the call recorder
    assert fn(3) == same(3) == 7 and fn.__wrapped__.__code__.co_filename == "<input>"
    assert protocol.Lambda("lambda: 1") != protocol.Lambda("lambda: 2")
