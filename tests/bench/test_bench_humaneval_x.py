"""The HumanEval-X bench's mutants: one site changed each, after the prompt, distinct,
parsing, the same for the same seed."""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from bench_humaneval_x import mutants, sites
from codequorum.core.parsing import parse

PROMPT = "/* Count the items above the limit.\n  >>> above([1, 5], 2)\n  1\n  */\n"
CODE = PROMPT + ("const above = (xs, limit) => {\n  let n = 0;\n"
                 "  for (const x of xs) { if (x > limit && true) n += 1; }\n  return n;\n}\n")


def test_sites_are_the_operators_integers_and_booleans_after_the_prompt() -> None:
    start = len(PROMPT.encode("utf-8"))
    found = [(CODE.encode("utf-8")[a:b].decode("utf-8"), text) for a, b, text in
             sites(CODE, start)]
    # the 1 and 5 of the prompt's example are not the solution's
    assert found == [("0", "1"), (">", ">="), ("&&", "||"), ("true", "false"), ("1", "2")]


def _changed(m: str) -> int:
    return sum(1 for op in difflib.SequenceMatcher(None, CODE, m, autojunk=False).get_opcodes()
               if op[0] != "equal")


def test_mutants_change_one_site_each_then_two_and_are_drawn_alike_for_a_seed() -> None:
    start = len(PROMPT.encode("utf-8"))
    drawn = mutants(CODE, start, 9, seed=3)
    assert len(drawn) == 9 == len(set(drawn))
    assert drawn == mutants(CODE, start, 9, seed=3)
    for m in drawn:
        assert m.startswith(PROMPT) and m != CODE
        assert not parse(m, "javascript").root_node.has_error
    # the five sites one at a time first, then pairs of them
    assert [_changed(m) for m in drawn] == [1] * 5 + [2] * 4
    assert mutants(CODE, start, 2, seed=3) == drawn[:2]
