"""The code around a function in the prompt: whole statements or their signatures, never a
part of one."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from codequorum.core.parsing import FunctionInfo, function_by_name, functions, parse, to_bytes
from codequorum.generate.surrounding_code import MAX_CONTEXT_CHARS, surrounding_code

REPO = Path(__file__).resolve().parents[2]
PLACEHOLDER = re.compile(r"^(\s*)(#|//) \.\.\. `[^`]+` goes here \.\.\.$")

MODULE = '''"""Durations and schedules."""

import re
from bisect import insort

UNITS = {"h": 3600, "m": 60, "s": 1}


def parse_hours(text: str) -> int:
    """Hours in a text like '3h'.

{long_doc}
    >>> parse_hours('3h')
    10800
    """
    return int(text[:-1]) * 3600


def parse_duration(text: str) -> int:
    """Seconds in a text like '1h30m'."""
    total = 0
    for amount, unit in re.findall(r"(\\d+)([hms])", text):
        total += int(amount) * UNITS[unit]
    return total


class Schedule:
    """Events kept in order."""

    def __init__(self) -> None:
        self.events: list[int] = []

    @property
    def size(self) -> int:
        return len(self.events)

    @staticmethod
    def parse(when: str) -> int:
        def inner(part: str) -> int:
            return parse_duration(part)

        total = 0
        for part in when.split("+"):
            total += inner(part)
        return total

    def add(self, when: str) -> None:
        """Add an event at a duration from now."""
        insort(self.events, parse_duration(when))
'''.replace("{long_doc}", "\n".join(f"    Line {k} of a long explanation." for k in range(40)))


def window(source: str, name: str, context_lines: int = 30, lang: str = "python") -> str:
    info = function_by_name(source, lang, name)
    assert info is not None, name
    data = to_bytes(source)
    return surrounding_code(parse(data, lang), data, info, context_lines, lang)


def as_python(text: str) -> str:
    """The window with its placeholder made a statement, so it can be parsed."""
    return "\n".join(PLACEHOLDER.sub(r"\1pass", line) for line in text.split("\n"))


def test_a_long_docstring_above_is_never_cut_and_never_shown_without_its_def() -> None:
    # Thirty lines before the function end inside parse_hours' docstring: a window of lines
    # would show its tail without the `def` (and a model copied it as its own).
    text = window(MODULE, "parse_duration")
    assert "def parse_hours(text: str) -> int: ..." in text
    assert "long explanation" not in text and "10800" not in text
    assert "import re\nfrom bisect import insort" in text
    assert 'UNITS = {"h": 3600, "m": 60, "s": 1}' in text
    assert "# ... `parse_duration` goes here ..." in text
    assert "re.findall" not in text  # the function's own body is never shown
    ast.parse(as_python(text))


def test_a_method_keeps_its_class_header_docstring_and_nearest_neighbours() -> None:
    text = window(MODULE, "Schedule.add", context_lines=6)
    assert text.startswith("# ...\n\nimport re\nfrom bisect import insort\n\n# ...\n")
    assert 'class Schedule:\n    """Events kept in order."""' in text
    assert "    # ... `add` goes here ..." in text
    # The nearest member before it does not fit six lines whole: its signature stands in.
    assert "    def parse(when: str) -> int: ..." in text
    assert "def inner" not in text and "insort(self.events" not in text
    ast.parse(as_python(text))


def test_decorators_go_with_the_function_they_decorate() -> None:
    text = window(MODULE, "Schedule.size")
    assert "    # ... `size` goes here ..." in text
    assert "@property" not in text
    assert "    @staticmethod\n    def parse(when: str) -> int:" in text


def test_a_nested_function_shows_the_function_around_it() -> None:
    text = window(MODULE, "Schedule.parse.inner")
    assert "    @staticmethod\n    def parse(when: str) -> int:\n" in text
    assert "        # ... `inner` goes here ..." in text
    assert "        for part in when.split(\"+\"):" in text
    ast.parse(as_python(text))


def test_without_context_lines_the_imports_and_headers_remain() -> None:
    text = window(MODULE, "Schedule.add", context_lines=0)
    assert text == (
        "# ...\n\nimport re\nfrom bisect import insort\n\n# ...\n\n\n"
        'class Schedule:\n    """Events kept in order."""\n\n    # ...\n\n'
        "    # ... `add` goes here ..."
    )


def test_a_huge_neighbour_is_shown_by_its_signature() -> None:
    body = "\n".join(f"    x{k} = {k}" for k in range(300))
    source = f"def big() -> None:\n{body}\n\n\ndef small() -> int:\n    return 1\n"
    text = window(source, "small")
    assert text == "def big() -> None: ...\n\n\n# ... `small` goes here ..."


def test_javascript_class_with_braces_and_signatures() -> None:
    source = (
        "import fs from 'fs';\n\nconst LIMIT = 10;\n\nfunction read(path) {\n"
        "  return fs.readFileSync(path, 'utf8');\n}\n\nexport class Store {\n"
        "  constructor(path) {\n    this.path = path;\n  }\n\n  load() {\n"
        "    return JSON.parse(read(this.path));\n  }\n\n  save(data) {\n"
        "    fs.writeFileSync(this.path, JSON.stringify(data));\n  }\n}\n"
    )
    text = window(source, "Store.load", context_lines=2, lang="javascript")
    assert text == (
        "import fs from 'fs';\n\n// ...\n\nfunction read(path) { ... }\n\n"
        "export class Store {\n  constructor(path) { ... }\n\n"
        "  // ... `load` goes here ...\n\n  save(data) { ... }\n}"
    )


def test_a_file_with_only_the_function_has_no_window() -> None:
    assert window("def f():\n    return 1\n", "f") == ""


def _cases() -> list[tuple[str, str]]:
    paths = ["server/codequorum/ingest/store.py", "server/codequorum/pipeline/session.py",
             "server/codequorum/generate/endpoint.py"]
    cases: list[tuple[str, str]] = []
    for path in paths:
        source = (REPO / path).read_text(encoding="utf-8")
        cases.extend((path, f.qualified_name) for f in functions(source, "python")[::4])
    return cases


@pytest.mark.parametrize("context_lines", [0, 3, 12, 30])
def test_every_window_of_real_modules_is_whole_statements(context_lines: int) -> None:
    """Windows around functions of real modules parse as Python: only whole statements,
    signatures and ``...`` lines; every other line is a line of the file; the bounds hold."""
    for path, name in _cases():
        source = (REPO / path).read_text(encoding="utf-8")
        info = function_by_name(source, "python", name)
        assert isinstance(info, FunctionInfo)
        text = window(source, name, context_lines)
        try:
            ast.parse(as_python(text))
        except SyntaxError as exc:  # pragma: no cover - the message names the case
            pytest.fail(f"{path}::{name} (context {context_lines}): {exc}\n{text}")
        file_lines = set(source.split("\n"))
        for line in text.split("\n"):
            made = (PLACEHOLDER.match(line) or line.strip() == "# ..."
                    or line.endswith(": ..."))
            assert made or line in file_lines, (path, name, line)
        assert len(text) <= MAX_CONTEXT_CHARS + 2500  # imports and headers come on top
        assert info.text not in text
