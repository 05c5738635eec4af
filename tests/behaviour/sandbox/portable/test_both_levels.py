"""A hostile corpus that must hold under both isolating levels, strict and portable: no
file written, no secret read, no connection made, no fooled grade, bounded time."""

from __future__ import annotations

import json
import socket
import struct
import time
from pathlib import Path

import pytest

from codequorum.behaviour.sandbox.limits import Limits
from codequorum.behaviour.sandbox.portable import channel
from codequorum.behaviour.sandbox.supervisor import run_candidates
from codequorum.core.model import TestCase as Case

KEY = "CODEQUORUM_TEST_API_KEY"
TESTS = [Case("call", args=(3,), expected=9, has_expected=True, name="three"),
         Case("call", args=(4,), expected=16, has_expected=True, name="four")]


def _forged_pass() -> str:
    lines = []
    for index, value in ((0, 9), (1, 16)):
        out = {"name": "t", "passed": True, "output": str(value), "exc_type": None,
               "exc_message": None, "opcodes": None, "opcode_total": 0, "seconds": 0.0,
               "value": value}
        body = json.dumps({"v": 1, "type": "test", "index": index, "outcome": out}).encode()
        lines.append(struct.pack(">I", len(body)) + body)
    return ("import os\ndef f(n):\n"
            f"    for fd in (1, 3):\n        for frame in {lines!r}:\n"
            "            try:\n                os.write(fd, frame)\n"
            "            except OSError:\n                pass\n"
            "    return None\n")


def corpus(outside: Path, port: int) -> dict[str, str]:
    return {
        "busy_loop": "def f(n):\n    while True:\n        pass\n",
        "alloc_1500mb": "def f(n):\n    return len(bytearray(1500 * 1024 ** 2))\n",
        "write_outside": (f"def f(n):\n    with open({str(outside)!r}, 'w') as fh:\n"
                          "        fh.write('x')\n"),
        "read_api_key": f"import os\ndef f(n):\n    return os.environ.get({KEY!r})\n",
        "connect": ("import socket\ndef f(n):\n    s = socket.socket()\n"
                    f"    s.connect(('127.0.0.1', {port}))\n    s.sendall(b'stolen')\n"),
        "always_equal": ("class A:\n    def __eq__(self, other):\n        return True\n"
                         "def f(n):\n    return A()\n"),
        "forged_pass": _forged_pass(),
        "os_exit": "import os\ndef f(n):\n    os._exit(3)\n",
    }


@pytest.mark.parametrize("level", ["strict", "portable", "portable-process"])
def test_a_hostile_corpus_holds(level: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                listener: socket.socket) -> None:
    outside = tmp_path / "written-by-candidate.txt"
    monkeypatch.setenv(KEY, "sk-secret-value")
    if level == "portable-process":  # the portable level over a process per guest
        monkeypatch.setenv(channel.FORCE, channel.PROCESS)
        level = "portable"
    codes = corpus(outside, listener.getsockname()[1])
    started = time.monotonic()
    results = run_candidates(list(codes.values()), TESTS, "f",
                             Limits(wall_seconds=8.0, cpu_seconds=4.0, memory_mb=512,
                                    test_seconds=2.0), jobs=2, sandbox=level)
    elapsed = time.monotonic() - started
    by_name = dict(zip(codes, results, strict=True))
    # nothing passes, whatever it claims
    for name, result in by_name.items():
        assert not any(t.passed for t in result.tests), (name, result.tests)
    assert by_name["busy_loop"].status == "timeout"
    assert by_name["alloc_1500mb"].tests[0].exc_type == "MemoryError"
    assert not outside.exists()
    assert "sk-secret-value" not in repr(by_name["read_api_key"].tests)
    assert [t.output for t in by_name["read_api_key"].tests] == ["None", "None"]
    assert by_name["connect"].status == "forbidden: network"
    with pytest.raises(TimeoutError):
        listener.accept()
    assert by_name["os_exit"].status == "exit"
    # the real outcome follows the forged one: a second outcome for a test is a forgery
    assert by_name["forged_pass"].status == "protocol-violation"
    assert elapsed < 8 * 4 + 30  # bounded: eight versions of at most 8 s, two at a time
