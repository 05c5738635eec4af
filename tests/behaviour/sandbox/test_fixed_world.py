"""Every version reads one instant and one luck (``fixed_world.py``), in both isolating
levels: identical versions that read the clock or draw bytes return identical values."""

from __future__ import annotations

import pytest

from codequorum.behaviour.sandbox.limits import Limits
from codequorum.behaviour.sandbox.supervisor import run_candidates
from codequorum.core.model import TestCase as Case

LIMITS = Limits(wall_seconds=30.0, cpu_seconds=20.0, test_seconds=5.0)
TWO = [Case("call", args=(0,), name="f(0)"), Case("call", args=(1,), name="f(1)")]
LEVELS = ["strict", "portable"]


def outputs(code: str, level: str, tests: list[Case] = TWO, copies: int = 2) -> list[list[str]]:
    """What each of ``copies`` identical versions returned on each test."""
    results = run_candidates([code] * copies, tests, "f", LIMITS, jobs=2, sandbox=level)
    for result in results:
        assert result.status == "ok", (result.status, result.tests)
    return [[str(t.output) for t in result.tests] for result in results]


@pytest.mark.parametrize("level", LEVELS)
def test_the_clock_stands_at_one_instant_in_utc(level: str) -> None:
    code = ("import time\nfrom datetime import date, datetime, timedelta, timezone\n"
            "def f(n):\n"
            "    return [time.time(), time.time_ns(), datetime.now() + timedelta(seconds=n),\n"
            "            datetime.utcnow(), datetime.today(), date.today(),\n"
            "            datetime.now(timezone.utc).isoformat(), time.strftime('%Y-%m-%d %H:%M'),\n"
            "            time.localtime().tm_hour, time.ctime()]\n")
    first, second = outputs(code, level)
    assert first == second
    assert first[0] == (
        "[1735732800.0, 1735732800000000000, datetime.datetime(2025, 1, 1, 12, 0), "
        "datetime.datetime(2025, 1, 1, 12, 0), datetime.datetime(2025, 1, 1, 12, 0), "
        "datetime.date(2025, 1, 1), '2025-01-01T12:00:00+00:00', '2025-01-01 12:00', 12, "
        "'Wed Jan  1 12:00:00 2025']")
    assert "datetime.datetime(2025, 1, 1, 12, 0, 1)" in first[1]  # + 1 s on input 1


@pytest.mark.parametrize("level", LEVELS)
def test_sleeping_moves_the_clock_and_every_input_starts_again(level: str) -> None:
    code = ("import time\n"
            "def f(n):\n"
            "    start = time.time()\n"
            "    deadline = start + 0.25\n"
            "    polls = 0\n"
            "    while time.time() < deadline:  # a retry loop waiting for a deadline\n"
            "        polls += 1\n"
            "        time.sleep(0.1)\n"
            "    return [start, polls, time.time()]\n")
    first, second = outputs(code, level)
    assert first == second == ["[1735732800.0, 3, 1735732800.3]"] * 2


@pytest.mark.parametrize("level", LEVELS)
def test_random_bytes_are_one_stream_per_input(level: str) -> None:
    code = ("import os, secrets, uuid\n"
            "def f(n):\n"
            "    import random\n"  # imported inside: seeded all the same
            "    return [str(uuid.uuid4()), secrets.token_hex(4), os.urandom(3).hex(),\n"
            "            random.random(), random.SystemRandom().randint(0, 10**6)]\n")
    first, second = outputs(code, level)
    assert first == second
    assert first[0] != first[1]  # the stream depends on the input
    again = outputs(code, level, copies=1)[0]
    assert again == first  # and on nothing else: a later run draws the same


@pytest.mark.parametrize("level", LEVELS)
def test_the_fixed_classes_pass_for_the_real_ones(level: str) -> None:
    code = ("import copy, pickle, datetime as dt\n"
            "from datetime import date, datetime\n"
            "class Stamp(datetime):\n"
            "    pass\n"
            "def f(n):\n"
            "    now = datetime.now()\n"
            "    made = datetime(2020, 5, 17, 8, 30)\n"
            "    real = type(dt.datetime(1, 1, 1))\n"
            "    return [type(now) is type(made) is real, type(made).__name__,\n"
            "            isinstance(now, datetime),\n"
            "            isinstance(now, date), issubclass(datetime, date),\n"
            "            isinstance(date(2020, 1, 1), datetime),\n"
            "            pickle.loads(pickle.dumps(made)) == made, copy.deepcopy(now) == now,\n"
            "            type(Stamp.now()).__name__, Stamp.now() == now,\n"
            "            datetime.fromisoformat('2024-02-29T10:00:00'), repr(made),\n"
            "            datetime.strptime('2021-03-04', '%Y-%m-%d').date()]\n")
    [[shown, _]] = outputs(code, level, copies=1)
    assert shown == (
        "[True, 'datetime', True, True, True, False, True, True, 'Stamp', True, "
        "datetime.datetime(2024, 2, 29, 10, 0), 'datetime.datetime(2020, 5, 17, 8, 30)', "
        "datetime.date(2021, 3, 4)]")


@pytest.mark.parametrize("level", LEVELS)
def test_waits_timed_by_the_running_clocks_still_end(level: str) -> None:
    if level == "portable":
        pytest.skip("asyncio's event loop needs a socket pair, which WASI does not give "
                    "(OSError: [Errno 58] Not supported, with or without a fixed clock)")
    code = ("import asyncio, time\n"
            "async def nap():\n"
            "    await asyncio.sleep(0.05)\n"
            "    return time.time()\n"
            "def f(n):\n"
            "    started = time.perf_counter()\n"
            "    at = asyncio.run(nap())\n"
            "    return [at, time.perf_counter() - started >= 0.05]\n")
    first, second = outputs(code, level)
    assert first == second == ["[1735732800.0, True]"] * 2


@pytest.mark.parametrize("level", LEVELS)
def test_a_workspaces_own_random_and_datetime_modules_are_left_as_they_are(level: str) -> None:
    """A module of the workspace named ``random`` (its ``seed`` takes no argument) or
    ``datetime`` is the workspace's: nothing of it is replaced or called, and it loads."""
    from codequorum.core.model import ModuleContext

    source = "import random\nimport datetime\n\ndef f(n):\n    return 0\n"
    files = (("random.py", "def pick(xs):\n    return xs[0]\n"
                           "def seed():\n    raise RuntimeError('not a seed of ours')\n"),
             ("datetime.py", "def now():\n    return 'the workspace says now'\n"))
    module = ModuleContext(name="app", path="app.py", qualified_name="f", kind="function",
                           files=(("app.py", source), *files), roots=("",))
    code = "def f(n):\n    return [random.pick([n, 9]), datetime.now()]\n"
    [result] = run_candidates([code], TWO, "f", LIMITS, jobs=1, sandbox=level, module=module)
    assert result.status == "ok", (result.status, result.detail, result.tests)
    assert [t.output for t in result.tests] == [
        "[0, 'the workspace says now']", "[1, 'the workspace says now']"]
