"""The portable level: versions run in CPython on WASI under wasmtime, graded outside."""

from __future__ import annotations

import ast
import json
import struct
from pathlib import Path

import pytest

from codequorum.behaviour.dynamic_analysis import growth_of
from codequorum.behaviour.sandbox.limits import Limits
from codequorum.behaviour.sandbox.portable import channel
from codequorum.behaviour.sandbox.supervisor import run_candidate, run_candidates
from codequorum.core.model import ModuleContext
from codequorum.core.model import TestCase as Case

SQUARE = [
    Case("call", args=(3,), expected=9, has_expected=True),
    Case("call", args=(), kwargs={"n": 5}, expected=25, has_expected=True),
]
PORTABLE_LAYERS = {"wasm", "no-preopens", "store-limits", "fuel", "epoch", "deadline"}
#: Every test here holds over both channels to the guests (``channel.py``).
pytestmark = pytest.mark.usefixtures("either_channel")


def run(code: str, tests: list[Case] = SQUARE, entry: str = "sq", **limits: float) -> object:
    return run_candidate(code, tests, entry, Limits(**limits), sandbox="portable")  # type: ignore[arg-type]


def test_tests_are_graded_outside_the_guest_with_its_opcodes() -> None:
    result = run_candidate("def sq(n):\n    return n * n if n != 5 else 24\n", SQUARE, "sq",
                           sandbox="portable")
    assert result.status == "ok", result.detail
    assert [(t.name, t.passed, t.output) for t in result.tests] == [
        ("test0", True, "9"), ("test1", False, "24")]
    assert result.python == "3.11.1"  # the guest's interpreter, not this one
    assert set(result.layers) >= PORTABLE_LAYERS
    assert result.tests[0].opcodes is not None
    assert "BINARY_OP" in result.tests[0].opcodes
    assert result.tests[0].opcode_total == sum(result.tests[0].opcodes.values())


def test_values_keep_their_types_and_exceptions_are_outcomes() -> None:
    code = ("def f(x, y):\n    if x is None:\n        raise ValueError('no x')\n"
            "    return (type(x).__name__, sorted(y), {'b', 'a'})\n")
    tests = [Case("call", args=((1, 2), {3, 1}), expected=("tuple", [1, 3], {"a", "b"}),
                  has_expected=True),
             Case("call", args=(None, ()), expected=1, has_expected=True)]
    first, second = run_candidate(code, tests, "f", sandbox="portable").tests
    assert (first.passed, first.output) == (True, "('tuple', [1, 3], {'a', 'b'})")
    assert (second.passed, second.exc_type, second.exc_message) == (False, "ValueError", "no x")


def test_a_test_that_overruns_is_stopped_and_the_rest_still_run() -> None:
    code = "def sq(n):\n    while n == 3:\n        pass\n    return n * n\n"
    result = run_candidate(code, SQUARE, "sq", Limits(test_seconds=0.5), sandbox="portable")
    assert result.status == "timeout"
    assert result.detail == "per-test limit of 0.5s on 1 of 2 tests"
    assert [(t.name, t.passed, t.exc_type) for t in result.tests] == [
        ("test0", False, "Timeout"), ("test1", True, None)]


def test_later_tests_of_a_series_that_overran_are_skipped() -> None:
    code = "def f(n):\n    while n >= 2:\n        pass\n    return n\n"
    tests = [Case("call", args=(n,)) for n in (1, 2, 3)] + [Case("call", args=(0,))]
    result = run_candidate(code, tests, "f", Limits(test_seconds=0.5),
                           series=["s", "s", "s", None], sandbox="portable")
    assert [t.exc_type for t in result.tests] == [None, "Timeout", "Skipped", None]
    assert result.tests[3].output == "0"


@pytest.mark.parametrize("body", ["pass", "x = 12345 ** 20000"], ids=["loop", "big-int"])
def test_cpu_time_bounds_a_version_that_never_ends_as_in_strict(body: str) -> None:
    """Its CPU seconds, not its fuel: a big int's power burns several times the fuel a
    second of the interpreter's loop does, and ends at the same CPU limit."""
    result = run_candidate(f"def f(n):\n    while True:\n        {body}\n",
                           [Case("call", args=(1,)), Case("call", args=(2,))], "f",
                           Limits(cpu_seconds=1.0, wall_seconds=60), sandbox="portable")
    assert (result.status, result.detail) == ("timeout", "CPU limit of 1s")
    assert [t.exc_type for t in result.tests] == ["Timeout"]


def test_the_wall_clock_ends_a_run_that_outlasts_it() -> None:
    result = run_candidate("def f(n):\n    while True:\n        pass\n",
                           [Case("call", args=(1,))], "f", Limits(wall_seconds=2.0),
                           sandbox="portable")
    assert (result.status, result.detail) == ("timeout", "wall-clock limit of 2s")


def test_a_memory_bomb_meets_the_store_limit() -> None:
    code = "def f(n):\n    return len(bytearray(n * 1024 ** 2))\n"
    tests = [Case("call", args=(600,)), Case("call", args=(1,), expected=1024 ** 2,
                                                 has_expected=True)]
    result = run_candidate(code, tests, "f", Limits(memory_mb=256), sandbox="portable")
    assert result.status == "memory"
    assert [(t.exc_type, t.passed) for t in result.tests] == [("MemoryError", None),
                                                              (None, True)]


@pytest.mark.parametrize("code", [
    "def f(n):\n    while True:\n        print('x' * 10000)\n",
    "import os\ndef f(n):\n    while True:\n        os.write(2, b'x' * 10000)\n",
], ids=["print", "raw-stderr"])
def test_an_output_bomb_ends_at_the_output_limit(code: str) -> None:
    result = run_candidate(code, [Case("call", args=(1,))], "f",
                           Limits(output_bytes=100_000), sandbox="portable")
    assert result.status == "output-limit"
    assert [t.exc_type for t in result.tests] == ["OutputLimitExceeded"]


def test_nothing_of_the_host_is_readable(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("sk-secret\n")
    monkeypatch.setenv("CODEQUORUM_TEST_API_KEY", "sk-secret-value")
    code = (
        "import os\n"
        "def f(path):\n"
        "    try:\n"
        "        return open(path).read()\n"
        "    except OSError as exc:\n"
        "        return type(exc).__name__\n"
        "def env():\n"
        "    return sorted(os.environ.items())\n"
    )
    tests = [Case("call", args=(str(secret),)), Case("call", args=("/etc/passwd",)),
             Case("call", args=(str(Path.home() / ".bashrc"),))]
    result = run_candidate(code, tests, "f", sandbox="portable")
    assert [t.output for t in result.tests] == ["'PermissionError'"] * 3
    (env,) = run_candidate(code, [Case("call")], "env", sandbox="portable").tests
    names = [pair[0] for pair in ast.literal_eval(env.output or "")]
    assert names == ["HOME", "LANG", "PATH", "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED",
                     "PYTHONHOME", "PYTHONPATH", "TMPDIR", "TZ"]  # the strict one's, none of ours


def test_the_granted_folders_are_read_only() -> None:
    code = (
        "import os\n"
        "def f(path):\n"
        "    try:\n"
        "        with open(path, 'w') as fh:\n"
        "            fh.write('x')\n"
        "        return 'written'\n"
        "    except OSError as exc:\n"
        "        return type(exc).__name__\n"
    )
    tests = [Case("call", args=(p,)) for p in ("/harness/child.py", "/usr/local/x", "/x")]
    result = run_candidate(code, tests, "f", sandbox="portable")
    assert [t.output for t in result.tests] == ["'PermissionError'"] * 3


def test_no_socket_reaches_the_host(listener: object) -> None:
    port = listener.getsockname()[1]  # type: ignore[attr-defined]
    code = ("import socket\ndef f(n):\n"
            "    if n:\n"
            f"        return socket.create_connection(('127.0.0.1', {port}), timeout=1)\n"
            "    s = socket.socket()\n"
            f"    s.connect(('127.0.0.1', {port}))\n")
    result = run_candidate(code, [Case("call", args=(1,)), Case("call", args=(0,))], "f",
                           sandbox="portable")
    assert result.status == "forbidden: network"
    # WASI's socket module has no name lookup; a socket of its own is refused
    assert [t.exc_type for t in result.tests] == ["AttributeError", "PermissionError"]
    with pytest.raises(TimeoutError):
        listener.accept()  # type: ignore[attr-defined]


def _frame(message: dict[str, object]) -> bytes:
    body = json.dumps({"v": 1, **message}).encode()
    return struct.pack(">I", len(body)) + body


def test_a_forged_result_on_stdout_does_not_pass() -> None:
    forged = _frame({"type": "test", "index": 0, "outcome": {
        "name": "test0", "passed": True, "output": "9", "exc_type": None,
        "exc_message": None, "opcodes": None, "opcode_total": 0, "seconds": 0.0,
        "value": 9}})
    code = f"import os\ndef sq(n):\n    os.write(1, {forged!r})\n    return -1\n"
    result = run_candidate(code, SQUARE[:1], "sq", sandbox="portable")
    # the harness's own outcome follows: a second outcome for a test is a forgery
    assert (result.status, result.detail) == ("protocol-violation",
                                              "a second outcome for test 0")
    assert not any(t.passed for t in result.tests)


def test_garbage_on_stdout_is_a_protocol_violation() -> None:
    code = "import os\ndef sq(n):\n    os.write(1, b'\\xff' * 64)\n    return n * n\n"
    result = run_candidate(code, SQUARE, "sq", sandbox="portable")
    assert result.status == "protocol-violation"


def test_versions_run_in_instances_of_their_own() -> None:
    code = ("import builtins\ndef f(n):\n    seen = getattr(builtins, 'mark', None)\n"
            "    builtins.mark = n\n    return seen\n")
    results = run_candidates([code, code], [Case("call", args=(1,))], "f", jobs=2,
                             sandbox="portable")
    assert [r.tests[0].output for r in results] == ["None", "None"]


def test_check_harnesses_are_graded_beside_the_guest_as_in_the_strict_sandbox() -> None:
    check = "def check(candidate):\n    assert candidate(2) == 4\n    assert candidate(3) == 9\n"
    wrong = "def check(candidate):\n    assert candidate(2) == 5, 'two'\n"
    tests = [Case("check", source=check), Case("check", source=wrong), SQUARE[0]]
    code = "def sq(n):\n    return n * n\n"
    portable = run_candidate(code, tests, "sq", sandbox="portable")
    assert portable.status == "ok", portable.detail
    seen = [(t.passed, t.exc_type, t.exc_message) for t in portable.tests]
    assert seen == [(True, None, None), (False, "AssertionError", "two"), (True, None, None)]
    assert seen == [(t.passed, t.exc_type, t.exc_message)
                    for t in run_candidate(code, tests, "sq").tests]
    # Only the version's own code is counted, not the harness's.
    assert portable.tests[0].opcodes == {"LOAD_FAST": 4, "BINARY_OP": 2, "RETURN_VALUE": 2}


def test_a_version_cannot_read_the_harness_beside_it() -> None:
    check = "def check(candidate):\n    SECRET = 'expected-9'\n    assert candidate(3) == 9\n"
    code = ("def sq(n):\n"
            "    needle = 'expected' + '-9'\n"  # not a literal the version's own text holds
            "    try:\n        raise ValueError\n"
            "    except ValueError as exc:\n        frame = exc.__traceback__.tb_frame.f_back\n"
            "    seen = []\n"
            "    while frame is not None:\n"
            "        seen.append(repr(frame.f_locals) + repr(frame.f_globals))\n"
            "        frame = frame.f_back\n"
            "    return 9 if any(needle in text for text in seen) else len(seen)\n")
    result = run_candidate(code, [Case("check", source=check)], "sq", sandbox="portable")
    assert [(t.passed, t.exc_type) for t in result.tests] == [(False, "AssertionError")]


def test_a_version_that_stalls_a_check_is_stopped_and_failed(either_channel: str) -> None:
    """Over the long-lived host a version's fd 0 carries its grader's calls: reading it
    stalls the check until its time is up. A guest of the guest server reads its calls
    from a file of its own: its fd 0 is empty, so the read stalls nothing and the check
    grades the answer."""
    check = "def check(candidate):\n    assert candidate(3) == 9\n"
    code = "import os\ndef sq(n):\n    os.read(0, 10)\n    return n * n\n"
    result = run_candidate(code, [Case("check", source=check), SQUARE[0]], "sq",
                           Limits(test_seconds=1.0), sandbox="portable")
    if either_channel == channel.PROCESS:
        assert result.status == "ok", result.detail
        assert [(t.passed, t.exc_type) for t in result.tests] == [(True, None), (True, None)]
        return
    assert result.status == "timeout", result.detail
    assert [(t.passed, t.exc_type) for t in result.tests] == [(False, "Timeout"), (True, None)]


def _module(files: dict[str, str]) -> ModuleContext:
    return ModuleContext("pkg.mod", "pkg/mod.py", "area", "function",
                         tuple(files.items()), ("",))


def test_a_version_runs_in_its_module_from_the_read_only_view() -> None:
    module = _module({"pkg/__init__.py": "", "pkg/helpers.py": "SCALE = 10\n",
                      "pkg/mod.py": "from pkg.helpers import SCALE\n\n"
                                    "def area(w, h):\n    return w * h\n"})
    tests = [Case("call", args=(2, 3), expected=60, has_expected=True)]
    result = run_candidate("def area(w, h):\n    return w * h * SCALE\n", tests, "area",
                           sandbox="portable", module=module)
    assert result.status == "ok", result.detail
    assert result.module is not None and result.module.loaded is True
    assert [t.passed for t in result.tests] == [True]


def test_a_module_whose_import_the_guest_lacks_says_which() -> None:
    module = _module({"pkg/__init__.py": "",
                      "pkg/mod.py": "import numpy\n\ndef area(w, h):\n    return w * h\n"})
    result = run_candidate("def area(w, h):\n    return w * h\n",
                           [Case("call", args=(2, 3))], "area", sandbox="portable",
                           module=module)
    assert result.module is not None
    assert (result.module.loaded, result.module.ran_alone) == (False, True)
    assert "No module named 'numpy'" in result.module.detail


def test_fuel_is_a_cost_that_sees_the_work_inside_builtins() -> None:
    code = "def f(n):\n    return len(set(range(n)))\n"
    tests = [Case("call", args=(n,)) for n in (1, 1000, 100_000)]
    result = run_candidate(code, tests, "f", series=["s"] * 3, sandbox="portable")
    opcodes = [t.opcode_total for t in result.tests]
    fuel = [t.fuel or 0 for t in result.tests]
    assert opcodes[1] == opcodes[2]  # the version's own opcodes do not grow with n...
    assert fuel[2] > 50 * fuel[1] > 0  # ...the instructions it made the builtins run do
    unmetered = run_candidate(code, tests[:1], "f", sandbox="portable")
    assert [t.fuel for t in unmetered.tests] == [None]  # only a series' calls are metered
    strict = run_candidate(code, tests[:1], "f", series=["s"])
    assert [t.fuel for t in strict.tests] == [None]  # only the portable host meters it


@pytest.mark.parametrize("wait", ["time.sleep(n)", "select.select([], [], [], n)"])
def test_a_version_that_sleeps_past_its_budget_is_stopped_at_it(wait: str) -> None:
    code = f"import select, time\ndef f(n):\n    {wait}\n    return n\n"
    result = run_candidate(code, [Case("call", args=(3600,)), Case("call", args=(0.05,))], "f",
                           Limits(test_seconds=0.5, wall_seconds=120), sandbox="portable")
    assert result.detail == "per-test limit of 0.5s on 1 of 2 tests"
    assert [(t.exc_type, t.output) for t in result.tests] == [("Timeout", None), (None, "0.05")]


@pytest.mark.parametrize(("body", "growth"), [
    ("return len(set(x))", 1.0),  # O(n) inside a builtin: 8 opcodes at every n
    ("return sorted(x)", 1.0),  # n log n is class n
    ("return sum(1 for a in x for b in x if a < b)", 2.0),
    ("return x[0]", 0.0),
])
def test_fuel_per_call_tells_the_known_classes_apart(body: str, growth: float) -> None:
    sizes = (10, 40, 100, 200)
    tests = [Case("call", args=([(7 * i) % n for i in range(n)],)) for n in sizes]
    result = run_candidate(f"def f(x):\n    {body}\n", tests, "f", series=["s"] * len(sizes),
                           sandbox="portable")
    assert result.status == "ok", result.detail
    assert all(t.fuel is not None for t in result.tests)
    fuel = [t.fuel or 0 for t in result.tests]
    assert growth_of(list(zip(sizes, fuel, strict=True)), "fuel") == growth


def test_a_version_writing_on_the_message_descriptor_is_told_what_it_hit() -> None:
    result = run("import os\ndef sq(n):\n    os.write(1, b'hello world\\n')\n    return n * n\n")
    assert result.status == "protocol-violation"  # type: ignore[attr-defined]
    assert "descriptor 1, the portable sandbox's message channel" in (
        result.detail)  # type: ignore[attr-defined]


def test_a_result_of_a_million_numbers_is_shown_within_a_cpu_budget() -> None:
    """Showing a large result costs the guest's fuel (deterministic): a million numbers are
    shown, cut with a digest of the whole, within 3.5 s of fuel, where the element-by-element
    rule took about 5 s."""
    from codequorum.behaviour.sandbox.child import clip

    result = run_candidate("def f(n):\n    return list(range(n))\n",
                           [Case("call", args=(1_000_000,))], "f",
                           Limits(cpu_seconds=3.5, wall_seconds=120.0, test_seconds=60.0),
                           sandbox="portable")
    assert result.status == "ok", result.detail
    assert [t.output for t in result.tests] == [clip(repr(list(range(1_000_000))))]


def test_recursion_that_runs_the_guests_c_stack_out_is_that_tests_recursion_error() -> None:
    """Recursion through a builtin (``sum`` over a generator that recurses) runs the
    guest's C stack (512 KiB) out about 100 levels deep: that test gets a RecursionError
    saying so, and the tests after it run in a fresh instance, as after an overrun."""
    from codequorum.behaviour.sandbox.portable.host import STACK_MESSAGE

    code = "def f(n):\n    return 0 if n == 0 else 1 + sum(f(n - 1) for _ in [0])\n"
    tests = [Case("call", args=(n,), expected=n, has_expected=True) for n in (50, 400, 10)]
    result = run_candidate(code, tests, "f", sandbox="portable")
    assert result.status == "ok", result.detail
    assert [(t.passed, t.output, t.exc_type) for t in result.tests] == [
        (True, "50", None), (False, None, "RecursionError"), (True, "10", None)]
    assert result.tests[1].exc_message == STACK_MESSAGE


def test_no_path_leads_out_of_the_grants() -> None:
    """``..`` from each grant, the host's own paths (its working folder, the cache holding
    the compiled interpreter and the extracted standard library) and ``/proc``: none
    opens, and a listing of the root or above a grant is refused."""
    import os

    from codequorum.behaviour.sandbox.portable import interpreter as wasm

    cache = str(wasm.cache_root())
    paths = ["/usr/../etc/passwd", "/workspace/../../etc/passwd", "/harness/../../etc/hosts",
             "/bundle/../usr/../../../proc/self/environ", "/proc/self/environ",
             "/proc/self/maps", os.getcwd() + "/pyproject.toml", cache,
             cache + "/../../.bashrc", "../etc/passwd"]
    code = ("import os\ndef f(path):\n    try:\n        if os.path.isdir(path):\n"
            "            return sorted(os.listdir(path))\n"
            "        return open(path, 'rb').read(16)\n"
            "    except OSError as exc:\n        return type(exc).__name__\n")
    tests = [Case("call", args=(p,)) for p in [*paths, "/", "/usr/.."]]
    result = run_candidate(code, tests, "f", sandbox="portable")
    assert [t.output for t in result.tests] == ["'PermissionError'"] * len(tests), [
        (p.args, t.output) for p, t in zip(tests, result.tests, strict=True)]
