"""Where a traced run's calls of a generator's ``return`` and ``throw`` went.

No block counter says which way a generator resumed by ``return`` or ``throw`` went (its
``finally`` blocks, its implicit return or throw), nor whether a ``for``-``of`` left early
called its iterator's ``return``. The harness notes both as they happen
(``node_harness/iterators.js``): per call, the caller's source position (when the traced
script called) and, for a suspended generator of the traced script, the position it was
suspended at and the mode. Here: those notes read and checked (:func:`read_notes`), and
the blocks of a graph they pin down: per suspend point, the blocks its ``return`` and
``throw`` resumes enter (:func:`mode_targets`), and per ``for``-``of`` close, the call of
``return`` and the position a call from there reports (:func:`close_call`). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from codequorum.behaviour.runtimes.node_blocks import Block

#: Resume modes as V8 numbers them (``JSGeneratorObject::ResumeMode``).
RETURN, THROW = 1, 2
MAX_NOTES = 4096
MAX_COUNT = 1 << 53
MODE_TABLE = re.compile(r"\{\s*0: @(\d+), 1: @(\d+)\s*\}")


@dataclass(frozen=True)
class Notes:
    """One input's notes: ``closes``, caller position -> calls of ``return`` made there;
    ``resumes``, (suspend position, mode) -> resumes of the traced script's suspended
    generators; ``other``, calls whose effect could not be placed."""

    closes: Mapping[int, int] = field(default_factory=dict)
    resumes: Mapping[tuple[int, int], int] = field(default_factory=dict)
    other: int = 0


NO_NOTES = Notes()


def _count(x: Any) -> bool:
    return type(x) is int and 0 <= x <= MAX_COUNT


def read_notes(data: Any) -> Notes | None:
    """The harness's ``iterators`` field, checked and bounded; None when malformed."""
    if not isinstance(data, dict) or not _count(data.get("other")):
        return None
    closes, resumes = data.get("closes"), data.get("resumes")
    if not (isinstance(closes, list) and isinstance(resumes, list)
            and len(closes) + len(resumes) <= MAX_NOTES):
        return None
    if not all(isinstance(c, list) and len(c) == 2 and all(_count(x) for x in c)
               for c in closes):
        return None
    if not all(isinstance(r, list) and len(r) == 3 and all(_count(x) for x in r)
               and r[1] in (RETURN, THROW) for r in resumes):
        return None
    out: dict[tuple[int, int], int] = {}
    for pos, mode, n in resumes:
        out[(pos, mode)] = out.get((pos, mode), 0) + n
    return Notes({pos: n for pos, n in closes}, out, data["other"])


def mode_targets(blocks: Sequence[Block]) -> dict[int, tuple[int, int] | None]:
    """A generator function's suspend points by source position -> the blocks its
    ``return`` and its ``throw`` resumes enter (each entered from the resume's mode switch
    alone); None for a point whose resumes cannot be placed (a ``yield*``'s, an async
    generator's, two points of one position). Empty for any other function."""
    if not blocks or blocks[0].code[0].name != "SwitchOnGeneratorState":
        return {}
    start_of = {b.code[0].offset: i for i, b in enumerate(blocks)}
    preds = [0] * len(blocks)
    for block in blocks:
        for j in block.succ:
            preds[j] += 1
    out: dict[int, tuple[int, int] | None] = {}
    for block in blocks:
        last = block.code[-1]
        if last.name != "SuspendGenerator" or last.position is None:
            continue
        targets = _targets_after(blocks, start_of, preds, block)
        out[last.position] = None if last.position in out else targets
    return out


def _targets_after(blocks: Sequence[Block], start_of: Mapping[int, int],
                   preds: Sequence[int], block: Block) -> tuple[int, int] | None:
    """The return and throw blocks after ``block``'s suspend: its resume point ends in a
    switch on the resume mode ``{0: next, 1: return}`` whose fall-through throws."""
    resumed = [j for j in block.succ if blocks[j].resumes]
    if len(resumed) != 1:
        return None
    r = resumed[0]
    switch = blocks[r].code[-1]
    table = MODE_TABLE.search(switch.rest)
    if switch.name != "SwitchOnSmiNoFeedback" or table is None or r + 1 >= len(blocks):
        return None
    ret = start_of.get(int(table.group(2)))
    if ret is None or preds[ret] != 1 or preds[r + 1] != 1:
        return None
    return ret, r + 1


def close_call(blocks: Sequence[Block], lookup: int) -> tuple[int, int] | None:
    """A ``for``-``of`` close's call of its iterator's ``return`` (the block after the one
    that looks it up, ``lookup``) and the source position a call from there reports (the
    last one given before it in the bytecode, as V8 reads its position table)."""
    call = lookup + 1
    if call >= len(blocks) or not any(b.name == "CallProperty0" for b in blocks[call].code):
        return None
    for block in reversed(blocks[:call]):
        for b in reversed(block.code):
            if b.position is not None:
                return call, b.position
    return None


__all__ = ["NO_NOTES", "RETURN", "THROW", "Notes", "close_call", "mode_targets", "read_notes"]
