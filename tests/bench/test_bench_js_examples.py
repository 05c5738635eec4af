"""``bench/bench_js_examples.py``: HumanEval prompts written as MultiPL-E writes them, and
the JavaScript reader's examples against the Python reader's."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import bench_js_examples as bench
from codequorum.ingest import humaneval


def test_doctests_are_rewritten_and_prose_is_kept() -> None:
    p = humaneval.problem("HumanEval/23")
    assert bench.multipl_e_prompt(p.prompt, p.entry_point) == (
        "//Return length of given string\n//>>> strlen(\"\")\n//0\n"
        "//>>> strlen(\"abc\")\n//3\nfunction strlen(string){\n}")
    prose = humaneval.problem("HumanEval/150")
    assert "\n//for x_or_y(7, 34, 12) == 34\n" in bench.multipl_e_prompt(
        prose.prompt, prose.entry_point)


def test_both_readers_find_the_same_examples_and_values() -> None:
    for task_id, counts in (("HumanEval/23", (2, 2)), ("HumanEval/136", (3, 3)),
                            ("HumanEval/122", (1, 1)), ("HumanEval/94", (6, 6))):
        p = humaneval.problem(task_id)
        got = bench.compare(task_id, p)
        assert got is not None and got[:2] == counts and got[2] == [], task_id
