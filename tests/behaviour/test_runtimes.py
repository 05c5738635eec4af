"""The runtime registry: which languages run, and what the CPython entry points at."""

from __future__ import annotations

import sys

from codequorum.behaviour.runtimes import RUNTIMES, runtime_for, runtime_names
from codequorum.behaviour.runtimes.cpython import CPYTHON, static_counts
from codequorum.behaviour.runtimes.node import JAVASCRIPT, TYPESCRIPT
from codequorum.behaviour.sandbox import startup
from codequorum.behaviour.sandbox.supervisor import CHILD_SCRIPT
from codequorum.core.values import canonical_output
from codequorum.metrics.opcodes import static_opcode_counts


def test_python_javascript_and_typescript_run_and_other_languages_do_not() -> None:
    assert runtime_for("python") is CPYTHON
    assert runtime_for("javascript") is JAVASCRIPT
    assert runtime_for("typescript") is TYPESCRIPT
    assert runtime_for("go") is None
    assert runtime_for(None) is None
    assert list(RUNTIMES) == ["python", "javascript", "typescript"]
    assert runtime_names() == "Python, JavaScript and TypeScript"


def test_the_cpython_entry_points_at_the_sandbox_and_the_canonical_form() -> None:
    assert CPYTHON.flags == startup.FLAGS == ("-s", "-S", "-B")
    env = CPYTHON.environment("/usr/bin", "/home/x")
    assert env["PYTHONHASHSEED"] == startup.HASH_SEED == "0"
    assert CPYTHON.child_script == CHILD_SCRIPT and CHILD_SCRIPT.name == "child.py"
    assert CPYTHON.canonical is canonical_output
    assert CPYTHON.canonical("2.0") == CPYTHON.canonical("2") == "2"
    assert CPYTHON.proposed_inputs


def test_static_counts_here_are_the_compiled_counts_once_per_distinct_version() -> None:
    code = "def f(x):\n    return x + 1\n"
    counts = static_counts([code, code, "def (:"], sys.executable)
    assert counts[0] == counts[1] == static_opcode_counts(code)
    assert counts[0] is not counts[1]
    assert counts[2] is None
