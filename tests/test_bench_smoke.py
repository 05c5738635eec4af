"""Every benchmark script runs once on a tiny input (its ``--smoke`` flag), so a module that
moves or an output that changes cannot break one unnoticed. No time is asserted: speed is
what the scripts themselves measure, in full runs.

The scripts are found by name: every ``bench/*.py`` that runs as a program (it has a
``__main__`` block) and every ``bench/*.mjs``. A script that needs what a test run does not
have (a model server, an hour of sandbox outcomes, a browser) says ``skipped: <why>`` and
exits 0; the test is then skipped with that reason.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
PYTHON_SCRIPTS = sorted(p for p in BENCH.glob("*.py")
                        if 'if __name__ == "__main__":' in p.read_text(encoding="utf-8"))
NODE_SCRIPTS = sorted(BENCH.glob("*.mjs"))


def _smoke(command: list[str]) -> str:
    """Run one smoke run; what it printed (skips the test when the script skipped)."""
    proc = subprocess.run([*command, "--smoke"], cwd=BENCH.parent, capture_output=True,
                          text=True, timeout=600, check=False)
    assert proc.returncode == 0, (f"exit {proc.returncode}\n{proc.stdout[-2000:]}\n"
                                  f"{proc.stderr[-4000:]}")
    skipped = [line for line in proc.stdout.splitlines() if line.startswith("skipped: ")]
    if skipped:
        pytest.skip(f"{Path(command[-1]).name}: {skipped[0].removeprefix('skipped: ')}")
    return proc.stdout + proc.stderr


def test_the_benchmarks_are_found() -> None:
    names = {p.name for p in PYTHON_SCRIPTS}
    assert {"bench_tracer.py", "bench_lsp.py", "compare_outputs.py"} <= names
    assert "reference_data.py" not in names  # imported by the scripts, not run


@pytest.mark.parametrize("script", PYTHON_SCRIPTS, ids=lambda p: p.name)
def test_python_benchmark_runs_on_a_tiny_input(script: Path) -> None:
    assert _smoke([sys.executable, str(script)]).strip()


@pytest.mark.parametrize("script", NODE_SCRIPTS, ids=lambda p: p.name)
def test_node_benchmark_runs_on_a_tiny_input(script: Path) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    assert _smoke([node, str(script)]).strip()
