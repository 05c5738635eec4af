"""A document's functions kept between changes: windows around what changed give the same
shape keys as reading the whole text, and a change costs what it changed."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from codequorum.core import parsing
from codequorum.pipeline.watch.arrivals import KEYS, Arrival, function_code
from codequorum.pipeline.watch.edits import Edit
from codequorum.pipeline.watch.index import (
    BUILD_PIECE,
    MAX_WINDOW,
    DocumentIndex,
    Pending,
    Work,
    window,
)


def function(i: int, name: str | None = None, indent: str = "") -> str:
    """A small function, its shape set by ``i``."""
    body = ("total = x + {i}\n    for k in range(y):\n        total += k\n    return total",
            "if x > {i}:\n        return y\n    return x * {i}",
            "s = str(x)\n    return s[::-1] + '{i}'")[i % 3].format(i=i)
    code = f"def {name or f'f_{i}'}(x, y):\n    {body}\n"
    return "".join(indent + line if line else line for line in code.splitlines(True))


def whole_keys(text: str, language: str = "python") -> Counter[str]:
    """The shape keys of every function of ``text``, read whole."""
    data = text.encode("utf-8")
    return Counter(KEYS.key(function_code(data, info), language)
                   for info in parsing.functions(text, language))


def apply(text: str, edits: list[Edit]) -> str:
    for e in edits:
        text = text[:e.start] + e.text + text[e.end:]
    return text


@given(st.lists(st.tuples(st.integers(0, 40), st.integers(0, 8), st.text("ab\n", max_size=5)),
                min_size=1, max_size=12))
def test_pending_spans_rebuild_the_text_from_the_one_read_and_the_current(
        raw: list[tuple[int, int, str]]) -> None:
    old = text = "0123456789\n" * 4
    pending = Pending()
    for at, length, new in raw:
        start = min(at, len(text))
        edit = Edit(start, min(start + length, len(text)), new)
        text = apply(text, [edit])
        pending.add(edit)
    rebuilt = old
    for start, length, was in pending.spans:
        rebuilt = rebuilt[:start] + text[start:start + length] + rebuilt[start + was:]
    assert rebuilt == text
    assert len(old) + pending.delta() == len(text)


def _valid_change(text: str, rng: random.Random, serial: int) -> list[Edit]:
    """An edit that keeps a Python module of functions and a class valid: a function pasted
    between two, a method pasted in the class, a function cut, a comment typed in."""
    tops = [0] + [i + 1 for i, c in enumerate(text) if c == "\n" and text[i + 1:i + 4] == "def"]
    kind = rng.randrange(4)
    if kind == 0:
        at = rng.choice([*tops, len(text)])
        return [Edit(at, at, function(serial, rng.choice([None, "f_1", "g"])) + "\n")]
    if kind == 1 and "class Box:\n" in text:
        at = text.index("class Box:\n") + len("class Box:\n")
        return [Edit(at, at, function(serial, None, "    "))]
    if kind == 2 and len(tops) > 2:
        a = rng.choice(tops[1:-1])
        b = text.find("\ndef", a + 1) + 1
        return [Edit(a, b, "")] if b > a else []
    at = text.find("# note\n") + len("# note")
    return [Edit(at, at, rng.choice("ab"))]


def test_the_keys_kept_by_windows_are_those_of_the_whole_text() -> None:
    for seed in range(12):
        rng = random.Random(seed)
        text = "# note\nclass Box:\n    pass\n\n" + "".join(function(i) + "\n" for i in range(12))
        index = DocumentIndex("python")
        index.bring_to(text)
        for serial in range(100, 140):
            edits = _valid_change(text, rng, serial)
            text = apply(text, edits)
            index.note(edits)
            if rng.random() < 0.4:
                index.bring_to(text)
                assert index.keys == whole_keys(text), (seed, serial)
        index.bring_to(text)
        assert index.keys == whole_keys(text)
        assert index.work.full_builds == 1


def test_an_insertion_reads_its_lines_not_the_document() -> None:
    text = "".join(function(i) + "\n" for i in range(3000))
    index = DocumentIndex("python")
    index.bring_to(text)
    assert index.work.full_builds == 1
    index.work = Work()
    at = text.index("def f_1500(")
    edits = [Edit(at, at, function(9000) + "\n")]
    after = apply(text, edits)
    index.note(edits)
    index.bring_to(after)
    assert index.keys == whole_keys(after)
    assert index.work.full_builds == 0
    assert index.work.windows == 2  # the lines around it, before and after
    assert index.work.chars < 1000 < len(text) // 100
    assert index.work.keyed <= 1  # the functions beside it were keyed before


def test_a_window_widens_over_an_open_string_but_not_past_its_bound() -> None:
    head = function(1) + '\nX = """\n' + function(2) + '"""\n\n'
    text = head + "".join(function(i) + "\n" for i in range(3, 3000))
    inside = text.index("def f_2(")
    work = Work()
    piece = window(text, (inside, inside + 3), "python", work)
    # from inside the string, the lines read hold the whole string: no function in it
    assert piece.clean and piece.start <= text.index('X = """')
    assert "f_2" not in [i.qualified_name for i in piece.infos]
    broken = text[:inside] + '"""' + text[inside:]  # an unclosed string: never clean
    work = Work()
    piece = window(broken, (inside, inside + 3), "python", work)
    assert not piece.clean and len(piece.text) < 2 * MAX_WINDOW


def test_a_whole_read_in_pieces_keys_what_one_parse_keys() -> None:
    quoted = 'DOC = """\n' + "".join(function(i, f"quoted_{i}") for i in range(300)) + '"""\n\n'
    text = "".join(function(i) + "\n" + (quoted if i % 700 == 5 else "") for i in range(3000))
    assert len(text) > 10 * BUILD_PIECE
    index = DocumentIndex("python")
    index.bring_to(text)
    assert index.keys == whole_keys(text)
    assert not any("quoted" in info.name for info in parsing.functions(text, "python"))
    assert (index.work.full_builds, index.work.windows, index.work.chars) == (1, 0, len(text))


def test_a_whole_read_keys_nothing_and_a_question_keys_one_name() -> None:
    text = "".join(function(i, f"opened_{i}") + "\n" for i in range(2000))
    index = DocumentIndex("python")
    index.bring_to(text)
    assert index.work.keyed == 0  # opening costs the parse, not a key per function
    reformatted = function(7, "opened_7").replace("(x, y)", "( x,y )")
    data = reformatted.encode("utf-8")
    [info] = parsing.functions(reformatted, "python")
    code = function_code(data, info)
    copy = Arrival("opened_7", "opened_7", code, KEYS.key(code, "python"), 0, len(code))
    assert index.has(copy)  # the same shape under other blanks: the document has it
    assert index.work.keyed <= 1  # only the one function of that name
    other = function(8, "opened_7")
    data = other.encode("utf-8")
    [info] = parsing.functions(other, "python")
    code = function_code(data, info)
    assert not index.has(Arrival("opened_7", "opened_7", code, KEYS.key(code, "python"), 0,
                                 len(code)))
