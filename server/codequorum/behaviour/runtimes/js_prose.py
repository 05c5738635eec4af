"""Examples written as prose in a JavaScript comment, as a Python docstring writes them
(``behaviour/examples.py`` reads the same forms there; MultiPL-E's translated prompts keep
them as they were):

- ``Input: arr = [1, 2], k = 1`` (or positional values: ``Input: 3``) with ``Output: ...``
  on the same line or one of the next three;
- ``For lst = [1, 2] the output should be 6`` (also ``the result is``, ``will be``; words
  between the values and the verdict left out: ``For N = 150, the sum is 6 the output
  should be "110"``);
- a bare ``Input:`` with one ``name : value`` line per parameter under it (names other
  than the parameters' taken in order when there are as many), then ``Output: ...``;
- ``name = value`` lines for the parameters, then within a few lines ``return value``
  (``return = value``).

Named values must name the function's parameters, in any order, each once; the values are
literals read by tree-sitter (``js_literals``), an expected value as
:func:`codequorum.behaviour.runtimes.js_inputs` reads one (its ``value_text``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from codequorum.behaviour.runtimes.js_literals import literal_text
from codequorum.core.quoted import top_level_split, values_before_prose

#: An example: its arguments, expected value and whether it has one.
Call = tuple[tuple[Any, ...], Any, bool]

_INPUT = re.compile(r"^(?:example\s*\d*\s*:?\s*)?input\s*:\s*(?P<args>.*)$", re.IGNORECASE)
_OUTPUT = re.compile(r"^output\s*:\s*(?P<want>.*)$", re.IGNORECASE)
_SAME_LINE_OUTPUT = re.compile(r"\s+output\s*:\s*", re.IGNORECASE)
#: How many lines after ``Input:`` its ``Output:`` may come.
OUTPUT_WITHIN = 3
_FOR = re.compile(
    r"^for\s+(?P<args>\S.*?),?\s+the\s+(?:output|result|answer)\s+"
    r"(?:should\s+be|will\s+be|is)\s+(?P<want>.+)$",
    re.IGNORECASE,
)
_NAMED = re.compile(r"^\s*([A-Za-z_$][\w$]*)\s*=(?!=)\s*(.*)$", re.S)
#: ``name : value`` or ``name = value``: one parameter's line under a bare ``Input:``.
_NAMED_LINE = re.compile(r"^(?P<name>[A-Za-z_$][\w$]*)\s*(?::|=(?!=))\s*(?P<value>.+)$")
#: ``return value`` / ``return = value`` after ``name = value`` lines.
_RETURN = re.compile(r"^return\s*(?:=(?!=)\s*)?(?P<want>.+)$", re.IGNORECASE)
#: How many lines after its ``name = value`` lines a ``return value`` may come.
RETURN_WITHIN = 4


def prose_examples(lines: Sequence[str], params: Sequence[str],
                   value_text: Callable[[str], str]) -> list[Call]:
    """The ``Input:``/``Output:`` and ``For ... the output should be`` examples of
    ``lines`` (comment marks already off) of a function with parameters ``params``;
    ``value_text`` makes an expected value's text JavaScript's."""
    found: list[Call] = []
    stripped = [line.strip().lstrip("*-• ").strip() for line in lines]
    for i, line in enumerate(stripped):
        got = (_input_example(stripped, i, params) or _for_example(line, params)
               or _assignment_example(stripped, i, params))
        if got is None:
            continue
        args, want = got
        expected = None
        for cut in ([want, want.split(" #")[0]] if want is not None else []):
            expected = expected or literal_text(value_text(cut))
        found.append((args, expected[0], True) if expected is not None else (args, None, False))
    return found


def _input_example(lines: Sequence[str], i: int, params: Sequence[str]
                   ) -> tuple[tuple[Any, ...], str | None] | None:
    m = _INPUT.match(lines[i])
    if m is None:
        return None
    text, want, last = m.group("args"), None, i
    same = _SAME_LINE_OUTPUT.search(text)
    if same is not None:
        text, want = text[:same.start()], text[same.end():]
    else:
        if not text.strip():
            text, last = _named_lines(lines, i + 1, params)
        for line in lines[last + 1:last + 1 + OUTPUT_WITHIN]:
            if _INPUT.match(line):
                break
            out = _OUTPUT.match(line)
            if out is not None:
                want = out.group("want")
                break
    args = arguments(text, params)
    return None if args is None else (args, want)


def _named_lines(lines: Sequence[str], start: int, params: Sequence[str]) -> tuple[str, int]:
    """The arguments of the ``name : value`` lines from ``start`` (named where each names
    a parameter, else positional when there are as many as the parameters) and the index
    of the last such line."""
    named: list[tuple[str, str]] = []
    k = start
    while k < len(lines) and len(named) <= len(params):
        m = _NAMED_LINE.match(lines[k])
        if m is None or _OUTPUT.match(lines[k]):
            break
        named.append((m.group("name"), m.group("value")))
        k += 1
    if named and all(n in params for n, _ in named):
        return ", ".join(f"{n} = {v}" for n, v in named), k - 1
    if named and len(named) == len(params):
        return ", ".join(v for _, v in named), k - 1
    return "", start - 1


def _for_example(line: str, params: Sequence[str]
                 ) -> tuple[tuple[Any, ...], str | None] | None:
    m = _FOR.match(line)
    if m is None:
        return None
    args = arguments(m.group("args"), params)
    values = values_before_prose(m.group("args")) if args is None else None
    args = arguments(values, params) if values is not None else args
    return None if args is None else (args, m.group("want"))


def _assignment_example(lines: Sequence[str], i: int, params: Sequence[str]
                        ) -> tuple[tuple[Any, ...], str | None] | None:
    """``arr = [2, 1]`` lines starting at line ``i`` (one per parameter, not continuing
    such lines above), then ``return [1, 2]`` within a few lines."""
    if i > 0 and _parameter_line(lines[i - 1], params):
        return None
    named: dict[str, str] = {}
    j = i
    while j < len(lines) and (name := _parameter_line(lines[j], params)) is not None:
        if name in named:
            break
        named[name] = _NAMED_LINE.match(lines[j]).group("value")  # type: ignore[union-attr]
        j += 1
    if not named:
        return None
    for line in lines[j:j + RETURN_WITHIN]:
        if _parameter_line(line, params):
            return None
        ret = _RETURN.match(line)
        if ret is not None:
            args = arguments(", ".join(f"{k} = {v}" for k, v in named.items()), params)
            return None if args is None else (args, ret.group("want"))
    return None


def _parameter_line(line: str, params: Sequence[str]) -> str | None:
    """The parameter a ``name = value`` line names, or None."""
    m = _NAMED_LINE.match(line)
    if m is None or m.group("name") not in params or ":" in line[:m.start("value")]:
        return None
    return m.group("name")


def arguments(text: str, params: Sequence[str]) -> tuple[Any, ...] | None:
    """``arr = [1, 2], k = 1`` (named: every parameter once, in any order) or ``[1, 2], 1``
    (positional, as many as the parameters) as the call's arguments; None when the text is
    neither, or a value is not a literal."""
    parts = top_level_split(text.strip().rstrip(".,;").strip())
    named = [_NAMED.match(p) for p in parts]
    if parts and all(named):
        pairs = {m.group(1): m.group(2) for m in named if m is not None}
        if len(pairs) != len(parts) or sorted(pairs) != sorted(params):
            return None
        values = [literal_text(pairs[p]) for p in params]
    else:
        if len(parts) != len(params):
            return None
        values = [literal_text(p) for p in parts]
    if any(v is None for v in values):
        return None
    return tuple(v[0] for v in values if v is not None)


__all__ = ["OUTPUT_WITHIN", "arguments", "prose_examples"]
