"""Same answers? The bundled HumanEval set scored in the strict and the portable sandbox.

Runs ``bench_dynamic_humaneval.py`` once per level on the same tasks and samples, then
prints the wall-time ratio and every task whose pass rates, OER or verdicts differ (the
opcode-based figures, SCTD/DCTD/BEF, are left out: the portable sandbox counts its guest's
3.11 opcodes, the strict one the host's).

    .venv/bin/python bench/bench_portable_answers.py [--tasks 164] [--samples 10] [--jobs 2]
    .venv/bin/python bench/bench_portable_answers.py --smoke   # 3 tasks x 2 samples
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
#: The figures that must be equal in both levels.
COMPARED = ("pass_rate_mean", "pass_rate_var", "pass_rate_max_diff", "oer", "oer_no_ex",
            "oer_pair_mean", "oer_graded", "inputs", "graded_inputs", "verdicts")
LEVELS = ("strict", "portable")


def run_level(level: str, args: argparse.Namespace, folder: Path) -> tuple[float, list[Any]]:
    """Wall seconds and per-task rows of one level's run."""
    out = folder / f"{level}.json"
    command = [sys.executable, str(HERE / "bench_dynamic_humaneval.py"), "--tasks",
               str(args.tasks), "--samples", str(args.samples), "--jobs", str(args.jobs),
               "--sandbox", level, "--json", str(out)]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{level}: exit {done.returncode}\n{done.stderr[-2000:]}")
    print(f"--- {level}\n" + "\n".join(done.stdout.strip().splitlines()[-6:]))
    rows: list[Any] = json.loads(out.read_text())
    return elapsed, rows


def differences(strict: list[Any], portable: list[Any]) -> list[str]:
    """One line per task and figure that differ."""
    lines = []
    by_task = {row["task_id"]: row for row in portable}
    for row in strict:
        other = by_task.get(row["task_id"])
        if other is None:
            lines.append(f"{row['task_id']}: missing in the portable run")
            continue
        for key in COMPARED:
            if row.get(key) != other.get(key):
                lines.append(f"{row['task_id']} {key}: strict {row.get(key)!r} "
                             f"portable {other.get(key)!r}")
    return lines


def main() -> None:
    """Print both runs, the ratio and the differences."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=164)
    ap.add_argument("--samples", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--smoke", action="store_true", help="3 tasks x 2 samples")
    args = ap.parse_args()
    if args.smoke:
        args.tasks, args.samples = 3, 2
    with tempfile.TemporaryDirectory() as folder:
        (t_strict, strict), (t_portable, portable) = (
            run_level(level, args, Path(folder)) for level in LEVELS)
    print(f"wall: strict {t_strict:.1f} s, portable {t_portable:.1f} s "
          f"({t_portable / t_strict:.2f}x)")
    found = differences(strict, portable)
    print(f"tasks that differ: {len({line.split()[0] for line in found})} of {len(strict)}")
    for line in found:
        print("  " + line)


if __name__ == "__main__":
    main()
