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
    if level == "portable-process":  # the portable level over the guests' own process
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


@pytest.mark.parametrize("level", ["strict", "portable"])
def test_what_a_version_prints_to_the_original_stdout_is_output_not_messages(
        level: str) -> None:
    """``print(..., file=sys.__stdout__)`` (a logger or a progress line bound to the
    interpreter's own stream) is plain output in both levels: in the portable guest that
    descriptor carries the harness's messages, so the version's writes must not reach it."""
    code = ("import sys\ndef f(n):\n    print('progress', n, file=sys.__stdout__)\n"
            "    sys.__stdout__.buffer.write(b'\\xff raw\\n')\n    sys.__stdout__.flush()\n"
            "    return n * n\n")
    [result] = run_candidates([code], TESTS, "f", Limits(wall_seconds=20.0), sandbox=level)
    assert result.status == "ok", result.detail
    assert [(t.passed, t.output) for t in result.tests] == [(True, "9"), (True, "16")]


@pytest.mark.parametrize("level", ["strict", "portable"])
@pytest.mark.parametrize("module", ["_testcapi", "_testinternalcapi"])
def test_interpreter_internals_are_refused_however_they_are_imported(
        level: str, module: str) -> None:
    """The guest's interpreter has the test modules built in, which ``importlib`` loads
    without the ``import`` event the statement raises: refused in both levels alike."""
    code = (f"import importlib\ndef f(n):\n    importlib.import_module({module!r})\n"
            "    return n * n\n")
    [result] = run_candidates([code], TESTS[:1], "f", Limits(wall_seconds=20.0),
                              sandbox=level)
    assert result.status == "forbidden: interpreter internals", result.detail
    [outcome] = result.tests
    assert (outcome.passed, outcome.exc_type) == (False, "PermissionError")
    assert outcome.exc_message == (
        f"sandbox: interpreter internals is not allowed (import {module})")


@pytest.mark.parametrize("level", ["strict", "portable"])
def test_a_value_nested_past_the_stack_under_a_raised_limit_is_shown_as_unshowable(
        level: str) -> None:
    """A version that raises the recursion limit and returns a list nested 300,000 deep:
    the harness shows it under the interpreter's own limit (the strict child used to die of
    SIGSEGV, the guest to run out of fuel), and the next test runs at that limit too."""
    code = ("import sys\ndef f(n):\n    if n == 4:\n        return sys.getrecursionlimit()\n"
            "    sys.setrecursionlimit(10 ** 7)\n    x = []\n    for _ in range(300_000):\n"
            "        x = [x]\n    return x\n")
    [result] = run_candidates([code], TESTS, "f", Limits(wall_seconds=60.0, test_seconds=30.0),
                              sandbox=level)
    assert result.status == "ok", result.detail
    first, second = result.tests
    assert (first.output, first.exc_type) == ("<repr failed: RecursionError>", None)
    assert second.output == "1000"


@pytest.mark.parametrize("level", ["strict", "portable"])
def test_recursion_runs_as_deep_in_both_levels(level: str) -> None:
    """The guest's interpreter was built with a recursion limit of 600; it runs with
    CPython's 1000, the strict child's, so a recursion 700 deep returns in both."""
    code = "def f(n):\n    return 0 if n == 0 else 1 + f(n - 1)\n"
    tests = [Case("call", args=(n,), expected=n, has_expected=True) for n in (700, 950)]
    [result] = run_candidates([code], tests, "f", Limits(wall_seconds=30.0), sandbox=level)
    assert [(t.passed, t.output) for t in result.tests] == [(True, "700"), (True, "950")]


@pytest.mark.parametrize("level", ["strict", "portable"])
def test_a_modules_harmless_questions_at_import_get_the_same_answers(level: str) -> None:
    """A top level that asks the host name (boltons' ``iterutils`` does, through
    ``socket.gethostname()``), the node name or HOME imports in both levels and hears the
    same: WASI's ``socket`` has no ``gethostname`` and its guest had no HOME."""
    code = ("import os, platform, socket\nHOST = socket.gethostname()\n"
            "CONFIG = os.path.join(os.environ['HOME'], '.app')\n"
            "def f(n):\n    return (HOST, platform.node(), CONFIG, os.path.expanduser('~'),\n"
            "            os.environ.get('LANG'), n)\n")
    [result] = run_candidates([code], TESTS[:1], "f", Limits(wall_seconds=20.0), sandbox=level)
    assert result.status == "ok", result.detail
    assert [t.output for t in result.tests] == [
        "('localhost', 'localhost', '/work/.app', '/work', 'C.UTF-8', 3)"]


@pytest.mark.parametrize("level", ["strict", "portable"])
def test_a_version_that_tampers_with_its_tracer_misstates_only_its_own_counts(
        level: str) -> None:
    """Counts are taken in the version's own interpreter: one that inflates its tracer's
    lists, or switches tracing off, misstates (or loses) its own counts, never another's,
    never a pass rate (graded outside from its values)."""
    honest = "def f(n):\n    return n * n\n"
    inflate = ("import sys\ndef f(n):\n    counts = sys._getframe().f_trace.__closure__[0]"
               ".cell_contents\n    for i in range(len(counts)):\n        counts[i] += 1000\n"
               "    return n * n\n")
    hide = "import sys\ndef f(n):\n    sys.settrace(None)\n    return n * n\n"
    limits = Limits(wall_seconds=20.0)
    # a trace function to reach: ``settrace`` (``counters``: test_block_counts.py)
    alone = run_candidates([honest], TESTS, "f", limits, sandbox=level,
                           trace_mode="settrace")[0]
    beside = run_candidates([inflate, honest, hide], TESTS, "f", limits, jobs=2, sandbox=level,
                            trace_mode="settrace")
    assert [t.opcodes for t in beside[1].tests] == [t.opcodes for t in alone.tests]
    assert all(t.opcode_total > 1000 for t in beside[0].tests)
    assert [t.opcodes for t in beside[2].tests] == [None, None]
    assert all(t.passed for result in beside for t in result.tests)


@pytest.mark.parametrize("level", ["strict", "portable"])
def test_looking_for_a_refused_module_is_not_refused_only_loading_it(level: str) -> None:
    """A module that checks for an optional dependency (``find_spec``) hears as before
    whether it is there; only loading a refused one is refused."""
    code = ("import importlib.util\ndef f(n):\n"
            "    return (importlib.util.find_spec('_testcapi') is not None,\n"
            "            importlib.util.find_spec('cffi') is None, n)\n")
    [result] = run_candidates([code], TESTS[:1], "f", Limits(wall_seconds=20.0), sandbox=level)
    assert result.status == "ok", result.detail
    assert [t.output for t in result.tests] == ["(True, True, 3)"]


HOLD_FILES = """
import errno, json, os, time
HELD = []
def f(n):
    try:
        while True:
            HELD.append(os.open(json.__file__, os.O_RDONLY))
    except OSError as exc:
        stopped = errno.errorcode.get(exc.errno)
    time.sleep(1.0)  # holds them while the versions beside it start
    return (len(HELD) <= 64, stopped)
"""


@pytest.mark.parametrize("level", ["strict", "portable", "portable-process"])
def test_a_version_holding_open_files_stops_at_its_limit_and_leaves_its_neighbours_theirs(
        level: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The strict child's RLIMIT_NOFILE fails an open past ``max_open_files`` (EMFILE);
    WASI has no such limit and a long-lived host's descriptors are every guest's, so a
    version holding a thousand open files left the guests beside it none (their imports
    failed with EIO). Both levels now stop it at its limit, the same way."""
    import resource

    if level == "portable-process":
        monkeypatch.setenv(channel.FORCE, channel.PROCESS)
        level = "portable"
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(1024, hard), hard))  # the usual default
    good = "def f(n):\n    import decimal, fractions, statistics\n    return n * n\n"
    try:
        results = run_candidates([HOLD_FILES, good, HOLD_FILES, good, good, good], TESTS, "f",
                                 Limits(wall_seconds=30.0, memory_mb=512, test_seconds=10.0),
                                 jobs=2, sandbox=level)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    for hog in results[0::2][:2]:
        assert [t.output for t in hog.tests] == ["(True, 'EMFILE')"] * 2, hog.tests
    for result in (results[1], *results[3:]):
        assert result.status == "ok", result.detail
        assert [(t.passed, t.output) for t in result.tests] == [(True, "9"), (True, "16")]


@pytest.mark.parametrize("level", ["strict", "portable", "portable-process"])
def test_a_check_harness_holding_open_files_stops_at_the_same_limit(
        level: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A sample set's check harness is as hostile as its versions: beside the version, in
    the portable sandbox's grader guest, it stops at ``max_open_files`` too."""
    if level == "portable-process":
        monkeypatch.setenv(channel.FORCE, channel.PROCESS)
        level = "portable"
    check = ("import errno, json, os\nHELD = []\ndef check(candidate):\n"
             "    assert candidate(3) == 9\n    try:\n        while True:\n"
             "            HELD.append(os.open(json.__file__, os.O_RDONLY))\n"
             "    except OSError as exc:\n"
             "        raise AssertionError((len(HELD) <= 64, errno.errorcode.get(exc.errno)))\n")
    [result] = run_candidates(["def f(n):\n    return n * n\n"], [Case("check", source=check)],
                              "f", Limits(wall_seconds=30.0, test_seconds=10.0), sandbox=level)
    [outcome] = result.tests
    assert (outcome.passed, outcome.exc_type, outcome.exc_message) == (
        False, "AssertionError", "(True, 'EMFILE')"), result


@pytest.mark.parametrize("level", ["strict", "portable", "portable-process"])
def test_a_flood_of_small_well_formed_messages_is_refused_as_a_flood(
        level: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A version writing its message channel full of tiny well-formed frames (a ``test-start``
    of its own test, 320,000 times within the channel's byte budget) made the runner hold
    every one as a dict, hundreds of megabytes in the editor's or the CLI's process for one
    version; a harness sends a few messages per test, so past that many the run ends as a
    flood."""
    if level == "portable-process":
        monkeypatch.setenv(channel.FORCE, channel.PROCESS)
        level = "portable"
    code = ("import os, struct, sys\ndef f(n):\n"
            "    body = b'{\"v\": 1, \"type\": \"test-start\", \"index\": 0}'\n"
            "    chunk = (struct.pack('>I', len(body)) + body) * 4000\n"
            "    channel = 1 if sys.platform == 'wasi' else 3  # the message descriptor\n"
            "    for _ in range(80):\n        os.write(channel, chunk)\n"
            "    return n * n\n")
    [result] = run_candidates([code], TESTS[:1], "f", Limits(wall_seconds=30.0), sandbox=level)
    assert result.status == "protocol-violation", result
    assert "message flood" in result.detail


@pytest.mark.parametrize("level", ["strict", "portable"])
def test_after_a_test_overruns_the_later_ones_get_half_its_budget(level: str) -> None:
    """Both levels shorten the budget after an overrun alike: the second hang is told at
    half the first's budget, and the cheap test after the hangs still runs."""
    code = "def f(n):\n    while n < 0:\n        pass\n    return n * n\n"
    tests = [Case("call", args=(n,), name=f"f({n})") for n in (-1, -2, -3, 2)]
    [result] = run_candidates([code], tests, "f",
                              Limits(wall_seconds=60.0, test_seconds=1.0), sandbox=level)
    assert [t.exc_type for t in result.tests] == ["Timeout"] * 3 + [None]
    assert [t.exc_message for t in result.tests[:3]] == [
        "test ran longer than 1s", "test ran longer than 0.5s", "test ran longer than 0.25s"]
    assert result.tests[3].output == "4"
