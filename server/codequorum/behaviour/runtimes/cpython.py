"""The CPython runtime: versions of Python run as children of the same interpreter family.

Each field of :data:`CPYTHON` points at the code that does the part: the start-up flags and
environment (:mod:`~codequorum.behaviour.sandbox.startup`), the bubblewrap layout of an
interpreter (:func:`~codequorum.behaviour.sandbox.bwrap.interpreter_layout`), the child
script (:data:`~codequorum.behaviour.sandbox.supervisor.CHILD_SCRIPT`), the probe
(:func:`~codequorum.behaviour.sandbox.isolation.probed`), static opcode counts
(:func:`static_counts`), test inputs (:func:`~codequorum.behaviour.input_plan.collect_inputs`),
docstring examples (:func:`~codequorum.behaviour.examples.doctest_cases`), the module view
(:func:`~codequorum.ingest.module_view.module_view`) and the canonical form of a value
(:func:`~codequorum.core.values.canonical_output`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence

from codequorum.behaviour.examples import doctest_cases
from codequorum.behaviour.input_plan import collect_inputs
from codequorum.behaviour.module_rules import outside_names
from codequorum.behaviour.runtimes.runtime import Runtime
from codequorum.behaviour.sandbox import bwrap, isolation, startup
from codequorum.behaviour.sandbox.supervisor import CHILD_SCRIPT, run_candidate
from codequorum.core.errors import UserError
from codequorum.core.values import canonical_output
from codequorum.generate.input_language import PYTHON_INPUTS
from codequorum.generate.prompting import display_name
from codequorum.ingest.module_view import module_view
from codequorum.metrics.opcodes import STATIC_COUNT_SCRIPT, static_opcode_counts


def static_counts(
    codes: Sequence[str], interpreter: str | None = None
) -> list[dict[str, int] | None]:
    """Static opcode counts per candidate, under ``interpreter`` (default: this one).

    Another interpreter only compiles the code (:data:`STATIC_COUNT_SCRIPT`, stdlib only,
    nothing executed), so counts match the bytecode the sandbox children trace.
    """
    if interpreter is None or os.path.realpath(interpreter) == os.path.realpath(sys.executable):
        seen: dict[str, dict[str, int] | None] = {}
        for code in codes:  # identical versions compiled once
            if code not in seen:
                seen[code] = static_opcode_counts(code)
        return [None if seen[c] is None else dict(seen[c] or {}) for c in codes]
    try:
        proc = subprocess.run(
            [interpreter, "-I", "-S", "-c", STATIC_COUNT_SCRIPT],
            input=json.dumps(list(codes)),
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        data = json.loads(proc.stdout)
    except (OSError, subprocess.SubprocessError, ValueError) as exc:
        raise UserError(f"cannot count opcodes with {interpreter}: {exc}") from None
    return [None if c is None else {str(k): int(v) for k, v in c.items()} for c in data]


def require(interpreter: str | None = None, sandbox: str = "strict", view: bool = False) -> None:
    """Raise when Python versions cannot run here at ``sandbox`` (the sandbox's probe)."""
    isolation.require(interpreter, sandbox, view=view)


def compile_error(code: str) -> str | None:
    """``SyntaxError: ...`` as the sandbox words it, or ``None`` if ``code`` compiles
    (compiling executes nothing)."""
    try:
        compile(code, "<candidate>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def this_python(interpreter: str | None) -> str:
    """The version of the Python that runs versions when none is named (this process's);
    "" for a named interpreter, whose version only its own run tells."""
    return sys.version.split()[0] if interpreter is None else ""


CPYTHON = Runtime(
    language="python",
    name=display_name("python"),
    flags=startup.FLAGS,
    environment=startup.environment,
    layout=bwrap.interpreter_layout,
    child_script=CHILD_SCRIPT,
    probe=isolation.probed,
    static_counts=static_counts,
    test_inputs=collect_inputs,
    examples=doctest_cases,
    module_view=module_view,
    canonical=canonical_output,
    proposed_inputs=True,
    run=run_candidate,
    require=require,
    comment_examples=False,
    modules=True,
    compile_error=compile_error,
    outside_names=outside_names,
    inputs=PYTHON_INPUTS,
    version=this_python,
)

__all__ = ["CPYTHON", "compile_error", "static_counts"]
