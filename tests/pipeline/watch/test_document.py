"""One document's memory under the watch: a cut and paste back, an undo, a redo and a
repeated arrival are no arrival; parsing happens only for a change worth it."""

from __future__ import annotations

from codequorum.pipeline.watch.document import DocumentWatch
from codequorum.pipeline.watch.edits import Edit

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


def test_the_functions_are_asked_for_only_when_a_change_is_worth_parsing() -> None:
    asked: list[int] = []

    def infos() -> None:
        asked.append(1)
        return None

    watch = DocumentWatch()
    text = HEAD
    for ch in "def f(x):\n    return x\n":
        watch.arrivals("python", [text], [Edit(len(text), len(text), ch)], text + ch, infos)
        text += ch
    assert asked == []
    watch.arrivals("python", [text], [Edit(len(text), len(text), FUNCTION)], text + FUNCTION,
                   infos)
    assert asked == [1]


def test_the_memory_is_bounded() -> None:
    watch = DocumentWatch(kept=2)
    watch.remember(["a", "b", "c"])
    assert list(watch._known) == ["b", "c"]
