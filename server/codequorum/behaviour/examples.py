"""Examples in a function's docstring, read statically: call arguments and, where the
docstring gives one, the expected value (nothing here runs code).

The forms read, each into a ``TestCase(kind="call")`` whose arguments and expected value
come from :func:`ast.literal_eval` only:

- ``>>> f(...)`` prompts (:class:`doctest.DocTestParser`), the output line as the expected
  value, or ``>>> f(...) == value`` without one. A docstring where one example breaks the
  parser (a ``\\n`` written unescaped splits a line) keeps its other examples: each prompt
  is then parsed on its own. A method's prompts say what it is called on:
  ``>>> Shape(3).f(...)`` (an instance made with literal arguments), ``>>> Shape.f(...)``
  (the class), ``>>> Shape(3).f`` (a property, read);
- lines calling the function, at the start or inside a sentence, followed by an arrow or
  words: ``f(...) == value``, ``➞``, ``=>``, ``->``, ``returns value``, ``should return
  value.``, bulleted or not (``for f('a', [1]) == 'a.1'``);
- ``Input: ...`` with ``Output: ...`` on the same or a following line, the input as
  positional values or as ``name = value`` pairs (``Input: arr = [1, 2], k = 1``);
- ``For name = value, ... the output should be value`` (also ``the result is``).

``true``/``false``/``none`` read as Python's, a trailing ``# comment`` is left out, and
``name = value`` pairs must name the function's parameters. An example whose arguments or
expected value are not literals is skipped, or kept without an expected value.
"""

from __future__ import annotations

import ast
import doctest
import itertools
import re
import textwrap
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from codequorum.core import pyast
from codequorum.core.limits import MAX_EXAMPLE_LINE_CHARS
from codequorum.core.model import Receiver, TestCase
from codequorum.core.quoted import outside_quotes
from codequorum.ingest import humaneval

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
#: Positional and keyword arguments of one call.
Call = tuple[tuple[Any, ...], dict[str, Any]]

_ARROW = re.compile(r"\s*(?:#\s*)?(==>|=>|➞|->|→|==|=|should\s+return|returns?\b)\s*")
#: What starts a line of examples in prose docstrings (``* f(1) => 2``).
_BULLET = re.compile(r"^(?:[*\-•]\s+)")
#: Lower-case booleans as prose docstrings write them (``f(1) => true``).
_PROSE_WORDS = {"true": "True", "false": "False", "none": "None", "null": "None"}
#: ``Input: ...`` and ``Output: ...`` (``Example 1: Input: ...`` too).
_INPUT = re.compile(r"^(?:example\s*\d*\s*:?\s*)?input\s*:\s*(?P<args>.*)$", re.IGNORECASE)
_OUTPUT = re.compile(r"^output\s*:\s*(?P<want>.*)$", re.IGNORECASE)
_SAME_LINE_OUTPUT = re.compile(r"\s+output\s*:\s*", re.IGNORECASE)
#: How many `` #`` comment starts after an arrow are tried as the end of the literal.
_COMMENT_CUTS = 8
#: How many lines after ``Input:`` its ``Output:`` may come.
_OUTPUT_WITHIN = 3
#: ``For lst = [1, 2] the output should be 6``.
_FOR = re.compile(  # ``args`` starts at a non-blank: no way to split a run of blanks twice
    r"^for\s+(?P<args>\S.*?),?\s+the\s+(?:output|result|answer)\s+"
    r"(?:should\s+be|will\s+be|is)\s+(?P<want>.+)$",
    re.IGNORECASE,
)


#: What parsing a docstring's text can raise: it was never checked (a line nested past the
#: parser's limits gives a MemoryError or RecursionError, not a SyntaxError).
UNREADABLE = (SyntaxError, ValueError, MemoryError, RecursionError)


def _literal(text_or_node: str | ast.expr) -> tuple[bool, Any]:
    try:
        value = pyast.literal_eval(text_or_node)
    except (TypeError, *UNREADABLE):
        return False, None
    return (True, value) if humaneval.is_plain(value) else (False, None)


def _literal_call(expr: ast.expr, name: str) -> Call | None:
    if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name)):
        return None
    if expr.func.id != name:
        return None
    args: list[Any] = []
    for a in expr.args:
        ok, v = (False, None) if isinstance(a, ast.Starred) else _literal(a)
        if not ok:
            return None
        args.append(v)
    kwargs: dict[str, Any] = {}
    for kw in expr.keywords:
        ok, v = (False, None) if kw.arg is None else _literal(kw.value)
        if not ok or kw.arg is None:
            return None
        kwargs[kw.arg] = v
    return tuple(args), kwargs


def _method_call(expr: ast.expr, name: str) -> tuple[Receiver, Call] | None:
    """``Shape(3).name(...)``, ``Shape.name(...)`` or ``Shape(3).name`` (a property) with
    literal arguments: (what it is called on, the call's arguments)."""
    if isinstance(expr, ast.Attribute) and expr.attr == name:
        receiver = _receiver(expr.value)
        if receiver is None or not receiver.call:
            return None
        return receiver, ((), {})
    if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute)
            and expr.func.attr == name):
        return None
    receiver = _receiver(expr.func.value)
    call = _literal_call(ast.Call(func=ast.Name(id=name), args=expr.args,
                                  keywords=expr.keywords), name)
    return None if receiver is None or call is None else (receiver, call)


def _receiver(node: ast.expr) -> Receiver | None:
    """``Shape`` / ``Outer.Inner`` (the class) or ``Shape(3)`` (an instance of it); a class
    is a name that starts with a capital letter (``s.area()`` names a variable)."""
    if isinstance(node, ast.Call):
        dotted = _class_name(node.func)
        call = _literal_call(ast.Call(func=ast.Name(id="_"), args=node.args,
                                      keywords=node.keywords), "_")
        if dotted is None or call is None:
            return None
        return Receiver(dotted, call[0], call[1])
    dotted = _class_name(node)
    return None if dotted is None else Receiver(dotted, call=False)


def _class_name(node: ast.expr) -> str | None:
    """``Shape`` or ``geo.Shape`` when the last name starts with a capital letter."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts)) if parts[0][:1].isupper() else None


def call_label(
    name: str, args: Sequence[Any], kwargs: dict[str, Any] | None = None, limit: int = 80
) -> str:
    """``f(1, [2, 3])`` for messages, shortened to ``limit`` characters."""
    parts = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in (kwargs or {}).items()]
    text = f"{name}({', '.join(parts)})"
    return text if len(text) <= limit else text[: limit - 4] + "...)"


def _call_test(
    args: tuple[Any, ...], kwargs: dict[str, Any], name: str, want: str | None,
    receiver: Receiver | None = None,
) -> TestCase:
    has, expected = (False, None) if not want else _literal(want)
    label = call_label(name, args, kwargs)
    if receiver is not None:
        label = f"{receiver.label()}.{label}"
    return TestCase(
        kind="call", args=args, kwargs=kwargs, expected=expected, has_expected=has, name=label,
        receiver=receiver,
    )


def doctest_cases(fn: FunctionNode, name: str) -> list[TestCase]:
    """Call cases from ``fn``'s docstring, in the order of the forms in the module
    docstring, each call once (with its expected value where any form gives one)."""
    doc = ast.get_docstring(fn, clean=True)
    if not doc:
        return []
    doc = "\n".join("" if len(line) > MAX_EXAMPLE_LINE_CHARS else line
                     for line in doc.splitlines())
    found = [*_prompt_cases(doc, name), *_call_line_cases(doc, name),
             *_input_output_cases(doc, name, fn), *_for_cases(doc, name, fn)]
    out: dict[str, TestCase] = {}
    for case in found:
        if case.name not in out or (case.has_expected and not out[case.name].has_expected):
            out[case.name] = case
    return list(out.values())


# ----------------------------------------------------------------------------- prompts


def _prompt_blocks(doc: str) -> Iterator[str]:
    """Each ``>>>`` prompt with the lines up to the next prompt or blank line, dedented."""
    block: list[str] = []
    for line in doc.splitlines():
        if line.lstrip().startswith(">>>") or not line.strip():
            if block:
                yield textwrap.dedent("\n".join(block)) + "\n"
            block = [line] if line.strip() else []
        elif block:
            block.append(line)
    if block:
        yield textwrap.dedent("\n".join(block)) + "\n"


def doctest_examples(doc: str) -> list[doctest.Example]:
    """The docstring's doctest examples that doctest runs (not those marked
    ``# doctest: +SKIP``); where one breaks the parser, the others."""
    parser = doctest.DocTestParser()
    try:
        return _run_by_doctest(parser.get_examples(doc))
    except ValueError:
        pass
    out: list[doctest.Example] = []
    for block in _prompt_blocks(doc):
        try:
            out += parser.get_examples(block)
        except ValueError:
            continue
    return _run_by_doctest(out)


def _run_by_doctest(examples: list[doctest.Example]) -> list[doctest.Example]:
    """The examples doctest would run: those without ``+SKIP``."""
    return [e for e in examples if not e.options.get(doctest.SKIP)]


def _prompt_expr(source: str, want: str | None) -> tuple[ast.expr, str | None] | None:
    """The expression of a prompt and its expected text, ``>>> f(1) == 2`` read as
    ``f(1)`` wanting ``2``; None when the prompt is no expression."""
    try:
        expr = pyast.parse(source.strip(), mode="eval").body
    except UNREADABLE:
        return None
    if isinstance(expr, ast.Compare) and len(expr.ops) == 1 and isinstance(expr.ops[0], ast.Eq):
        ok, _ = _literal(expr.comparators[0])
        if ok and want in ("True", None):  # ``>>> f(1) == 2``, shown True or not at all
            want = ast.unparse(expr.comparators[0])
            expr = expr.left
    return expr, want


def is_literal_call(source: str, name: str) -> bool:
    """Whether a prompt's code is a call of ``name`` that the literal path reads (a call,
    a method call or a property read, with literal arguments)."""
    read = _prompt_expr(source, None)
    return read is not None and (_literal_call(read[0], name) is not None
                                 or _method_call(read[0], name) is not None)


def inner_call_arguments(source: str, name: str) -> tuple[Any, ...] | None:
    """The literal positional arguments of the first call of ``name`` inside an example
    that calls it some other way (``print(ordinalize(1))``, ``list(f('ab', 2))``): what
    its parameters' types are read from. None when there is none (or it is unreadable)."""
    try:
        tree = pyast.parse(source, mode="exec")
    except UNREADABLE:
        return None
    for node in ast.walk(tree):
        call = _literal_call(node, name) if isinstance(node, ast.Call) else None
        if call is not None and not call[1]:
            return call[0]
    return None


def _prompt_cases(doc: str, name: str) -> Iterator[TestCase]:
    for ex in doctest_examples(doc):
        read = _prompt_expr(ex.source, ex.want.strip() or None)
        if read is None:
            continue
        expr, want = read
        call = _literal_call(expr, name)
        if call is not None:
            yield _call_test(call[0], call[1], name, want)
            continue
        method = _method_call(expr, name)
        if method is not None:
            receiver, (args, kwargs) = method
            case = _call_test(args, kwargs, name, want, receiver)
            if isinstance(expr, ast.Attribute):  # a property: read, not called
                case = replace(case, name=f"{receiver.label()}.{name}")
            yield case


# ----------------------------------------------------------------------------- calls in prose


def _call_line_cases(doc: str, name: str) -> Iterator[TestCase]:
    """``f(1, 2) == 3`` / ``f(1, 2) ➞ 3`` / ``... for f(1) returns 2``, without a prompt."""
    start = re.compile(rf"(?<![\w.]){re.escape(name)}\(")
    for line in doc.splitlines():
        s = _BULLET.sub("", line.strip())
        if s.startswith(">>>"):
            continue
        closes = _closing_brackets(s)
        for m in start.finditer(s):
            end = closes.get(m.end() - 1)
            case = None if end is None else _arrow_case(s[m.start() : end + 1], s[end + 1 :],
                                                        name)
            if case is not None:
                yield case


def _closing_brackets(line: str) -> dict[int, int]:
    """Where the bracket opened at each position closes (any of ``([{`` closed by any of
    ``)]}``, as a count of depth would pair them; brackets inside a string literal,
    ``f(')')``, are text; a quote after a letter is prose's apostrophe, ``it's``), in one
    pass."""
    pairs: dict[int, int] = {}
    opened: list[int] = []
    for i, ch in outside_quotes(line, "'\"", apostrophes=True):
        if ch in "([{":
            opened.append(i)
        elif ch in ")]}" and opened:
            pairs[opened.pop()] = i
    return pairs


def _arrow_case(call_text: str, rest: str, name: str) -> TestCase | None:
    """The case of one call in prose (``call_text``) and what follows it (``rest``)."""
    try:
        expr = pyast.parse(call_text, mode="eval").body
    except UNREADABLE:
        return None
    call = _literal_call(expr, name)
    if call is None:
        return None
    m = _ARROW.match(rest)
    want = _expected_text(rest[m.end():]) if m else None
    return _call_test(call[0], call[1], name, want)


def _expected_text(text: str) -> str | None:
    """The literal after an arrow (``=> [1, 2].``, ``returns 'ab' # because``,
    ``=> true``), or None when there is none."""
    candidates = [text]
    comments = (k for k in range(len(text)) if text.startswith(" #", k))
    candidates += [text[:k] for k in itertools.islice(comments, _COMMENT_CUTS)]
    for candidate in candidates:
        want = candidate.strip().rstrip(".,;").strip()
        want = _PROSE_WORDS.get(want.lower(), want) if want.isalpha() else want
        if want and _literal(want)[0]:
            return want
    return None


# ----------------------------------------------------------------------------- input/output


def _signature(fn: FunctionNode) -> tuple[list[str], int]:
    """(positional parameter names, how many are required), without ``self``/``cls``."""
    pos = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)]
    required = len(pos) - len(fn.args.defaults)
    if pos and pos[0] in ("self", "cls"):
        return pos[1:], required - 1
    return pos, required


def _call_of(text: str, name: str, fn: FunctionNode) -> Call | None:
    """Arguments written as prose writes them (``[4, 2, 3]``, ``arr = [1, 2], k = 3``), or
    None unless they are literals that fit ``fn``'s parameters; ``name = value`` pairs for
    the parameters after the positional values become positional, placed by name."""
    text = text.strip().rstrip(".,;").strip()
    if not text:
        return None
    try:
        expr = pyast.parse(f"{name}({text})", mode="eval").body
    except UNREADABLE:
        return None
    call = _literal_call(expr, name)
    if call is None:
        return None
    args, kwargs = call
    params, required = _signature(fn)
    given = list(params[: len(args)])
    if len(args) > len(params) or any(k not in params or k in given for k in kwargs):
        return None
    if len(args) + len(kwargs) < required:
        return None
    following = params[len(args): len(args) + len(kwargs)]
    if set(kwargs) == set(following):  # ``arr = [1], k = 2``: positional
        return (*args, *(kwargs[p] for p in following)), {}
    return args, kwargs


def _input_output_cases(doc: str, name: str, fn: FunctionNode) -> Iterator[TestCase]:
    """``Input: ...`` with its ``Output: ...`` on the same or one of the next lines."""
    lines = [_BULLET.sub("", line.strip()) for line in doc.splitlines()]
    for i, line in enumerate(lines):
        m = _INPUT.match(line)
        if m is None:
            continue
        parts = _SAME_LINE_OUTPUT.split(m.group("args"), maxsplit=1)
        want = parts[1] if len(parts) == 2 else _output_after(lines, i)
        call = _call_of(parts[0], name, fn)
        if call is not None:
            yield _call_test(call[0], call[1], name, _expected_text(want or ""))


def _output_after(lines: Sequence[str], i: int) -> str | None:
    """The text of the ``Output:`` line within a few lines after line ``i``."""
    for line in lines[i + 1: i + 1 + _OUTPUT_WITHIN]:
        if _INPUT.match(line):
            return None
        m = _OUTPUT.match(line)
        if m is not None:
            return m.group("want")
    return None


def _for_cases(doc: str, name: str, fn: FunctionNode) -> Iterator[TestCase]:
    """``For lst = [1, 2] the output should be 6``."""
    for line in doc.splitlines():
        m = _FOR.match(_BULLET.sub("", line.strip()))
        if m is None:
            continue
        call = _call_of(m.group("args"), name, fn)
        if call is not None:
            yield _call_test(call[0], call[1], name, _expected_text(m.group("want")))


__all__ = ["call_label", "doctest_cases", "doctest_examples", "inner_call_arguments",
           "is_literal_call"]
