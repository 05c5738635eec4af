"""One document's memory under the watch: a cut and paste back, an undo, a redo and a
repeated arrival are no arrival; a change is read only when it is worth reading, and then
only around what it changed; the rule is the one of reading the whole text each time."""

from __future__ import annotations

import random

from codequorum.pipeline.watch.arrivals import (
    Arrival,
    keys_of,
    new_arrivals,
    removes_lines,
    worth_parsing,
)
from codequorum.pipeline.watch.document import DocumentWatch
from codequorum.pipeline.watch.edits import Edit, inserted_regions

from .test_index import _valid_change, function

FUNCTION = ("def clamp(x, low, high):\n    if x < low:\n        return low\n"
            "    return min(x, high)\n")
HEAD = "import math\n\n\n"


def test_a_cut_pasted_back_is_remembered_and_an_arrival_is_one_once() -> None:
    watch = DocumentWatch()
    text = HEAD
    paste = Edit(len(text), len(text), FUNCTION)
    after = text + FUNCTION
    assert [a.qualified_name for a in watch.arrivals("python", [text], [paste], after)] == [
        "clamp"]
    # undo (the paste goes), then redo (it comes back): the same shape is no new arrival
    undo = Edit(len(HEAD), len(after), "")
    assert watch.arrivals("python", [after], [undo], HEAD) == []
    assert watch.arrivals("python", [HEAD], [paste], after) == []


def test_a_function_cut_elsewhere_and_pasted_is_a_move_not_an_arrival() -> None:
    text = HEAD + FUNCTION + "\n\nx = 1\n"
    watch = DocumentWatch()
    start = text.index("def clamp")
    cut = Edit(start, start + len(FUNCTION), "")
    without = text[:start] + text[start + len(FUNCTION):]
    assert watch.arrivals("python", [text], [cut], without) == []
    at = len(without)
    moved = without + "\n\n" + FUNCTION
    assert watch.arrivals("python", [without], [Edit(at, at, "\n\n" + FUNCTION)], moved) == []


def test_typing_reads_nothing_and_an_insertion_reads_around_itself() -> None:
    watch = DocumentWatch()
    text = "".join(function(i) + "\n" for i in range(2000))
    watch.opened("python", text)
    assert (watch.work.full_builds, watch.work.windows) == (1, 0)
    for ch in "def f(x):\n    return x\n":
        watch.arrivals("python", [text], [Edit(len(text), len(text), ch)], text + ch)
        text += ch
    assert (watch.work.full_builds, watch.work.windows) == (1, 0)
    at = text.index("def f_1000(")
    after = text[:at] + FUNCTION + "\n" + text[at:]
    found = watch.arrivals("python", [text], [Edit(at, at, FUNCTION + "\n")], after)
    assert [a.qualified_name for a in found] == ["clamp"]
    assert after[found[0].start:found[0].end] == FUNCTION.rstrip("\n")
    assert watch.work.full_builds == 1
    assert watch.work.chars - len(text) < 2_000  # the typing at the end, and the insertion


def test_a_document_past_its_second_rests_and_is_read_with_the_next_change() -> None:
    now = [0.0]
    text = "".join(function(i) + "\n" for i in range(60))
    watch = DocumentWatch(clock=lambda: now[0], chars_per_second=len(text) + 100)
    watch.opened("python", text)  # the whole text read: the second is spent
    at = text.index("def f_30(")
    after = text[:at] + FUNCTION + text[at:]
    assert watch.arrivals("python", [text], [Edit(at, at, FUNCTION)], after) == []
    assert watch.rested == 1
    now[0] = 2.0  # the next second: the rested change is read with this one, so the
    # function it wrote is one the document has, and a paste of it is no arrival
    end = len(after)
    again = after + "\n" + FUNCTION
    assert watch.arrivals("python", [after], [Edit(end, end, "\n" + FUNCTION)], again) == []
    other = FUNCTION.replace("clamp", "bound")
    last = again + "\n" + other
    found = watch.arrivals("python", [again], [Edit(len(again), len(again), "\n" + other)],
                           last)
    assert [a.qualified_name for a in found] == ["bound"]


class Reference:
    """The rule read on whole texts: every change parses the document before and after."""

    def __init__(self, language: str = "python") -> None:
        self.known: set[str] = set()
        self.language = language

    def arrivals(self, befores: list[str], edits: list[Edit], after: str) -> list[Arrival]:
        for edit, before in zip(edits, befores, strict=True):
            if removes_lines(edit, before):
                self.known |= keys_of(before, self.language, [(edit.start, edit.end)])
        if not edits or not worth_parsing(edits):
            return []
        found = new_arrivals(befores[0], after, self.language, inserted_regions(edits),
                             self.known)
        self.known |= {a.key for a in found}
        return found


def test_the_watch_finds_what_reading_the_whole_text_finds() -> None:
    offered = 0
    for seed in range(10):
        rng = random.Random(seed)
        text = "# note\nclass Box:\n    pass\n\n" + "".join(function(i) + "\n" for i in range(10))
        watch, reference = DocumentWatch(), Reference()
        if seed % 2:
            watch.opened("python", text)
        for serial in range(100, 160):
            edits = _valid_change(text, rng, serial if rng.random() < 0.7 else serial - 50)
            befores = []
            for e in edits:
                befores.append(text)
                text = text[:e.start] + e.text + text[e.end:]
            got = watch.arrivals("python", befores, edits, text)
            want = reference.arrivals(befores, edits, text)
            assert got == want, (seed, serial, edits)
            offered += len(got)
    assert offered > 100


def _javascript(i: int, name: str | None = None) -> str:
    return (f"function {name or f'f_{i}'}(x, y) {{\n  let t = x + {i}; // é😀\n"
            f"  for (let k = 0; k < y; k++) {{\n    t += k;\n  }}\n  return t * {i % 5};\n}}\n")


def test_the_watch_finds_what_reading_the_whole_text_finds_in_javascript_beyond_ascii(
        ) -> None:
    offered = 0
    for seed in range(6):
        rng = random.Random(seed)
        text = "// note\n" + "".join(_javascript(i) + "\n" for i in range(10))
        watch, reference = DocumentWatch(), Reference("javascript")
        if seed % 2:
            watch.opened("javascript", text)
        for serial in range(100, 150):
            tops = [i + 1 for i, c in enumerate(text) if c == "\n"
                    and text.startswith("function", i + 1)]
            kind = rng.randrange(4)
            if kind == 0:
                at = rng.choice([*tops, len(text)])
                shape = serial if rng.random() < 0.7 else serial - 40
                edits = [Edit(at, at, _javascript(shape, rng.choice([None, "g"])) + "\n")]
            elif kind == 1 and len(tops) > 2:
                a = rng.choice(tops[:-1])
                edits = [Edit(a, tops[tops.index(a) + 1], "")]
            elif kind == 2:
                at = text.index("note") + 4
                edits = [Edit(at, at, rng.choice("aé😀"))]
            else:  # two edits in one change: a function, and a line at the top
                at = rng.choice(tops)
                edits = [Edit(at, at, _javascript(serial)), Edit(0, 0, "\n")]
            befores = []
            for e in edits:
                befores.append(text)
                text = text[:e.start] + e.text + text[e.end:]
            got = watch.arrivals("javascript", befores, edits, text)
            assert got == reference.arrivals(befores, edits, text), (seed, serial)
            offered += len(got)
    assert offered > 60
