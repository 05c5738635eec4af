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
- ``For name = value, ... the output should be value`` (also ``the result is``; words
  between the values and the verdict are left out: ``For N = 150, the sum is 6 the output
  should be "110"``);
- an ``Input:`` line followed by one ``name : value`` (or ``name = value``) line per
  parameter, then ``Output: ...``; names other than the parameters' are taken in order
  when there is one a parameter;
- ``name = value`` lines for the parameters followed within a few lines by ``return
  value`` (``return = value``);
- arrows followed by a worked sum (``f(x) -> 19 - 5 - 6 = 8``, ``== 1 + 9 = 10``): the
  value after its last ``=``; an aside in brackets after the value (``=> 'No' (it starts
  with a digit)``) is left out;
- where no example names the function, examples calling one other name (a docstring
  written for an earlier name: ``grade_equation([4.0]) ==> ['A+']`` over
  ``numerical_letter_grade``) whose arguments fit its parameters;
- prose calls whose arguments are bare words, ``is_happy(abc) => True``, as strings,
  where at least two lines do so with an expected value and no word names a parameter.

``true``/``false``/``none`` read as Python's, a trailing ``# comment`` is left out, and
``name = value`` pairs must name the function's parameters. An example whose arguments or
expected value are not literals is skipped, or kept without an expected value.
"""

from __future__ import annotations

import ast
import builtins
import doctest
import inspect
import itertools
import re
import textwrap
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from codequorum.core import pyast
from codequorum.core.limits import MAX_EXAMPLE_LINE_CHARS
from codequorum.core.model import Receiver, TestCase
from codequorum.core.quoted import outside_quotes, values_before_prose
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
#: ``= 8`` ending a worked sum after an arrow (not ``==``, ``<=``, ``=>``).
_SUM_RESULT = re.compile(r"(?<![=!<>])=(?![=>])")
#: Lines of bare-word calls with expected values it takes to read them as strings.
_WORD_LINES = 2
#: A name called in prose: ``grade_equation(`` (not a method, ``x.f(``).
_CALLED = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\(")
#: How many other names are tried for a docstring naming no call of its function.
_RENAMED_TRIED = 5
_BUILTINS = frozenset(dir(builtins))
#: ``name : value`` or ``name = value``: one parameter's line under a bare ``Input:``.
_NAMED_LINE = re.compile(r"^(?P<name>[A-Za-z_]\w*)\s*(?::|=(?!=))\s*(?P<value>.+)$")
#: ``return value`` / ``return = value`` after ``name = value`` lines.
_RETURN = re.compile(r"^return\s*(?:=(?!=)\s*)?(?P<want>.+)$", re.IGNORECASE)
#: How many lines after its ``name = value`` lines a ``return value`` may come.
_RETURN_WITHIN = 4
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
    doc = docstring(fn)
    if not doc:
        return []
    doc = "\n".join("" if len(line) > MAX_EXAMPLE_LINE_CHARS else line
                     for line in doc.splitlines())
    params = _signature(fn)[0]
    found = [*_prompt_cases(doc, name), *_call_line_cases(doc, name, params),
             *_input_output_cases(doc, name, fn), *_for_cases(doc, name, fn),
             *_assignment_cases(doc, name, fn)]
    if not found:
        found = _renamed_cases(doc, name, fn)
    out: dict[str, TestCase] = {}
    for case in found:
        if case.name not in out or (case.has_expected and not out[case.name].has_expected):
            out[case.name] = case
    return list(out.values())


def docstring(fn: FunctionNode) -> str | None:
    """``fn``'s docstring, or the string standing first after its imports
    (``import math`` above the text, as HumanEval/115 writes it), cleaned."""
    for stmt in fn.body:
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            continue
        if (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
                and isinstance(stmt.value.value, str)):
            return inspect.cleandoc(stmt.value.value)
        return None
    return None


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


def _call_line_cases(doc: str, name: str, params: Sequence[str] = (),
                     label: str | None = None) -> Iterator[TestCase]:
    """``f(1, 2) == 3`` / ``f(1, 2) ➞ 3`` / ``... for f(1) returns 2``, without a prompt;
    ``f(abc) => True`` too where two lines or more write bare words so (none of
    ``params``). ``label``: the name the cases call (``name`` is the one written)."""
    start = re.compile(rf"(?<![\w.]){re.escape(name)}\(")
    words: list[TestCase] = []
    for line in doc.splitlines():
        s = _BULLET.sub("", line.strip())
        if s.startswith(">>>"):
            continue
        closes = _closing_brackets(s)
        for m in start.finditer(s):
            end = closes.get(m.end() - 1)
            if end is None:
                continue
            call_text, rest = s[m.start() : end + 1], s[end + 1 :]
            case = _arrow_case(call_text, rest, name, label)
            if case is not None:
                yield case
                continue
            word = _word_case(call_text, rest, name, params, label)
            if word is not None:
                words.append(word)
    if len(words) >= _WORD_LINES:
        yield from words


def _renamed_cases(doc: str, name: str, fn: FunctionNode) -> list[TestCase]:
    """Examples calling one other name, for a docstring that names no call of ``name``:
    the cases of the one name whose examples give expected values and fit ``fn``'s
    parameters; none when two names would."""
    params, required = _signature(fn)
    found: list[list[TestCase]] = []
    for other in _called_names(doc, name):
        cases = [c for c in _call_line_cases(doc, other, params, label=name)
                 if not c.kwargs and required <= len(c.args) <= len(params)]
        if any(c.has_expected for c in cases):
            found.append(cases)
    return found[0] if len(found) == 1 else []


def _called_names(doc: str, name: str) -> list[str]:
    """Names called in ``doc`` other than ``name`` and Python's builtins, the first few."""
    names: list[str] = []
    for m in _CALLED.finditer(doc):
        other = m.group(1)
        if other != name and other not in _BUILTINS and other not in names:
            names.append(other)
    return names[:_RENAMED_TRIED]


def _word_case(call_text: str, rest: str, name: str, params: Sequence[str],
               label: str | None) -> TestCase | None:
    """``is_happy(abc) => True``: bare words as strings, where the line gives a literal
    expected value and no word names a parameter (``f(x) => 0`` says what ``x`` gives)."""
    try:
        expr = pyast.parse(call_text, mode="eval").body
    except UNREADABLE:
        return None
    if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name)
            and expr.func.id == name and expr.args and not expr.keywords):
        return None
    words = [a.id for a in expr.args if isinstance(a, ast.Name)]
    if len(words) != len(expr.args) or any(not w.isalpha() or w in params for w in words):
        return None
    want = _wanted(rest)
    return None if want is None else _call_test(tuple(words), {}, label or name, want)


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


def _arrow_case(call_text: str, rest: str, name: str,
                label: str | None = None) -> TestCase | None:
    """The case of one call in prose (``call_text``) and what follows it (``rest``)."""
    try:
        expr = pyast.parse(call_text, mode="eval").body
    except UNREADABLE:
        return None
    call = _literal_call(expr, name)
    if call is None:
        return None
    return _call_test(call[0], call[1], label or name, _wanted(rest))


def _wanted(rest: str) -> str | None:
    """The expected value's text after a call: a literal after an arrow, or after the
    last ``=`` of a worked sum (``-> 19 - 5 - 6 = 8``) unless the arrow itself was ``=``
    (``tri(2) = 1 + 2 / 2 = 2`` states a term, not what the call gives)."""
    m = _ARROW.match(rest)
    if m is None:
        return None
    text = rest[m.end():]
    want = _expected_text(text)
    if want is None and m.group(1) != "=":
        worked = _SUM_RESULT.split(text)
        if len(worked) > 1:
            want = _expected_text(worked[-1])
    return want


def _expected_text(text: str) -> str | None:
    """The literal after an arrow (``=> [1, 2].``, ``returns 'ab' # because``,
    ``=> true``), or None when there is none."""
    candidates = [text]
    for aside in (" #", " ("):
        cuts = (k for k in range(len(text)) if text.startswith(aside, k))
        candidates += [text[:k] for k in itertools.islice(cuts, _COMMENT_CUTS)]
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
    """``Input: ...`` with its ``Output: ...`` on the same or one of the next lines; a
    bare ``Input:`` with one ``name : value`` line per parameter under it."""
    lines = [_BULLET.sub("", line.strip()) for line in doc.splitlines()]
    for i, line in enumerate(lines):
        m = _INPUT.match(line)
        if m is None:
            continue
        parts = _SAME_LINE_OUTPUT.split(m.group("args"), maxsplit=1)
        args, last = parts[0], i
        if not args.strip() and len(parts) == 1:
            args, last = _named_lines(lines, i + 1, fn)
        want = parts[1] if len(parts) == 2 else _output_after(lines, last)
        call = _call_of(args, name, fn)
        if call is not None:
            yield _call_test(call[0], call[1], name, _expected_text(want or ""))


def _named_lines(lines: Sequence[str], start: int, fn: FunctionNode) -> tuple[str, int]:
    """The arguments of the ``name : value`` lines from ``start`` (as ``name = value``
    pairs where each names a parameter, else positional when there are as many as the
    parameters) and the index of the last such line."""
    named: list[tuple[str, str]] = []
    k = start
    while k < len(lines) and len(named) <= len(fn.args.args):
        m = _NAMED_LINE.match(lines[k])
        if m is None or _OUTPUT.match(lines[k]):
            break
        named.append((m.group("name"), m.group("value")))
        k += 1
    params = _signature(fn)[0]
    if named and all(n in params for n, _ in named):
        return ", ".join(f"{n} = {v}" for n, v in named), k - 1
    if named and len(named) == len(params):
        return ", ".join(v for _, v in named), k - 1
    return "", start - 1


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
    """``For lst = [1, 2] the output should be 6``; words between the values and the
    verdict are left out (``For N = 150, the sum of digits will be 6 the output ...``)."""
    for line in doc.splitlines():
        m = _FOR.match(_BULLET.sub("", line.strip()))
        if m is None:
            continue
        call = _call_of(m.group("args"), name, fn)
        values = values_before_prose(m.group("args")) if call is None else None
        call = _call_of(values, name, fn) if values is not None else call
        if call is not None:
            yield _call_test(call[0], call[1], name, _expected_text(m.group("want")))


def _assignment_cases(doc: str, name: str, fn: FunctionNode) -> Iterator[TestCase]:
    """``arr = [2, 1]`` (a line per parameter), then within a few lines ``return [1, 2]``
    (or ``return = [1, 2]``): worked steps between them are left out."""
    params = _signature(fn)[0]
    lines = [_BULLET.sub("", line.strip()) for line in doc.splitlines()]
    i = 0
    while i < len(lines):
        named: dict[str, str] = {}
        j = i
        while j < len(lines) and (m := _NAMED_LINE.match(lines[j])) is not None:
            if m.group("name") not in params or m.group("name") in named \
                    or ":" in lines[j][:m.start("value")]:
                break
            named[m.group("name")] = m.group("value")
            j += 1
        want = _return_after(lines, j) if named else None
        if want is not None:
            call = _call_of(", ".join(f"{k} = {v}" for k, v in named.items()), name, fn)
            if call is not None:
                yield _call_test(call[0], call[1], name, _expected_text(want))
        i = max(j, i + 1)


def _return_after(lines: Sequence[str], j: int) -> str | None:
    """The value of the ``return`` line within a few lines from ``j``, unless a
    parameter's ``name = value`` line comes first."""
    for line in lines[j: j + _RETURN_WITHIN]:
        if _NAMED_LINE.match(line) and not line.lower().startswith("return"):
            return None
        m = _RETURN.match(line)
        if m is not None:
            return m.group("want")
    return None


__all__ = ["call_label", "doctest_cases", "doctest_examples", "inner_call_arguments",
           "is_literal_call"]
