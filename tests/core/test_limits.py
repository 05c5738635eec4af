"""The bounds on untrusted text: sizes in words, JSON nesting told without decoding,
versions handed in at once, a message's size and values."""

from __future__ import annotations

import json

import pytest

from codequorum.core.limits import (
    MAX_CALL_BYTES,
    MAX_JSON_DEPTH,
    MAX_MESSAGE_BYTES,
    MAX_MESSAGE_VALUES,
    MAX_VERSION_BYTES,
    InputLimitError,
    check_call_sizes,
    json_depth_problem,
    json_nests_deeper,
    json_shape_problem,
    message_size_problem,
    size_words,
    utf8_size,
)


def test_size_words() -> None:
    assert [size_words(n) for n in (0, 1023, 1024, 500 * 1024, 2 * 1024 * 1024,
                                    int(9.5 * 1024 * 1024))] == [
        "0 bytes", "1,023 bytes", "1 KB", "500 KB", "2 MB", "9.5 MB"]
    assert utf8_size("héllo") == 6 and utf8_size("abc") == 3 and utf8_size("\udc80") == 1


@pytest.mark.parametrize(("text", "deeper"), [
    ("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH, False),
    ("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1), True),
    ('{"a": ' * (MAX_JSON_DEPTH + 1) + "1" + "}" * (MAX_JSON_DEPTH + 1), True),
    ("[" + json.dumps("[" * 5000) + "]", False),  # brackets in a string do not count
    ("[" + json.dumps("\\\"[[[") + "," + "[" * 99 + "]" * 99 + "]", False),
    ("[" + ",".join(["[]"] * 10_000) + "]", False),  # many, but side by side
    ("[" * 200_000, True),  # broken JSON still told apart
])
def test_json_nesting_is_told_without_decoding(text: str, deeper: bool) -> None:
    assert json_nests_deeper(text) is deeper
    assert json_nests_deeper(text.encode()) is deeper
    if not deeper and text.count("[") == text.count("]"):
        json.loads(text)  # what passes decodes
    assert (json_depth_problem(text) is not None) is deeper


def test_versions_handed_in_at_once() -> None:
    check_call_sizes(["def f():\n    pass\n"] * 3)
    with pytest.raises(InputLimitError, match=r"^version 2 is 1 MB of code \(at most 1 MB\)$"):
        check_call_sizes(["x = 1\n", "x" * (MAX_VERSION_BYTES + 1)])
    near = "x" * MAX_VERSION_BYTES
    with pytest.raises(InputLimitError, match="at most 16 MB at once"):
        check_call_sizes([near] * (MAX_CALL_BYTES // MAX_VERSION_BYTES + 1))


def test_a_message_over_its_size_is_not_read() -> None:
    assert MAX_MESSAGE_BYTES == 2 * MAX_CALL_BYTES
    assert message_size_problem(MAX_MESSAGE_BYTES) is None
    assert message_size_problem(MAX_MESSAGE_BYTES + 1) == (
        "a message of 32 MB (at most 32 MB are read)")


VALUES = "a message of more than 250,000 JSON values (the limit)"


@pytest.mark.parametrize(("message", "problem"), [
    ({"text": "a, b, c" * MAX_MESSAGE_VALUES}, None),  # commas inside a string
    ({"versions": ["x"] * (MAX_MESSAGE_VALUES - 1)}, None),
    ({"versions": ["x"] * (MAX_MESSAGE_VALUES + 1)}, VALUES),
    ({f"k{i}": i for i in range(MAX_MESSAGE_VALUES + 5)}, VALUES),
    ({"a": [[[1]]], "b": "[" * 500}, None),
    ({"a": ['\\"[,' * MAX_MESSAGE_VALUES, '\\', '"\\\\' * 300]}, None),  # escapes
    ({"a": ["\\"] * (MAX_MESSAGE_VALUES + 1)}, VALUES),
    ({"a": json.loads("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1))},
     f"a message of JSON nested more than {MAX_JSON_DEPTH} levels deep"),
    ({"pad": "[," * 600_000, "a": json.loads("[" * 101 + "]" * 101)},  # past the first MB
     f"a message of JSON nested more than {MAX_JSON_DEPTH} levels deep"),
])
def test_a_message_with_too_many_values_is_told_from_its_bytes(
        message: object, problem: str | None) -> None:
    assert json_shape_problem(json.dumps(message).encode()) == problem
