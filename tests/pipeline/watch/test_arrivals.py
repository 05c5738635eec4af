"""Which functions one change wrote: insertions are found, typing and its look-alikes are not."""

from __future__ import annotations

from codequorum.pipeline.watch.arrivals import (
    MAX_ARRIVALS,
    keys_of,
    new_arrivals,
    removes_lines,
    shape_key,
    trivial_body,
    worth_parsing,
)
from codequorum.pipeline.watch.edits import Edit, inserted_regions

HEAD = '"""Durations."""\nimport re\n\n\n'
FUNCTION = '''def parse_duration(text: str) -> int:
    """Seconds in '1h30m'."""
    total = 0
    for amount, unit in re.findall(r"(\\d+)([hms])", text):
        total += int(amount) * {"h": 3600, "m": 60, "s": 1}[unit]
    return total
'''


def arrive(before: str, edits: list[Edit], known: set[str] | None = None,
           language: str = "python") -> list[str]:
    """The qualified names :func:`new_arrivals` finds for ``edits`` on ``before``."""
    after = before
    for e in edits:
        after = after[: e.start] + e.text + after[e.end :]
    if not worth_parsing(edits):
        return []
    found = new_arrivals(before, after, language, inserted_regions(edits), known or set())
    return [a.qualified_name for a in found]


def test_a_pasted_function_arrives_with_its_code_at_column_zero() -> None:
    edits = [Edit(len(HEAD), len(HEAD), FUNCTION)]
    after = HEAD + FUNCTION
    found = new_arrivals(HEAD, after, "python", inserted_regions(edits), set())
    assert [(a.qualified_name, a.lines) for a in found] == [("parse_duration", 6)]
    assert found[0].code == FUNCTION
    assert after[found[0].start:found[0].end] == FUNCTION.rstrip("\n")


def test_a_completed_body_after_a_typed_header_arrives() -> None:
    header = FUNCTION.split("\n", 1)[0]
    before = HEAD + header
    body = FUNCTION[len(header):]
    assert arrive(before, [Edit(len(before), len(before), body)]) == ["parse_duration"]


def test_a_body_written_under_the_users_docstring_arrives() -> None:
    """The header and the docstring are the user's spec: the coverage leaves the docstring
    out, however long it is."""
    header, rest = FUNCTION.split('    total = 0', 1)
    long_doc = header.replace("Seconds in '1h30m'.", "Seconds in a duration. " * 12)
    body = "    total = 0" + rest
    assert arrive(HEAD + long_doc, [Edit(len(HEAD + long_doc), len(HEAD + long_doc), body)]
                  ) == ["parse_duration"]
    # the docstring alone, typed at once under a typed header, is no arrival
    before = HEAD + "def parse_duration(text):\n"
    assert arrive(before, [Edit(len(before), len(before), '    """Seconds.\n\n    More."""\n')]
                  ) == []


def test_a_method_arrives_inside_its_class() -> None:
    before = "class Timer:\n    def start(self):\n        self.t = 0\n\n"
    method = ("    def stop(self, now):\n        elapsed = now - self.t\n"
              "        self.t = None\n        return elapsed\n")
    assert arrive(before, [Edit(len(before), len(before), method)]) == ["Timer.stop"]


def test_typing_a_function_character_by_character_never_arrives() -> None:
    text = HEAD
    for ch in FUNCTION:
        edit = Edit(len(text), len(text), ch)
        assert arrive(text, [edit]) == []
        text += ch


def test_enter_with_its_indentation_is_not_worth_parsing() -> None:
    assert not worth_parsing([Edit(5, 5, "\n        ")])
    assert not worth_parsing([Edit(5, 5, "total = compute(x)")])  # a pasted line
    assert worth_parsing([Edit(5, 5, "total = compute(x)\n    return total")])


def test_a_snippet_or_a_stub_is_not_an_arrival() -> None:
    for stub in ("def name(params):\n    pass\n", "def name(params):\n    ...\n",
                 'def name(params):\n    """Doc."""\n',
                 "def name(params):\n    raise NotImplementedError('later')\n"):
        assert trivial_body(stub, "python"), stub
        assert arrive(HEAD, [Edit(len(HEAD), len(HEAD), stub)]) == []
    assert not trivial_body(FUNCTION, "python")


def test_a_pasted_line_inside_a_function_is_not_an_arrival() -> None:
    before = HEAD + FUNCTION
    at = before.index("    return total")
    assert arrive(before, [Edit(at, at, "    total = max(total, 0)\n    total += 0\n")]) == []


def test_a_function_cut_and_pasted_back_is_remembered() -> None:
    before = HEAD + FUNCTION + "\n\ndef other():\n    return 1\n"
    start = before.index("def parse_duration")
    end = start + len(FUNCTION)
    cut = Edit(start, end, "")
    assert removes_lines(cut, before)
    known = keys_of(before, "python", [(cut.start, cut.end)])
    without = before[:start] + before[end:]
    at = len(without)
    assert arrive(without, [Edit(at, at, "\n\n" + FUNCTION)], known) == []
    assert arrive(without, [Edit(at, at, "\n\n" + FUNCTION)]) == ["parse_duration"]


def test_an_undo_that_restores_a_replaced_function_is_no_arrival() -> None:
    before = HEAD + FUNCTION
    start = len(HEAD)
    other = FUNCTION.replace("total += int(amount)", "total = total + int(amount)")
    assert arrive(before, [Edit(start, len(before), other)]) == ["parse_duration"]
    assert arrive(HEAD + other, [Edit(start, len(HEAD + other), FUNCTION)],
                  keys_of(before, "python")) == []


def test_a_formatter_that_rewraps_a_function_is_no_arrival() -> None:
    before = HEAD + "def f(a, b):\n    return combine(a, b, 'left', 'right')\n"
    body_at = before.index("return")
    wrapped = 'return combine(\n        a,\n        b,\n        "left",\n        "right",\n    )'
    edit = Edit(body_at, len(before) - 1, wrapped)
    assert worth_parsing([edit])
    assert arrive(before, [edit]) == []  # the same tree as before


def test_a_reload_with_the_same_code_or_a_checkout_of_many_functions_is_no_arrival() -> None:
    before = HEAD + FUNCTION
    assert arrive(before, [Edit(0, len(before), before)]) == []
    many = "".join(FUNCTION.replace("parse_duration", f"parse_{i}") + "\n\n"
                   for i in range(MAX_ARRIVALS + 1))
    assert arrive(HEAD, [Edit(len(HEAD), len(HEAD), many)]) == []
    few = "".join(FUNCTION.replace("parse_duration", f"parse_{i}") + "\n\n"
                  for i in range(MAX_ARRIVALS))
    assert arrive(HEAD, [Edit(len(HEAD), len(HEAD), few)]) == [f"parse_{i}"
                                                                 for i in range(MAX_ARRIVALS)]


def test_a_rename_across_the_function_is_no_arrival() -> None:
    before = HEAD + FUNCTION
    spots = [i for i in range(len(before)) if before.startswith("total", i)]
    edits = [Edit(s + 7 * k, s + 7 * k + 5, "seconds") for k, s in enumerate(spots)]
    assert arrive(before, edits) == []


def test_a_nested_function_goes_with_its_outer_one() -> None:
    outer = ("def outer(xs):\n    def key(x):\n        return -x\n"
             "    return sorted(xs, key=key)\n")
    assert arrive(HEAD, [Edit(len(HEAD), len(HEAD), outer)]) == ["outer"]


def test_offsets_hold_after_text_that_is_not_ascii() -> None:
    head = '"""Durées, ½ heure, 🕐."""\n\n\n'
    edits = [Edit(len(head), len(head), FUNCTION)]
    found = new_arrivals(head, head + FUNCTION, "python", inserted_regions(edits), set())
    assert [a.qualified_name for a in found] == ["parse_duration"]
    assert (head + FUNCTION)[found[0].start:found[0].end] == FUNCTION.rstrip("\n")


def test_other_languages_arrive_by_their_text() -> None:
    js = "function clamp(v, lo, hi) {\n  if (v < lo) return lo;\n  return v > hi ? hi : v;\n}\n"
    assert arrive("", [Edit(0, 0, js)], language="javascript") == ["clamp"]
    stub = "function clamp(v, lo, hi) {\n  \n}\n"
    assert arrive("", [Edit(0, 0, stub)], language="javascript") == []
    reformatted = js.replace("  ", "    ")
    assert shape_key(js, "javascript") == shape_key(reformatted, "javascript")
    assert arrive(js, [Edit(0, len(js), reformatted)], language="javascript") == []
