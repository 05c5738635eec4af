"""Running candidates: test kinds, statuses, jobs, progress and cancellation."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from codequorum.behaviour.sandbox import startup
from codequorum.behaviour.sandbox.isolation import ALL_LAYERS, active_layers
from codequorum.behaviour.sandbox.limits import Limits
from codequorum.behaviour.sandbox.supervisor import CandidateResult, run_candidate, run_candidates
from codequorum.core.model import TestCase as Case

SQUARE = [
    Case("call", args=(3,), expected=9, has_expected=True),
    Case("call", args=(), kwargs={"n": 5}, expected=25, has_expected=True),
]


def test_call_tests_compare_return_values() -> None:
    result = run_candidate("def sq(n):\n    return n * n if n != 5 else 24\n", SQUARE, "sq")
    assert result.status == "ok", result.detail
    assert [(t.name, t.passed, t.output) for t in result.tests] == [
        ("test0", True, "9"),
        ("test1", False, "24"),
    ]
    assert result.tests[0].opcodes is not None
    assert result.tests[0].opcode_total == sum(result.tests[0].opcodes.values())
    assert "BINARY_OP" in result.tests[0].opcodes


def test_call_values_keep_their_types() -> None:
    code = "def f(x, y):\n    return (type(x).__name__, type(y).__name__, sorted(y))\n"
    tests = [
        Case("call", args=((1, 2), {3, 1}), expected=("tuple", "set", [1, 3]), has_expected=True)
    ]
    result = run_candidate(code, tests, "f")
    assert result.tests[0].passed is True
    assert result.tests[0].output == "('tuple', 'set', [1, 3])"


def test_outputs_without_expected_and_exceptions() -> None:
    code = (
        "def f(n):\n    if n < 0:\n        raise ValueError('negative')\n    return {n, 'a', 'b'}\n"
    )
    result = run_candidate(code, [Case("call", args=(2,)), Case("call", args=(-1,))], "f")
    first, second = result.tests
    assert first.passed is None
    assert first.output == "{'a', 'b', 2}"  # sets print sorted, the same in every child
    assert (second.passed, second.output, second.exc_type, second.exc_message) == (
        None,
        None,
        "ValueError",
        "negative",
    )


def test_long_outputs_are_cut_with_a_digest_of_the_whole() -> None:
    codes = [
        "def f(n):\n    return 'ab' * n\n",
        "def f(n):\n    return ''.join(['ab'] * n)\n",
        "def f(n):\n    return 'ab' * (n - 1) + 'ac'\n",
    ]
    tests = [Case("call", args=(50_000,), expected="ab" * 50_000, has_expected=True)]
    same, alike, different = (r.tests[0] for r in run_candidates(codes, tests, "f", jobs=2))
    assert same.output is not None and len(same.output) < 66_000
    assert same.output.endswith("chars, sha256 " + same.output[-17:-1] + ">")
    assert same.output == alike.output
    assert different.output != same.output
    assert (same.passed, alike.passed, different.passed) == (True, True, False)


def test_stdio_solve_follows_the_reference_rules() -> None:
    tests = [
        Case("stdio", stdin="3\n1 2 3\n", expected="6", has_expected=True),
        Case("stdio", stdin="2\n5 5\n", expected="10\n", has_expected=True),
    ]
    returning = "def solve(input_lines):\n    return sum(map(int, input_lines[1].split()))\n"
    joined = "def solve(lines):\n    return [sum(map(int, lines[1].split()))]\n"
    printing = "def solve(lines):\n    print(sum(map(int, lines[1].split())))\n"
    reading = "def solve():\n    input()\n    return sum(map(int, input().split()))\n"
    for code in (returning, joined, printing, reading):
        result = run_candidate(code, tests, None)
        assert result.status == "ok", (code, result.detail)
        assert [t.passed for t in result.tests] == [True, True], code
        assert (result.tests[0].output or "").strip() == "6"


def test_stdio_program_without_solve_runs_as_main() -> None:
    code = (
        "import sys\n"
        "def main():\n"
        "    data = sys.stdin.read().split()\n"
        "    print(int(data[0]) * 2)\n"
        "    sys.exit(0)\n"
        "if __name__ == '__main__':\n"
        "    main()\n"
    )
    tests = [Case("stdio", stdin="21\n", expected="42", has_expected=True)]
    result = run_candidate(code, tests, None)
    assert result.status == "ok", result.detail
    assert (result.tests[0].passed, result.tests[0].output) == (True, "42\n")
    assert result.tests[0].opcode_total > 0


def test_stdio_module_runs_afresh_per_test_with_its_input() -> None:
    code = (
        "import sys\n"
        "FIRST = sys.stdin.readline().strip()\n"
        "calls = []\n"
        "def solve(lines):\n"
        "    calls.append(1)\n"
        "    return f'{FIRST}:{len(calls)}'\n"
    )
    tests = [Case("stdio", stdin="a\n"), Case("stdio", stdin="b\n")]
    result = run_candidate(code, tests, None)
    assert [t.output for t in result.tests] == ["a:1", "b:1"]


def test_programs_may_call_exit() -> None:
    code = "print(int(input()) + 1)\nexit()\nprint('not reached')\n"
    result = run_candidate(
        code, [Case("stdio", stdin="41\n", expected="42", has_expected=True)], None
    )
    assert result.status == "ok", result.detail
    assert (result.tests[0].passed, result.tests[0].output) == (True, "42\n")


def test_check_tests_run_humaneval_style() -> None:
    check = "def check(candidate):\n    assert candidate(2) == 4\n    assert candidate(3) == 9\n"
    wrong = "def check(candidate):\n    assert candidate(2) == 5, 'two'\n"
    result = run_candidate(
        "def sq(n):\n    return n * n\n",
        [Case("check", source=check), Case("check", source=wrong)],
        "sq",
    )
    assert [(t.passed, t.exc_type, t.exc_message) for t in result.tests] == [
        (True, None, None),
        (False, "AssertionError", "two"),
    ]
    # Only the candidate's code is counted, not the check function's.
    assert result.tests[0].opcodes == {"LOAD_FAST": 4, "BINARY_OP": 2, "RETURN_VALUE": 2}


def test_missing_entry_point_fails_tests() -> None:
    result = run_candidate("def other(n):\n    return n\n", SQUARE, "sq")
    assert result.status == "ok"
    assert [(t.passed, t.exc_type) for t in result.tests] == [(False, "NameError")] * 2


def test_syntax_error() -> None:
    result = run_candidate("def sq(n)\n    return n\n", SQUARE, "sq")
    assert result.status == "syntax-error"
    assert "SyntaxError" in result.detail
    assert result.tests == []


def test_cpu_limit_is_a_timeout() -> None:
    started = time.monotonic()
    result = run_candidate(
        "def sq(n):\n    while True:\n        n += 1\n",
        SQUARE,
        "sq",
        Limits(wall_seconds=30.0, cpu_seconds=1.0),
    )
    assert result.status == "timeout"
    assert "CPU" in result.detail
    assert result.returncode is not None and result.returncode < 0
    assert time.monotonic() - started < 20


def test_ignoring_sigxcpu_still_ends_in_a_timeout() -> None:
    code = (
        "import signal\n"
        "signal.signal(signal.SIGXCPU, signal.SIG_IGN)\n"
        "def sq(n):\n"
        "    while True:\n"
        "        pass\n"
    )
    result = run_candidate(code, SQUARE, "sq", Limits(wall_seconds=30.0, cpu_seconds=1.0))
    assert result.status == "timeout"
    assert result.returncode == -9  # the hard limit's SIGKILL


def test_garbage_on_the_message_pipe_is_an_error() -> None:
    code = (
        "import os\n"
        "def sq(n):\n"
        "    for fd in range(3, 20):\n"
        "        try:\n"
        "            os.write(fd, b'\\xff\\xff\\xff\\xffjunk')\n"
        "        except OSError:\n"
        "            pass\n"
    )
    result = run_candidate(code, SQUARE, "sq")
    assert result.status == "protocol-violation"
    assert "exceeds" in result.detail


def test_missing_interpreter_is_an_error(tmp_path: Path) -> None:
    result = run_candidate(
        "def sq(n):\n    return n\n", SQUARE, "sq", interpreter=str(tmp_path / "py")
    )
    assert result.status == "error"
    assert "cannot start" in result.detail


def test_wall_clock_deadline_kills_a_sleeper() -> None:
    result = run_candidate(
        "import time\ndef sq(n):\n    time.sleep(60)\n",
        SQUARE,
        "sq",
        Limits(wall_seconds=3.0),
    )
    assert result.status == "timeout"
    assert "wall-clock" in result.detail
    assert [t.exc_type for t in result.tests] == ["Timeout"]


def test_forbidden_is_reported_even_when_caught() -> None:
    code = (
        "import subprocess\n"
        "def sq(n):\n"
        "    try:\n"
        "        subprocess.run(['true'])\n"
        "    except BaseException:\n"
        "        pass\n"
        "    return n * n\n"
    )
    result = run_candidate(code, SQUARE, "sq")
    assert result.status == "forbidden: subprocess"
    assert [t.passed for t in result.tests] == [True, True]
    assert "run ended: ok" in result.detail


def test_non_literal_test_values_are_an_error() -> None:
    result = run_candidate("def f(x):\n    return x\n", [Case("call", args=(object(),))], "f")
    assert result.status == "error"
    assert "not a literal" in result.detail


def test_environment_is_scrubbed_and_cwd_is_private() -> None:
    code = "import os\ndef f():\n    return sorted(os.environ), os.getcwd() == os.environ['HOME']\n"
    result = run_candidate(code, [Case("call")], "f")
    assert result.tests[0].output == (
        "(['HOME', 'LANG', 'PATH', 'PYTHONHASHSEED', 'TMPDIR', 'TZ'], True)")


def test_the_sandbox_folder_is_not_importable() -> None:
    """Only the standard library: the harness's own folder is not on ``sys.path``."""
    code = "def f():\n    import protocol\n    return protocol.__file__\n"
    for sandbox in ("strict", "weak"):
        result = run_candidate(code, [Case("call")], "f", sandbox=sandbox)
        assert result.tests[0].exc_type == "ModuleNotFoundError", (sandbox, result.tests)


#: A version whose result follows the string-hash seed: a set of strings, listed.
WORDS = ", ".join(repr(f"w{i}") for i in range(24))
HASHED = f"def f():\n    return list({{{WORDS}}})\n"


def _order_under_the_fixed_seed() -> str:
    """What ``HASHED`` returns in a plain interpreter started with the sandbox's seed."""
    script = HASHED + "print(repr(f()))\n"
    env = {"PATH": "/usr/bin:/bin", "PYTHONHASHSEED": startup.HASH_SEED}
    out = subprocess.run([sys.executable, "-S", "-c", script], env=env, capture_output=True,
                         text=True, check=True, timeout=60)
    return out.stdout.strip()


@pytest.mark.parametrize("sandbox", ["strict", "weak"])
@pytest.mark.parametrize("method", ["fork", "exec"])
def test_a_version_gives_the_same_outputs_on_every_run(method: str, sandbox: str) -> None:
    """The string-hash seed is fixed where the interpreter starts: two runs, each in a fork
    server (or fresh interpreter) of its own, list the set in the one order that seed
    gives."""
    from codequorum.behaviour.sandbox import forkserver

    outputs = []
    for _ in range(2):
        forkserver.shutdown()
        result = run_candidate(HASHED, [Case("call")], "f", start_method=method,
                               sandbox=sandbox)
        assert result.status == "ok", result.detail
        assert result.start_method == method
        outputs.append(result.tests[0].output)
    assert outputs[0] == outputs[1] == _order_under_the_fixed_seed()


def test_layers_are_reported() -> None:
    layers = active_layers()
    assert {
        "bwrap", "userns", "pidns", "mountns", "netns", "ipcns", "utsns", "tmpfs",
        "no-capabilities", "no-new-privs", "seccomp", "audit-hook", "rlimits", "session",
        "deadline",
    } <= set(layers)  # fmt: skip
    assert set(layers) <= set(ALL_LAYERS)
    result = run_candidate("def f():\n    return 1\n", [Case("call")], "f")
    assert set(result.layers) == set(layers)


def test_jobs_progress_and_order() -> None:
    codes = [f"def sq(n):\n    return n * n + {i}\n" for i in range(5)]
    seen: list[tuple[int, int]] = []
    results = run_candidates(codes, SQUARE, "sq", jobs=2, progress=lambda d, t: seen.append((d, t)))
    assert [r.index for r in results] == [0, 1, 2, 3, 4]
    assert [r.tests[0].output for r in results] == ["9", "10", "11", "12", "13"]
    assert sorted(seen) == [(i, 5) for i in range(1, 6)]


def test_cancel_kills_running_children_and_marks_the_rest() -> None:
    cancel = threading.Event()
    sleeper = "import time\ndef sq(n):\n    time.sleep(30)\n"
    results: list[CandidateResult] = []

    def run() -> None:
        results.extend(
            run_candidates(
                [sleeper] * 4, SQUARE, "sq", Limits(wall_seconds=60), jobs=2, cancel=cancel
            )
        )

    worker = threading.Thread(target=run)
    started = time.monotonic()
    worker.start()
    time.sleep(1.0)
    cancel.set()
    worker.join(timeout=20)
    assert not worker.is_alive()
    assert time.monotonic() - started < 20
    assert [r.status for r in results] == ["cancelled"] * 4
    assert [r.index for r in results] == [0, 1, 2, 3]


def test_runs_under_python_312(python312: str) -> None:
    result = run_candidate("def sq(n):\n    return n * n\n", SQUARE, "sq", interpreter=python312)
    assert result.python.startswith("3.12")
    assert result.start_method == "fork"
    assert [t.passed for t in result.tests] == [True, True]
    assert "RETURN_VALUE" in (result.tests[0].opcodes or {})


@pytest.mark.parametrize("mode", ["monitoring", "bogus"])
def test_trace_mode_is_checked(mode: str) -> None:
    if mode == "bogus":
        with pytest.raises(ValueError, match="trace mode"):
            run_candidate("def f():\n    return 1\n", [Case("call")], "f", trace_mode=mode)
    else:
        result = run_candidate("def f():\n    return 1\n", [Case("call")], "f", trace_mode=mode)
        assert result.status == "error"  # 3.11 has no sys.monitoring
        assert "3.12" in result.detail


def test_untraced_runs_have_no_counts() -> None:
    result = run_candidate("def sq(n):\n    return n * n\n", SQUARE, "sq", trace=False)
    assert [(t.opcodes, t.opcode_total) for t in result.tests] == [(None, 0), (None, 0)]
    assert [t.passed for t in result.tests] == [True, True]


PARITY = {
    "ok": "def f(n):\n    return sorted({n, 1, 2})\n",
    "raises": "def f(n):\n    return 1 // (n - n)\n",
    "exits": "import os\ndef f(n):\n    os._exit(4)\n",
    "forbidden": "import os\ndef f(n):\n    os.system('true')\n",
    "syntax": "def f(n) return n\n",
}


def test_fork_server_and_fresh_interpreters_agree() -> None:
    tests = [Case("call", args=(3,), expected=[1, 2, 3], has_expected=True)]
    by_method = {
        method: run_candidates(list(PARITY.values()), tests, "f", jobs=2, start_method=method)
        for method in ("fork", "exec")
    }
    fork, fresh = by_method["fork"], by_method["exec"]
    assert {r.start_method for r in fork} == {"fork"}
    assert {r.start_method for r in fresh} == {"exec"}
    assert [r.status for r in fork] == [
        "ok",
        "ok",
        "exit",
        "forbidden: subprocess",
        "syntax-error",
    ]
    for a, b in zip(fork, fresh, strict=True):
        assert (a.status, a.returncode, a.layers, a.python) == (
            b.status,
            b.returncode,
            b.layers,
            b.python,
        )
        assert [(t.passed, t.output, t.exc_type, t.opcodes) for t in a.tests] == [
            (t.passed, t.output, t.exc_type, t.opcodes) for t in b.tests
        ]


def test_a_dead_fork_server_is_replaced() -> None:
    from codequorum.behaviour.sandbox import forkserver

    code = "def f():\n    return 7\n"
    first = run_candidate(code, [Case("call")], "f")
    assert first.tests[0].output == "7"
    server = forkserver.server_for(sys.executable)
    assert server is not None
    server.proc.kill()
    server.proc.wait()
    again = run_candidate(code, [Case("call")], "f")
    assert again.status == "ok"
    assert again.tests[0].output == "7"
    assert again.start_method == "fork"
    replacement = forkserver.server_for(sys.executable)
    assert replacement is not None and replacement is not server and replacement.alive()


def test_start_method_is_checked() -> None:
    with pytest.raises(ValueError, match="start method"):
        run_candidate("def f():\n    return 1\n", [Case("call")], "f", start_method="spawn")
