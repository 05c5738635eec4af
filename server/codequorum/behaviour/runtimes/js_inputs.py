"""Inputs of JavaScript and TypeScript functions, read without running anything.

In order: the set's tests; examples in the comment above the function (JSDoc ``@example``
blocks and ``// >>> f(x)`` lines, each a call with literal arguments, possibly kept in a
declaration or printed: ``const result = f(2)``, ``console.log(f(2))``; and, on the same
line after ``//``, ``=>`` or ``===``, or on the next comment line (``//=> 120``), the
expected value; the prose a Python docstring writes, as MultiPL-E's prompts keep it:
``f(x) ==> y``, ``➞``, ``=``, ``# returns``, a call inside a sentence, ``True``, ``None``
and tuples, a worked sum's result (``-> 19 - 5 - 6 = 8``), bare words as strings where two
lines write them (``is_happy(abc) => True``), calls written for an earlier name where none
names the function, and ``js_prose.py``'s ``Input:``/``Output:``, ``For x = ...`` and
``x = ...`` then ``return ...`` lines), kept
with their values only when they come from the prompt or the current code (graded when
no test grades the set, else checked beside the tests); examples that call the function
inside code of their own (``[...chunks(xs, 2)]``, ``add(5)(10)``, a callback, a name of the
module, a constant an earlier line declares, ``const result = f(...)`` then
``console.log(result); // [1]``), run whole where the version's names are
(``js_example_code.py``) and graded alike; expected values after ``// Returns:`` and
``// result will be`` too; a
method's examples that build its instance (``const s = new Stack()``, ``s.push(1);``,
``s.peek() // => 1``: ``js_instances.py``), the calls before it replayed in the sandbox,
of its class in its module (the comment above the class for a method without examples
of its own) or, run alone, of a class every version defines; the literal calls of the
function in its module and the workspace's tests and callers
(``js_callers.py``, never graded); values drawn from TypeScript parameter types, or
JavaScript's JSDoc ones (``js_doc_types.py``)
(``number``, ``string``, ``boolean``, literals, arrays, tuples, objects, records, maps,
sets, callbacks, ``Date`` and unions of them, ``null`` and ``undefined`` once each,
``any``, the aliases, interfaces and enums the file declares, a type parameter's bound;
optional, defaulted and rest parameters left out, then a draw of equal values, two with
arrays', strings' and maps' first half repeated and two that give the optional
parameters values) or from the types an example's values show, beside the examples
(versions that agree on them may part elsewhere; the types the examples show only when the
function runs alone), a method's on the fullest instance an example builds, else again
on instances its class's fillers filled (``js_fill.py``); the model's
proposed inputs
where nothing else exists; last, values of the types the parameters' use in the body
suggests (``js_usage.py``: string and array methods, records, maps and sets, what a string
searches for, the elements' own use; from the first version that shows a parameter's use);
wherever values are drawn, strings of the patterns a version tests a parameter against
(``js_patterns.py``) and the literals it compares one with (``js_compared.py``).
Literals are read with tree-sitter
into the canonical form (``js_values.py``); a call that is not all literals is skipped.
Last of all, the scaling series of the growth: arrays and strings (else a number) of each
size, by the same types.
"""

from __future__ import annotations

import builtins
import contextlib
import itertools
import json
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from tree_sitter import Node

from codequorum.behaviour.callers import left_out_note
from codequorum.behaviour.input_plan import (
    DEFAULT_SIZES,
    InputCase,
    InputPlan,
    Proposer,
    found_input,
)
from codequorum.behaviour.pattern_strings import pattern_strings
from codequorum.behaviour.runtimes import js_example_code, js_fill, js_instances, js_values
from codequorum.behaviour.runtimes.js_callers import JsCall, grammar, literal_calls
from codequorum.behaviour.runtimes.js_compared import compared_literals, split_separators
from codequorum.behaviour.runtimes.js_literals import (
    NotLiteral,
    call_arguments,
    from_python,
    literal,
    literal_text,
    node_text,
    parse_expression,
)
from codequorum.behaviour.runtimes.js_patterns import searched_patterns
from codequorum.behaviour.runtimes.js_prose import prose_examples
from codequorum.behaviour.runtimes.js_tests import set_tests
from codequorum.behaviour.runtimes.js_usage import (
    functions_in,
    guessed_across,
    helpers_in,
    named_function,
    parameter_nodes,
    params_of,
)
from codequorum.behaviour.runtimes.ts_draws import (
    draw_count,
    repeated,
    repeats,
    type_values,
    union_members,
    value_type,
)
from codequorum.behaviour.runtimes.ts_parameters import (
    module_types,
    optional_types,
    typed_parameters,
)
from codequorum.behaviour.runtimes.ts_types import (
    unwrapped,
)
from codequorum.behaviour.separated_strings import separated_strings
from codequorum.core.limits import MAX_EXAMPLE_LINE_CHARS
from codequorum.core.model import ModuleContext, Receiver, TestCase, VersionSet
from codequorum.core.quoted import outside_quotes

MAX_EXAMPLES = 32
#: How many comment lines one expected value may take (a list written over several).
VALUE_LINES = 20
#: How many calls inside one sentence are tried as an example (each is read to the line's end).
SENTENCE_CALLS = 4
_EXPECT_SPLIT = re.compile(r"\s*(?://\s*(?:=>|->|returns?:?|→)?|#?\s*(?:===|==>|==|=>|➞|->|→"
                           r"|=(?![=>])|\bshould\s+return\b|\breturns?\b:?))\s*")
#: String literals, and Python's words as prose copied from a Python docstring writes them
#: (``f(5) ➞ True``, ``(None, 1)``) outside them.
_PYTHON_WORDS = re.compile(r"\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'|\b(True|False|None)\b")
_JS_WORDS = {"True": "true", "False": "false", "None": "undefined"}
#: What an expected value's text never is: code (the function's own line after the last
#: example, read as a function expression).
_NOT_VALUES = {"call_expression", "function_expression", "arrow_function", "class",
               "function", "generator_function"}
_COMMENT_PREFIX = re.compile(r"^\s*(?:/\*\*?|\*/|\*|//)?\s?")
#: The end of a one-line comment (``/** @example f(1) // => 2 */``).
_COMMENT_END = re.compile(r"\s*\*/\s*$")


#: What stands before an example's call and is not part of it: a declaration that keeps
#: its value (``const result = f(2)``, date-fns' examples) or a print of it.
_BINDING = re.compile(r"^(?:(?:const|let|var)\s+[A-Za-z_$][\w$]*\s*=\s*)")
_PRINTED = re.compile(r"^console\.(?:log|info)\((.*)\)$")
#: An example of an async function awaits it (``await f(1) // => 2``); the run does too.
_AWAITED = re.compile(r"^\s*await\s+")
#: A REPL's prompt before an example's call: ``>>> f(1)``, ``> f(1)`` (Node's REPL).
_REPL = re.compile(r"^(?:>>>|>)\s*")
#: ``= 8`` ending a worked sum after an arrow (not ``==``, ``<=``, ``=>``).
_SUM_RESULT = re.compile(r"(?<![=!<>])=(?![=>])")
#: A call of bare words, ``is_happy(abc)``: prose copied from a docstring that meant strings.
_WORD_CALL = re.compile(r"^(?P<name>[A-Za-z_$][\w$]*)\((?P<words>[A-Za-z]+(?:\s*,\s*[A-Za-z]+)*)\)")
#: Words that are JavaScript's values, never a string a docstring left unquoted.
_JS_VALUE_WORDS = frozenset({"true", "false", "null", "undefined", "NaN", "Infinity"})
#: Lines of bare-word calls with expected values it takes to read them as strings.
WORD_LINES = 2
#: How many comment lines are read for examples of another name (a comment written for
#: an earlier name is the function's own, short).
RENAMED_LINES = 64
#: A name called in a line: ``grade_equation(`` (not a method, ``x.f(``).
_CALLED = re.compile(r"(?<![\w.$])([A-Za-z_$][\w$]*)\(")
#: Names prose calls that are never the function under another name: JavaScript's
#: globals and Python's builtins (examples copied from a docstring).
_NOT_RENAMED = frozenset({*dir(builtins), "parseInt", "parseFloat", "Number", "String",
                          "Boolean", "Array", "Object", "isNaN", "isFinite", "require",
                          "Symbol", "BigInt", "Date", "RegExp", "Map", "Set", "Promise",
                          "assert", "expect", "console", "function"})
#: A list's mark before an example (``* sort_array([5]) => [5]``, ``- f(1)``, ``1. f(1)``).
_BULLET = re.compile(r"^(?:[*\u2022-]|\d+[.)])\s+")


#: TypeScript's type arguments of a class an example makes (``new Bag<number>()``), left
#: out so the line reads as JavaScript.
_TYPE_ARGUMENTS = re.compile(r"(\bnew\s+[A-Za-z_$][\w$]*)\s*<[\w$\s,.\[\]|<>]*>(?=\s*\()")


def _example_expression(text: str, getter: str = "") -> Node | None:
    """The call an example line makes: after a declaration's ``=``, inside a
    ``console.log(...)``, or the line itself; a read of the property ``getter``
    (``new Rect(2, 3).area``, ``r.area``) is a call of that getter."""
    text = _BINDING.sub("", text.strip().rstrip(";"), count=1).rstrip(";")
    text = _TYPE_ARGUMENTS.sub(r"\1", text)
    printed = _PRINTED.match(text)
    node = parse_expression(_AWAITED.sub("", printed.group(1) if printed else text, count=1))
    if node is not None and node.type == "member_expression":
        read = node.child_by_field_name("property")
        return node if getter and read is not None and node_text(read) == getter else None
    return node if node is not None and node.type == "call_expression" else None


def _callee(call: Node) -> Node | None:
    """What an example calls: a call's function, or a getter's property read itself."""
    return call if call.type == "member_expression" else call.child_by_field_name("function")


#: What stands before the value a line after an example shows: ``//=>``, ``// Returns:``,
#: ``// result will be``, ``// Output:``.
_EXPECTED_MARK = re.compile(
    r"^\s*(?://)?\s*(?:=>|->|→|(?:the\s+)?[A-Za-z_$][\w$]*\s+(?:will\s+be|is)\s*:?|"
    r"(?i:returns?|output|(?:the\s+)?result)\s*:?)?")
#: A line comment's mark inside a block comment (a value written over ``//`` lines).
_LINE_COMMENT = re.compile(r"^\s*//")
#: A line that is only such a mark: the value follows on the lines after it.
_BARE_MARK = re.compile(r"^\s*//\s*(?:(?i:returns?|output|result)|[A-Za-z_$][\w$]*\s+will\s+be)"
                        r"\s*:\s*$")


def expected_line(line: str) -> str:
    """The value a line after an example shows: ``//=> 120``, ``// => [1]``, ``120``,
    ``// Returns: [1]``, ``// result will be { a: 3 }``."""
    return _EXPECTED_MARK.sub("", line, count=1).strip().rstrip(";")


def _value_text(text: str) -> str:
    """An expected value's text as JavaScript reads it: a sentence's last stop left out,
    Python's spelling made JavaScript's (:func:`_as_javascript`)."""
    text = text.strip().rstrip(";,").strip()
    if text.endswith(".") and not re.search(r"\d\.$", text):
        text = text[:-1].rstrip()
    return _as_javascript(text)


def _as_javascript(text: str) -> str:
    """Prose copied from a Python docstring as JavaScript writes it: ``True``, ``False``,
    ``None`` as ``true``, ``false``, ``undefined`` (MultiPL-E's tests' ``None``) and tuples
    (``(1, 2)``, ``[(2, 2)]``) as arrays: a parenthesis that no name or call stands before
    and that holds a comma at its own level. String literals are left alone; one pass."""
    text = _PYTHON_WORDS.sub(lambda m: _JS_WORDS[m.group(1)] if m.group(1) else m.group(0), text)
    out = list(text)
    opened: list[int | None] = []  # per open bracket: where a tuple may start, else None
    tuples: set[int] = set()
    last = ""
    for i, ch in outside_quotes(text):
        if ch in "([{":
            called = bool(last) and (last.isalnum() or last in "_$)]")
            opened.append(i if ch == "(" and not called else None)
        elif ch == "," and opened and opened[-1] is not None:
            tuples.add(opened[-1])
        elif ch in ")]}" and opened:
            start = opened.pop()
            if ch == ")" and start in tuples:
                out[start], out[i] = "[", "]"
        last = last if ch.isspace() else ch
    return "".join(out)


def _call_and_expected(line: str, getter: str = "") -> list[str]:
    """An example line split where its call ends and its expected value starts: at the
    first ``// =>``, ``=>``, ``===`` ... after which what stands before is a call (an
    arrow inside the call, ``f(x => x + 1) // => 2``, is part of it)."""
    for m in _EXPECT_SPLIT.finditer(line):
        if _example_expression(line[:m.start()], getter) is not None:
            return [line[:m.start()], line[m.end():]]
    return [line]


def _read_call(line: str, getter: str = ""
               ) -> tuple[str, tuple[Any, ...] | None, Any, bool] | None:
    """An example line's call: (what it calls, its literal arguments or None when they
    are not all literals, the expected value, whether there is one); None for no call. A
    read of the property ``getter`` is a call of no argument."""
    parts = _call_and_expected(line.strip().rstrip(";"), getter)
    call = _example_expression(parts[0], getter)
    if call is None:
        return None
    fn = _callee(call)
    name = node_text(fn) if fn is not None else ""
    args = _arguments(call)
    if args is None:  # Python's tuples and words, as prose copied from a docstring has them
        args = _arguments(_example_expression(_as_javascript(parts[0]), getter))
    if args is None:
        return name, None, None, False
    rest = parts[1] if len(parts) > 1 else ""
    stripped = line.strip().rstrip(";")
    arrow = stripped[len(parts[0]):len(stripped) - len(rest)].strip()
    for want in _wanted_texts(rest, summed=arrow != "="):
        value = literal_text(_value_text(want))
        if value is not None:
            return name, args, value[0], True
    return name, args, None, False


def _wanted_texts(rest: str, summed: bool) -> list[str]:
    """What an example's expected value may be, the text after its arrow first: without a
    trailing ``# because`` or ``(an aside)``, and after the last ``=`` of a worked sum
    (``-> 19 - 5 - 6 = 8``) unless the arrow itself was ``=`` (``tri(2) = 1 + 1 = 2`` states
    a term, not what the call gives)."""
    if not rest.strip():
        return []
    texts = [rest, rest.split(" #")[0], rest.split(" (")[0]]
    worked = _SUM_RESULT.split(rest)
    return [*texts, worked[-1]] if summed and len(worked) > 1 else texts


def _arguments(call: Node | None) -> tuple[Any, ...] | None:
    """A call's literal arguments, None when one is not a literal."""
    try:
        return call_arguments(call) if call is not None else None
    except NotLiteral:
        return None


def _made_receiver(line: str, getter: str = "") -> Receiver | None:
    """``new Box(2).volume()``: the instance the example line's call is made on, the class
    named and its literal arguments, and the calls of a chain before the last one
    (``new Bag().add(1).add(2).distinct()``, each made on what the one before returned);
    None for a call on anything else, or a chain with a call whose arguments are not all
    literals or of more than ``js_instances.MAX_STEPS`` calls."""
    parts = _call_and_expected(line.strip().rstrip(";"), getter)
    call = _example_expression(parts[0], getter)
    fn = _callee(call) if call is not None else None
    obj = _unparenthesized(fn.child_by_field_name("object")) if fn is not None and \
        fn.type == "member_expression" else None
    steps: list[tuple[str, tuple[Any, ...]]] = []
    while obj is not None and obj.type == "call_expression":
        member = obj.child_by_field_name("function")
        if member is None or member.type != "member_expression":
            return None
        name = member.child_by_field_name("property")
        args = _arguments(obj)
        if name is None or name.type != "property_identifier" or args is None or \
                len(steps) >= js_instances.MAX_STEPS:
            return None
        steps.insert(0, (node_text(name), args))
        obj = _unparenthesized(member.child_by_field_name("object"))
    ctor = obj.child_by_field_name("constructor") if obj is not None and \
        obj.type == "new_expression" else None
    if obj is None or ctor is None or ctor.type != "identifier":
        return None
    try:
        args = call_arguments(obj) if obj.child_by_field_name("arguments") is not None else ()
    except NotLiteral:
        return None
    return Receiver(node_text(ctor), args, steps=tuple(steps), chained=bool(steps))


def _unparenthesized(node: Node | None) -> Node | None:
    """``node`` without the parentheses around it."""
    while node is not None and node.type == "parenthesized_expression" and node.named_children:
        node = node.named_children[0]
    return node


def example_call(line: str, entry: str) -> tuple[tuple[Any, ...], Any, bool] | None:
    """``f(1, 2) // => 3`` -> ((1, 2), 3, True); ``f(1)`` alone -> ((1,), None, False);
    ``const r = f(1)`` and ``console.log(f(1))`` call ``f(1)``."""
    got = _read_call(line, entry.split(".")[-1])
    if got is None or got[1] is None or got[0].split(".")[-1] != entry.split(".")[-1]:
        return None
    return got[1], got[2], got[3]


def comment_lines(text: str) -> list[str]:
    """The lines of ``text`` (a version, the prompt, the comment above the function), their
    comment marks taken off: a line that is a call with literal arguments is an example
    wherever it stands (a call in code has variables or a keyword before it)."""
    return ["" if len(line) > MAX_EXAMPLE_LINE_CHARS else
            _COMMENT_END.sub("", _COMMENT_PREFIX.sub("", line, count=1))
            for line in text.splitlines()]


#: An example call: its arguments, expected value and whether it has one.
Call = tuple[tuple[Any, ...], Any, bool]


@dataclass(frozen=True)
class InstanceExample:
    """An example's call of a method on the instance the example builds (``js_instances``):
    what it runs on, its label, its call."""

    receiver: Receiver
    label: str
    call: Call


def examples(text: str, entry: str) -> list[Call]:
    """Every example call of ``entry`` in the comments of ``text``: ``@example`` lines,
    ``>>>`` lines (the expected value on the same line or the next one); a call on an
    instance the example builds is :func:`instance_examples`'."""
    return _scan(text, entry, None)[0]


def instance_examples(text: str, entry: str, owner: str | None = None
                      ) -> list[InstanceExample]:
    """The calls on an instance an example of ``text``'s comments builds (``const s = new
    Stack()``, ``s.push(1);``, ``s.peek() // => 1``) that call the method ``entry`` or
    follow a call of it; only of the class ``owner`` when given."""
    return _scan(text, entry, owner)[1]


def _example_line(line: str) -> str:
    body = _REPL.sub("", _BULLET.sub("", line.strip(), count=1), count=1)
    return body.removeprefix("@example").strip() if body.startswith("@example") else body


def _scan(text: str, entry: str, owner: str | None
          ) -> tuple[list[Call], list[InstanceExample]]:
    """:func:`examples` and :func:`instance_examples` of ``text``, in reading order."""
    lines = comment_lines(text)
    found: list[Call] = []
    made: list[InstanceExample] = []
    bound: dict[str, js_instances.Instance] = {}
    short = entry.split(".")[-1]
    params = _parameter_names(text, short)
    commented = [raw.lstrip().startswith(("//", "*", "/*")) for raw in text.splitlines()]
    words: list[Call] = []
    others: dict[str, list[Call]] = {}  # prose only: never a line of code
    tried_others = 0
    for i, line in enumerate(lines):
        if len(found) + len(made) >= MAX_EXAMPLES:
            break
        body = _example_line(line)
        new = js_instances.binding(body)
        if new is not None:
            bound[new[0]] = new[1]
            if new[1].cls:
                continue
        got = _read_call(body, short)
        var = got[0].partition(".")[0] if got is not None else ""
        var = var if var in bound else js_instances.statement_on(body) or ""
        if var in bound:
            if js_instances.statements(body) > 1:
                got = None  # a line of two calls: its first alone is not what it does
            example = _on_instance(bound[var], var, got, short, owner)
            if example is not None:
                made.append(replace(example, call=_with_next(example.call, lines, i)))
            continue
        if got is None:  # a call inside a sentence: ``for x_or_y(7, 34, 12) == 34``
            got = _call_in_sentence(body, short)
        prose = i < len(commented) and commented[i]
        if prose and got is not None and got[1] is None and got[0] == short:
            word = _word_call(body, short, params or ())
            if word is not None:
                words.append(word)
            continue
        if prose and not found and tried_others < RENAMED_LINES \
                and (got is None or got[0].split(".")[-1] != short):
            tried_others += 1
            _other_call(body, got, others)
        if got is None or got[1] is None:
            continue
        made_on = _made_receiver(body, short) if got[0].startswith("new") else None
        if made_on is not None:  # new Box(2).volume(): on an instance made with those
            example = _on_made(made_on, got, short, owner)
            if example is not None:
                made.append(replace(example, call=_with_next(example.call, lines, i)))
            continue
        if got[0].split(".")[-1] != short:
            continue
        found.append(_with_next((got[1], got[2], got[3]), lines, i))
    if len(words) >= WORD_LINES:
        found += words
    if params is not None:  # Input: / Output:, For x = ... the output should be ...
        found += prose_examples(lines, params, _value_text)
    if not found and not made and params is not None:
        found = _renamed(others, len(params))
    return found[:MAX_EXAMPLES], made


def _word_call(body: str, short: str, params: Sequence[str]) -> Call | None:
    """``is_happy(abc) => True``: the bare words as strings, where the line gives an
    expected value and no word names a parameter or a JavaScript value."""
    m = _WORD_CALL.match(body)
    if m is None or m.group("name") != short:
        return None
    names = [w.strip() for w in m.group("words").split(",")]
    if any(w in params or w in _JS_VALUE_WORDS for w in names):
        return None
    quoted = f"{short}({', '.join(json.dumps(w) for w in names)})" + body[m.end():]
    got = _read_call(quoted, short)
    return None if got is None or got[1] is None or not got[3] else (got[1], got[2], True)


def _other_call(body: str, got: tuple[str, tuple[Any, ...] | None, Any, bool] | None,
                others: dict[str, list[Call]]) -> None:
    """A line's example of another plain name (``grade_equation([4.0]) ==> ['A+']``, also
    inside a sentence: ``assert list_sort(["a"]) => ["a"]``), kept by that name."""
    if got is None:
        starts = (m.start() for m in _CALLED.finditer(body))
        tried = (_read_call(body[k:]) for k in itertools.islice(starts, SENTENCE_CALLS))
        got = next((g for g in tried if g is not None and g[1] is not None and g[3]), None)
    if got is not None and got[1] is not None and got[3] and "." not in got[0] \
            and got[0] not in _NOT_RENAMED:
        others.setdefault(got[0], []).append((got[1], got[2], True))


def _renamed(others: dict[str, list[Call]], arity: int) -> list[Call]:
    """The examples of the one other name whose calls fit the function's ``arity`` (a
    comment written for an earlier name); none when no name or two would."""
    fitting = [calls for calls in others.values() if all(len(c[0]) == arity for c in calls)]
    return fitting[0] if len(fitting) == 1 else []


def _call_in_sentence(line: str, short: str
                      ) -> tuple[str, tuple[Any, ...] | None, Any, bool] | None:
    """The first call of ``short`` with literal arguments inside a sentence, read from where
    it starts (what follows it may give its value)."""
    starts = (m.start() for m in re.finditer(rf"(?<![\w.$]){re.escape(short)}\(", line))
    for start in itertools.islice((k for k in starts if k), SENTENCE_CALLS):
        got = _read_call(line[start:])
        if got is not None and got[1] is not None:
            return got
    return None


def _parameter_names(text: str, short: str) -> list[str] | None:
    """The plain parameter names of the function ``short`` that ``text`` defines."""
    for fn in functions_in(text):
        if fn.name.split(".")[-1] == short:
            params = params_of(fn.text)
            if params is None:
                return None
            names = [node_text(p.child_by_field_name("pattern") or p)
                     for p in parameter_nodes(params)]
            return names if all(re.fullmatch(r"[A-Za-z_$][\w$]*", n) for n in names) else None
    return None


def _on_made(receiver: Receiver, got: tuple[str, tuple[Any, ...] | None, Any, bool],
             entry: str, owner: str | None) -> InstanceExample | None:
    """An example line's call on an instance it makes (``new Box(2).volume()``), through a
    chain (``new Bag().add(1).distinct()``): an example when the last call is ``entry`` or
    one of the chain's is (the last call then shows what it did)."""
    method = got[0].split(".")[-1]
    shows = method == entry or any(m == entry for m, _ in receiver.steps)
    if not shows or got[1] is None or owner not in (None, receiver.name):
        return None
    on = replace(receiver, method=None if method == entry else method)
    label = js_instances.receiver_label(receiver, "", method, got[1])
    return InstanceExample(on, label, (got[1], got[2], got[3]))


def _on_instance(instance: js_instances.Instance, var: str,
                 got: tuple[str, tuple[Any, ...] | None, Any, bool] | None, entry: str,
                 owner: str | None) -> InstanceExample | None:
    """A statement on a bound instance: an example when it calls ``entry`` or follows a
    call of it (and the instance is usable); then one more call replayed on the instance."""
    method = got[0].removeprefix(var + ".") if got is not None else ""
    if got is None or not re.fullmatch(r"[A-Za-z_$][\w$]*", method):
        instance.spoiled = True
        return None
    args = got[1]
    shows = method == entry or any(m == entry for m, _ in instance.steps)
    example = None
    if shows and args is not None and not instance.spoiled and owner in (None, instance.cls):
        example = InstanceExample(instance.receiver(None if method == entry else method),
                                  instance.label(var, method, args), (args, got[2], got[3]))
    instance.add(method, args)
    return example


def _with_next(got: Call, lines: Sequence[str], i: int) -> Call:
    """``got``, its expected value read from the next line when its own has none (a list
    or an object left open there goes on over the lines that close it), or from the line
    after a line of a mark alone (``// result will be:``, then ``// { a: 1 }``)."""
    if not got[2] and i + 2 < len(lines) and _BARE_MARK.match(lines[i + 1]):
        i += 1
    if not got[2] and i + 1 < len(lines) and expected_line(lines[i + 1]):
        following = parse_expression("(" + _value_text(_value_lines(lines, i + 1)) + ")")
        if following is not None and following.type not in _NOT_VALUES and not (
                following.type == "parenthesized_expression" and following.named_children
                and following.named_children[0].type in _NOT_VALUES):
            with contextlib.suppress(NotLiteral):
                return got[0], literal(following), True
    return got


def _value_lines(lines: Sequence[str], start: int) -> str:
    """The value that starts at ``lines[start]``: that line, and while it leaves a bracket
    open, the next ones (at most :data:`VALUE_LINES`; a value never closed is that line)."""
    text = expected_line(lines[start])
    depth = _open_brackets(text)
    for line in lines[start + 1:start + VALUE_LINES]:
        if depth <= 0:
            break
        line = _LINE_COMMENT.sub("", line, count=1)  # ``// [`` then ``//   1,`` ...
        text += " " + line.strip()
        depth += _open_brackets(line)
    return text if depth == 0 else expected_line(lines[start])


def _open_brackets(text: str) -> int:
    """How many brackets ``text`` opens and leaves open (string literals left out)."""
    return sum((ch in "([{") - (ch in ")]}") for _i, ch in outside_quotes(text))


def shown_types(plan: InputPlan) -> list[str] | None:
    """The types the first input's values show (an example's ``f("a", [1])``: string,
    number[]); None when there is no input or a value shows none."""
    first = next((c.test for c in plan.cases if c.test.kind == "call"), None)
    if first is None:
        return None
    types = [value_type(a) for a in first.args]
    return None if None in types else [t for t in types if t]


# ---------------------------------------------------------------------------- plan
def collect_js_inputs(
    version_set: VersionSet, *, proposer: Proposer | None = None, use_doctests: bool = True,
    use_hypothesis: bool = True, hypothesis_examples: int = 6, scaling: bool = True,
    sizes: Sequence[int] = DEFAULT_SIZES, **_ignored: Any,
) -> InputPlan:
    """Every input of a JavaScript or TypeScript set, in run order (module docstring)."""
    given = set_tests(version_set)
    entry = given.entry
    plan = InputPlan(entry_point=entry, notes=list(given.notes))
    tested: set[str] = set()
    for i, t in enumerate(given.tests):
        label = _label(entry or "f", t.args) if t.kind == "call" else f"test {i + 1}"
        _add(plan, replace(t, name=label), "humaneval" if given.hidden else "tests",
             t.has_expected, label, tested)
    if not entry:
        plan.notes.append("no version defines a function: only the given tests are used")
        return plan
    # the inputs an editor has, apart from the tests (as Python's are): an example the
    # tests repeat is still an example the versions are judged by
    known: set[str] = set()
    graded_texts = [version_set.prompt or ""] + [s.code for s in version_set.versions
                                                if s.origin == "current"]
    if use_doctests:
        module = version_set.module
        owner = module.owner.rpartition(".")[2] if module and module.owner else None
        classes = None if module is not None else _classes(version_set.codes)
        # code examples of a function (a method's build its instance: js_instances.py)
        named = _names_given(version_set) if owner is None and "." not in entry else None
        library = tuple((name, js_example_code.library_specifier(module.path, file))
                        for name, file in module.library) if module is not None else ()
        for text, graded in [*((t, True) for t in graded_texts if t),
                             *((c, False) for c in version_set.codes)]:
            _add_examples(plan, text, entry, graded, not given.tests, known, owner, classes)
            if named is not None:
                _add_code_examples(plan, text, entry, version_set.language, named, graded,
                                   not given.tests, known, library)
        if module is not None and not plan.indices("doctest"):
            _add_class_examples(plan, module, entry, not given.tests, known)
    if version_set.module is not None:
        _add_callers(plan, version_set.module, entry, known, not given.tests)
    typing = _typing_texts(version_set, graded_texts)
    # a method in its module is named alone (``peekOr``); its class is the module's owner
    owned = version_set.module.owner if version_set.module is not None else None
    qualified = f"{owned}.{entry}" if owned and "." not in entry else entry
    # the types its file and the files it imports declare (an enum, an alias)
    declared = module_types(version_set.module) if version_set.module is not None else {}
    found = typed_parameters(typing, qualified, declared)
    typed, aliases = found if found is not None else (None, declared)
    shown = shown_types(plan)
    draw = typed if typed is not None else shown
    called = any(c.origin in ("test", "caller") for c in plan.cases)
    drawing = typed is not None or not called or version_set.module is None
    if use_hypothesis and draw is not None and drawing:
        # beside the examples too, where versions part that they agree on: of the types
        # declared (as Python's annotations draw beside its doctests), or of the types the
        # examples show, unless the workspace's tests and callers call it (its calls are
        # then the truth)
        _add_typed(plan, draw, entry, hypothesis_examples, known, aliases)
        if hypothesis_examples > 0:
            optional = optional_types(typing, entry, typed) \
                if typed is not None else []
            _add_variants(plan, draw, optional, entry, known, aliases)
    if proposer is not None and not plan.cases:
        _add_proposed(plan, proposer, version_set.codes[0] if version_set.codes else "", entry,
                      known)
    if use_hypothesis and not plan.cases:
        _add_guessed(plan, version_set, entry, hypothesis_examples, known)
    if use_hypothesis and hypothesis_examples > 0 and drawing:
        _add_tested_values(plan, version_set, entry, typed or shown, aliases, known)
    if not plan.cases:
        plan.notes.append("no examples, parameter types or proposed inputs: nothing to run")
    elif scaling:
        types = ([unwrapped(aliases.get(unwrapped(t), t)) for t in typed] if typed else
                 shown or guessed_across(version_set.codes, entry))
        _add_scaling(plan, types or [], entry, sizes)
    if entry.rpartition(".")[2] == "constructor":  # ``new Range(3, 1)``, on no instance
        return _as_constructions(plan, qualified.rpartition(".")[0].rpartition(".")[2])
    _on_example_instance(plan, entry)
    if use_hypothesis:
        _add_filled(plan, typing, qualified, aliases)
        _add_repeated(plan, typing, qualified)
    if _getter(version_set.codes, entry):
        return _as_reads(plan, entry.rpartition(".")[2])
    return plan


_GETTER = re.compile(r"(?:static\s+)?get\s")


def _getter(texts: Sequence[str], entry: str) -> bool:
    """Whether every version that defines ``entry`` defines it as a getter (``get area()``)."""
    found = [f for f in (named_function(t, entry) for t in texts) if f is not None]
    return bool(found) and all(_GETTER.match(fn.text) for fn, _params in found)


def _as_reads(plan: InputPlan, name: str) -> InputPlan:
    """A getter's inputs named as what they do: ``r.area() after new Rect(2, 3)`` is
    ``r.area after new Rect(2, 3)`` (the harness reads a getter as a call of no argument)."""
    call = re.compile(rf"(?<![\w$]){re.escape(name)}\(\)")
    for k, case in enumerate(plan.cases):
        label = call.sub(name, case.label, count=1)
        if label != case.label:
            name_of = call.sub(name, case.test.name, count=1)
            plan.cases[k] = replace(case, label=label, test=replace(case.test, name=name_of))
    return plan


def _as_constructions(plan: InputPlan, cls: str) -> InputPlan:
    """A constructor's inputs named as what they do: ``constructor(3, 1)`` is
    ``new Range(3, 1)`` (the harness calls a class's ``constructor`` with ``new``)."""
    if not cls:
        return plan
    for k, case in enumerate(plan.cases):
        if case.label.startswith("constructor("):
            label = f"new {cls}{case.label.removeprefix('constructor')}"
            plan.cases[k] = replace(case, label=label, test=replace(case.test, name=label))
    return plan


def _typing_texts(version_set: VersionSet, graded_texts: Sequence[str]) -> list[str]:
    """The texts a function's parameter types are read from, first first: the prompt and
    the current code, the versions, the function's own file (where the JSDoc above it
    is), and a prompt of a comment alone joined to the first version (the JSDoc it
    holds is that function's)."""
    module = version_set.module
    own = [t for p, t in module.files if p == module.path] if module is not None else []
    prompt, codes = version_set.prompt or "", version_set.codes
    joined = [prompt.rstrip() + "\n" + codes[0]] if "@param" in prompt and codes else []
    return [*graded_texts, *codes, *own, *joined]


def scaled_value(type_text: str, n: int) -> Any:
    """A value of ``type_text`` of size ``n`` (the same on every call); NotLiteral when
    the type does not scale (``number`` is ``n`` itself)."""
    rng = random.Random(n)
    t = type_text.strip()
    if t == "number":
        return n
    if t == "string":
        return "".join(rng.choice("abcdefghij") for _ in range(n))
    inner = t[:-2] if t.endswith("[]") else (t[6:-1] if t.startswith("Array<") else None)
    if inner == "number":
        return [rng.randint(-1000, 1000) for _ in range(n)]
    if inner == "string":
        return [f"s{rng.randint(0, n)}" for _ in range(n)]
    raise NotLiteral(t)


def scaling_args(types: Sequence[str], base: Sequence[Any] | None,
                 sizes: Sequence[int]) -> list[tuple[int, tuple[Any, ...]]]:
    """``(size, args)`` of the scaling series: sequences and strings scaled together, a
    ``number`` only when there is neither; the rest ``base``'s (an example's) values or a
    drawn value of their type; empty when nothing scales."""
    seqs = [i for i, t in enumerate(types) if t.strip() != "number" and _scales(t)]
    scaled = seqs or [i for i, t in enumerate(types) if t.strip() == "number"]
    if not scaled:
        return []
    out: list[tuple[int, tuple[Any, ...]]] = []
    for n in sizes:
        args: list[Any] = []
        for i, t in enumerate(types):
            try:
                args.append(scaled_value(t, n) if i in scaled else base[i]
                            if base is not None and i < len(base) else type_values(t, 0))
            except NotLiteral:
                return []
        out.append((n, tuple(args)))
    return out


def _scales(type_text: str) -> bool:
    try:
        scaled_value(type_text, 1)
    except NotLiteral:
        return False
    return True


#: The inputs of a method that run on the instance its first example builds.
MOVED_SOURCES = ("hypothesis", "proposed", "scaling")


def _on_example_instance(plan: InputPlan, entry: str) -> None:
    """A method's drawn, proposed and scaling inputs run on an instance an example builds,
    its setup replayed, not on a bare one: of the examples' instances the one with the most
    setup calls (the first of those), so ``s.has(7)`` asks a stack that holds something:
    ``s.has(7) after new Stack(), s.push(1)``."""
    built = [c for c in plan.cases if c.source == "doctest" and c.test.receiver is not None]
    first = max(built, key=lambda c: len(c.test.receiver.steps) if c.test.receiver else 0,
                default=None)
    if first is None or first.test.receiver is None:
        return
    receiver = replace(first.test.receiver, method=None)
    # an instance the example makes inline (``new Rect(2, 3).area()``) has no name
    var = "" if first.label.startswith("new ") else first.label.partition(".")[0]
    short = entry.split(".")[-1]
    labels = {c.label for c in plan.cases}
    moved: list[InputCase] = []
    for case in plan.cases:
        if case.test.receiver is not None or case.source not in MOVED_SOURCES:
            moved.append(case)
            continue
        label = js_instances.receiver_label(receiver, var, short, case.test.args)
        if label in labels:
            continue  # the example's own call, drawn again
        test = replace(case.test, receiver=receiver,
                       name=label if case.test.name == case.label else case.test.name)
        moved.append(replace(case, test=test, label=label))
    plan.cases[:] = moved


def _add_filled(plan: InputPlan, texts: Sequence[str], entry: str,
                aliases: Mapping[str, str]) -> None:
    """A method's drawn calls again on an instance its class's fillers filled
    (``js_fill.py``), where no example builds one: ``stack.peekOr(0) after new Stack(),
    stack.push(1), ...``, beside the calls on a bare one."""
    if any(c.test.receiver is not None for c in plan.cases if c.source == "doctest"):
        return
    found = js_fill.fillers(texts, entry, aliases)
    if found is None:
        return
    short = entry.split(".")[-1]
    drawn = [c for c in plan.cases if c.source == "hypothesis" and c.test.receiver is None]
    for k, case in enumerate(drawn[:FILLED_DRAWS]):  # each on an instance filled its way
        receiver = found.receiver(start=1 + k)
        if receiver is None:
            return
        var = receiver.name[:1].lower() + receiver.name[1:]
        label = js_instances.receiver_label(receiver, var, short, case.test.args)
        test = replace(case.test, receiver=receiver, name=label)
        plan.cases.insert(plan.cases.index(case) + 1, replace(case, test=test, label=label))


#: Drawn calls of a method made again on a filled instance.
FILLED_DRAWS = 6


def _add_repeated(plan: InputPlan, texts: Sequence[str], entry: str) -> None:
    """A method that changes its instance (``js_fill.stateful``), drawn again on an
    instance the same call was made on once already: ``counter.increment(7) after new
    Counter(), counter.increment(7)``, beside the call on a bare one; not where an example
    builds the instance."""
    if any(c.test.receiver is not None for c in plan.cases if c.source == "doctest"):
        return
    cls = js_fill.stateful(texts, entry)
    if cls is None:
        return
    short = entry.split(".")[-1]
    drawn = [c for c in plan.cases if c.source == "hypothesis" and c.test.receiver is None]
    for case in drawn[:REPEATED_DRAWS]:
        receiver = Receiver(cls, steps=((short, case.test.args),))
        var = cls[:1].lower() + cls[1:]
        label = js_instances.receiver_label(receiver, var, short, case.test.args)
        test = replace(case.test, receiver=receiver, name=label)
        plan.cases.insert(plan.cases.index(case) + 1, replace(case, test=test, label=label))


#: Drawn calls of a method that changes its instance made again after one call.
REPEATED_DRAWS = 4


def _add_scaling(plan: InputPlan, types: Sequence[str], entry: str,
                 sizes: Sequence[int]) -> None:
    """The scaling series (growth), sizes smallest first, after every other input."""
    base = next((c.test.args for c in plan.cases if len(c.test.args) == len(types)), None)
    for n, args in scaling_args(types, base, sorted(sizes)):
        test = TestCase("call", args=args, name=f"scaling n={n}")
        plan.cases.append(InputCase(test, "scaling", False, _label(entry, args), size=n))


def _label(entry: str, args: Sequence[Any]) -> str:
    return js_values.show_call(entry.split(".")[-1], args)


def _add(plan: InputPlan, case: TestCase, source: Any, graded: bool, label: str,
         known: set[str], by_usage: bool = False) -> None:
    """``case`` once; ``by_usage``: its values' types were guessed from the versions' use
    of the parameters (its origin reads so: ``drawn from how the versions use it``)."""
    key = label + ("" if not case.has_expected else "=" + js_values.show(case.expected))
    if key in known or (label in known and not case.has_expected):
        return
    known.update((key, label))
    plan.cases.append(InputCase(case, source, graded, label, typed_by_usage=by_usage))


def _add_examples(plan: InputPlan, text: str, entry: str, may_grade: bool, alone: bool,
                  known: set[str], owner: str | None = None,
                  classes: set[str] | None = None) -> None:
    """The examples of ``text``'s comments: calls, and calls on an instance the example
    builds, of the class ``owner`` (the method's, in its module) or, for versions run alone,
    of a class in ``classes`` (every version defines it). Their expected values are kept
    only when ``may_grade`` (the prompt's or the current code's: one version must not
    grade the others); they count in pass rates only when ``alone`` too (no test grades
    the set; beside tests they are checked, as Python's are)."""
    calls, made = _scan(text, entry, owner)
    examples: list[tuple[tuple[Any, ...], Any, bool, str, Receiver | None]] = [
        (args, expected, has, _label(entry, args), None) for args, expected, has in calls]
    examples += [(*e.call, e.label, e.receiver) for e in made
                 if classes is None or e.receiver.name in classes]
    for args, expected, has, label, receiver in examples:
        test = TestCase("call", args=args, expected=expected if may_grade else None,
                        has_expected=has and may_grade, name=label, receiver=receiver)
        _add(plan, test, "doctest", may_grade and alone and has, label, known)


def _names_given(version_set: VersionSet) -> frozenset[str]:
    """The names a run gives an example's code: its module's top level (in its module),
    else what every version declares."""
    module = version_set.module
    texts = [module.source] if module is not None else list(version_set.codes)
    return js_example_code.top_level_names(texts, version_set.language)


def _add_code_examples(plan: InputPlan, text: str, entry: str, language: str,
                       given: frozenset[str], may_grade: bool, alone: bool,
                       known: set[str], library: Sequence[tuple[str, str]] = ()) -> None:
    """The examples of ``text``'s comments that call the function inside code of their own
    (``js_example_code.py``), graded as :func:`_add_examples`' are."""
    for label, source, expected, has in code_examples(text, entry, language, given, library):
        test = TestCase("example", source=source, expected=expected if may_grade else None,
                        has_expected=has and may_grade, name=label)
        _add(plan, test, "doctest", may_grade and alone and has, label, known)


#: Characters of a code example's label.
CODE_LABEL_CHARS = 100
#: Lines one statement of an example may span (``var users = [`` ... ``];``), at most.
MAX_JOINED_LINES = 24
_FENCE = "```"


def code_examples(text: str, entry: str, language: str, given: frozenset[str],
                  library: Sequence[tuple[str, str]] = ()) -> list[tuple[str, str, Any, bool]]:
    """Per example of ``text``'s comments that is not a call with literal arguments but
    code calling ``entry`` (``[...chunks([1, 2, 3], 2)] // => [[1, 2], [3]]``): its label,
    the source the harness runs (the declarations of the example before it made first),
    its expected value and whether it has one; only those reading no name but ``given``'s
    (which has ``entry``'s), their own and JavaScript's, and with ``library`` (functions of
    its package, each with how the module requires its file) the namespaces they call the
    package through (``R.propEq``), bound to an object of those functions."""
    lines = comment_lines(text)
    short = entry.split(".")[-1]
    setup = js_example_code.Setup(short, language)
    found: list[tuple[str, str, Any, bool]] = []
    if short not in given:
        return found  # a name the run does not give (a nested function, a version's own)
    readable = given | {"require"} if library else given  # the module's own ``require``
    i = 0
    while i < len(lines) and len(found) < MAX_EXAMPLES:
        if lines[i].strip().startswith("@example"):
            setup = js_example_code.Setup(short, language)
        first = i
        body, last = _whole_statement(lines, first, language)
        i = last + 1
        if not body:
            continue
        named = given | setup.declared()  # ``r.area()`` on the example's own ``r`` stays
        body = js_example_code.without_namespace(body, short, language, named)
        bound = js_example_code.binding(body, language)
        example = _code_example(body, short, language, setup.kept, lines, last,
                                joined=last > first)
        if example is not None and (example[2] or bound is None):
            expression = js_example_code.without_namespace(example[0], short, language, named)
            source = js_example_code.example_source(expression, setup.texts(expression),
                                                    language)
            missing = js_example_code.reads(source) - given if source is not None else None
            if missing and library:
                bound_to = js_example_code.library_bindings(
                    missing, expression, setup.texts(expression), library)
                source = js_example_code.example_source(
                    expression, [*bound_to, *setup.texts(expression)], language)
            if source is not None and not js_example_code.reads(source) - readable:
                shown = setup.kept.get(expression, expression)  # ``result`` shows its call
                label = _distinct(" ".join(shown.split()), source, setup.texts(expression),
                                  found)
                found.append((label, source, example[1], example[2]))
            if not example[2]:
                setup.step(expression)
        if bound is not None:  # ``const fns = [add(1)];``: what the lines after it read
            setup.add(body, bound)
    return found


def _distinct(label: str, source: str, setup: Sequence[str],
              found: Sequence[tuple[str, str, Any, bool]]) -> str:
    """``label``, cut to :data:`CODE_LABEL_CHARS`; where an earlier example of other code has
    it (``invertObj(raceResults)`` of another ``raceResults``), with its nearest setup line
    (``... after const raceResults = ['a']``), else its place: an input is known by its
    label."""
    taken = {f[0] for f in found if f[1] != source}
    out = label[:CODE_LABEL_CHARS]
    if out in taken and setup:
        nearest = " ".join(setup[-1].rstrip(";").split())
        out = f"{label} after {nearest}"[:CODE_LABEL_CHARS]
    return out if out not in taken else f"{out[:CODE_LABEL_CHARS - 6]} (#{len(found) + 1})"


def _whole_statement(lines: Sequence[str], i: int, language: str) -> tuple[str, int]:
    """The example code starting at ``lines[i]`` (marks taken off) and the index of its
    last line: one line, or the lines up to the one that completes a statement written
    over several (``var users = [``, its objects, ``];``), up to :data:`MAX_JOINED_LINES`
    and never past a blank line or a Markdown fence (a fence line is no code)."""
    body = _example_line(lines[i]).strip()
    if body.startswith(_FENCE):
        return "", i
    if not body or not js_example_code.incomplete(body, language):
        return body, i
    joined = body
    for j in range(i + 1, min(len(lines), i + MAX_JOINED_LINES)):
        more = _example_line(lines[j]).strip()
        joined = f"{joined}\n{more}"
        if not more or more.startswith(_FENCE) or len(joined) > js_example_code.MAX_SOURCE_CHARS:
            break
        if js_example_code.one_statement(joined, language):
            return joined, j
    return body, i


def _code_example(body: str, short: str, language: str, kept: Mapping[str, str],
                  lines: Sequence[str], i: int, joined: bool = False
                  ) -> tuple[str, Any, bool] | None:
    """The code example ending on the line ``lines[i]`` (``body``, its marks taken off,
    over several lines when ``joined``): its expression, expected value and whether it has
    one; None for a call with literal arguments on one line (:func:`examples`') or code
    of no call of ``short`` nor read of ``kept``."""
    read = None if joined else _read_call(body, short)
    if read is not None and read[1] is not None and read[0].split(".")[-1] == short:
        return None
    split = _code_and_expected(body, short, language, kept)
    if split is None:
        return None
    value = literal_text(_value_text(split[1])) if split[1].strip() else None
    call = _with_next(((), value[0] if value else None, value is not None), lines, i)
    return split[0], call[1], call[2]


def _code_and_expected(line: str, short: str, language: str,
                       kept: Mapping[str, str]) -> tuple[str, str] | None:
    """An example line as (the expression calling ``short`` or reading a name in ``kept``,
    the text of its expected value, empty for none): split at the first ``// =>``, ``=>``,
    ``===`` ... before which stands such an expression, else the whole line; None for a
    line of no such expression."""
    line = line.rstrip(";").strip()
    for m in [*_EXPECT_SPLIT.finditer(line), None]:
        head = line if m is None else line[:m.start()]
        expression = _unwrapped(head)
        if expression and (js_example_code.calls(expression, short, language)
                           or js_example_code.reads_one(expression, kept, language)):
            return expression, "" if m is None else line[m.end():]
    return None


def _unwrapped(text: str) -> str:
    """An example's expression without what stands around it and is not part of its value:
    a declaration keeping it, ``console.log(...)``, a leading ``await``."""
    text = _BINDING.sub("", text.strip().rstrip(";"), count=1).rstrip(";").strip()
    printed = _PRINTED.match(text)
    return printed.group(1) if printed else text


def _classes(codes: Sequence[str]) -> set[str]:
    """The classes every version defines (``class Stack``): what an example's instance
    may be made of when the versions run alone."""
    found = [set(re.findall(r"\bclass\s+([A-Za-z_$][\w$]*)", code)) for code in codes]
    return set.intersection(*found) if found else set()


def _add_class_examples(plan: InputPlan, module: ModuleContext, entry: str, graded: bool,
                        known: set[str]) -> None:
    """For a method without examples of its own, its class's examples that call it (the
    comment above the class in its module), graded (``graded``: no test grades the set):
    the module is the user's."""
    owner = module.owner
    if owner is None:
        return
    comment = js_instances.class_comment(module.source, grammar(module.path), owner)
    if comment:
        _add_examples(plan, comment, entry, True, graded, known, owner.rpartition(".")[2])


def _add_callers(plan: InputPlan, module: ModuleContext, entry: str, known: set[str],
                 graded: bool) -> None:
    """Literal calls of the function in its module's view and the workspace's files that
    name it (its tests, its callers); each says where it is. One a test asserts the outcome
    of carries it, graded (``graded``: no test grades the set) as a comment's example is."""
    owner = (module.owner or "").rpartition(".")[2]
    given: frozenset[str] | None = None
    found = literal_calls(module, entry.split(".")[-1])
    plan.notes.extend(left_out_note(found))
    for call in found:
        if call.wrapped is not None:
            if given is None:
                language = "typescript" if grammar(module.path) != "javascript" else "javascript"
                given = js_example_code.top_level_names([module.source], language)
            _add_wrapped(plan, call, *call.wrapped, given, known, graded)
            continue
        receiver = None if call.receiver is None else Receiver(owner, call.receiver)
        label = _label(entry, call.args) if receiver is None else (
            f"new {owner}({', '.join(js_values.show(a) for a in call.receiver or ())})."
            + _label(entry, call.args))
        if label in known:
            continue
        known.add(label)
        test = TestCase("call", args=call.args, name=label, receiver=receiver)
        plan.cases.append(found_input(test, call.expectation, call.in_test, call.where, graded))


def _add_wrapped(plan: InputPlan, call: JsCall, text: str, source: str, given: frozenset[str],
                 known: set[str], graded: bool) -> None:
    """A test's assertion on an expression wrapping the call (``text``: ``[...range(3)]``,
    ``source``: the function returning it), run whole as a code example is, where it reads
    no name but the module's and JavaScript's."""
    label = " ".join(text.split())[:CODE_LABEL_CHARS]
    if label in known or js_example_code.reads(source) - given:
        return
    known.add(label)
    test = TestCase("example", source=source, name=label)
    plan.cases.append(found_input(test, call.expectation, call.in_test, call.where, graded))


#: Drawn inputs whose arrays and strings repeat their first half (versions part on ties and
#: repeats: the first of two equal ages, the most common word), and drawn inputs that give
#: the optional parameters too.
REPEATED_DRAWS = 2
#: The draw every item of one type takes in the draw of equal values (a number's 7).
EQUAL_AT = 3
OPTIONAL_DRAWS = 2


def _add_variants(plan: InputPlan, types: Sequence[str], optional: Sequence[str],
                  entry: str, known: set[str], aliases: Mapping[str, str]) -> None:
    """Beside the plain draws: one where the parameters and items of one type are equal
    (``f(7, 7)``, ``f({lo: 7, hi: 7})``, ``f([7, 7, 7, 7])``; with the optional ones too
    when there are some), :data:`REPEATED_DRAWS` with arrays, strings and maps repeated,
    and :data:`OPTIONAL_DRAWS` that give the optional parameters (``n?: number``) a value."""
    again = [repeats(t, aliases) for t in types]
    variants: list[tuple[Any, ...]] = []
    try:
        variants.append(tuple(type_values(t, EQUAL_AT, aliases, step=0) for t in types))
        if optional:
            variants.append(tuple(type_values(t, EQUAL_AT, aliases, step=0)
                                  for t in [*types, *optional]))
        if any(again):
            for i in range(2, 2 + REPEATED_DRAWS):  # arrays of 3 and 4, words of 1 and 2
                variants.append(tuple(repeated(v) if r else v for v, r in zip(
                    (type_values(t, i + k, aliases) for k, t in enumerate(types)), again,
                    strict=True)))
        for i in range(OPTIONAL_DRAWS if optional else 0):
            # the optional ones from their first values: a falsy one first (0, "")
            variants.append((*(type_values(t, 1 + i + k, aliases) for k, t in enumerate(types)),
                             *(type_values(t, i, aliases) for t in optional)))
    except NotLiteral:
        pass  # an optional type that cannot be drawn: the calls drawn so far stand
    for args in variants:
        label = _label(entry, args)
        _add(plan, TestCase("call", args=args, name=label), "hypothesis", False, label, known)


def _add_typed(plan: InputPlan, types: Sequence[str], entry: str, count: int,
               known: set[str], aliases: Mapping[str, str] | None = None,
               by_usage: bool = False) -> None:
    for i in range(draw_count(types, count, aliases)):
        try:
            args = tuple(type_values(t, i + k, aliases) for k, t in enumerate(types))
        except NotLiteral:
            plan.notes.append("parameter types not drawn: " + ", ".join(types))
            return
        label = _label(entry, args)
        _add(plan, TestCase("call", args=args, name=label), "hypothesis", False, label, known,
             by_usage)


def _add_guessed(plan: InputPlan, version_set: VersionSet, entry: str, count: int,
                 known: set[str]) -> None:
    """Inputs drawn from the types the parameters' use suggests, where nothing else exists
    (the versions' first reading that gives one)."""
    texts = [s.code for s in version_set.versions if s.origin == "current"] + version_set.codes
    module = version_set.module
    types = guessed_across(texts, entry, helpers_in(helper_texts(module)) if module else None)
    if not types:
        return
    plan.notes.append("parameter types guessed from their use: " + ", ".join(types))
    _add_typed(plan, types, entry, count, known, by_usage=True)


def _add_tested_values(plan: InputPlan, version_set: VersionSet, entry: str,
                  types: Sequence[str] | None, aliases: Mapping[str, str],
                  known: set[str]) -> None:
    """Inputs whose string parameter a version tests against a regular expression take
    strings matching each such pattern and strings just missing it
    (:mod:`~codequorum.behaviour.pattern_strings`), then texts of the separators the
    versions split on (:mod:`~codequorum.behaviour.separated_strings`), the others their
    first drawn value;
    then those whose parameter takes each literal a version compares it with
    (:mod:`~codequorum.behaviour.runtimes.js_compared`: ``p === "admin"``, either side of
    ``n > 100``), those only some versions check first."""
    module = version_set.module
    found = searched_patterns(version_set.codes, entry, [module.source] if module else [])
    compared = compared_literals(version_set.codes, entry)
    separated = separated_strings(split_separators(version_set.codes, entry))
    if not found and not compared and not separated:
        return
    texts = [s.code for s in version_set.versions if s.origin == "current"] + version_set.codes
    types = types or guessed_across(texts, entry) or []
    try:
        base = [type_values(t, 1, aliases) for t in types]
    except NotLiteral:
        return
    strings = {k: pattern_strings(found.get(k, [])) + (separated if _string(t, aliases) else [])
               for k, t in enumerate(types)}
    strings = {k: v for k, v in strings.items() if v}
    fitting = {k: [v for v in values if _fits(v, types[k], aliases)]
               for k, values in compared.items() if k < len(types)}
    for held, most in ((strings, MAX_PATTERN_INPUTS), (fitting, MAX_LITERAL_INPUTS)):
        made = [(*base[:k], v, *base[k + 1:]) for k, values in sorted(held.items())
                if k < len(base) for v in values]
        added = 0
        for args in made:
            label = _label(entry, args)
            if label not in known and added < most:
                added += 1
                _add(plan, TestCase("call", args=args, name=label), "hypothesis", False, label,
                     known)


def _string(type_text: str, aliases: Mapping[str, str]) -> bool:
    """Whether a parameter's type is ``string`` or a union holding it."""
    t = unwrapped(aliases.get(unwrapped(type_text), type_text))
    return "string" in {unwrapped(m) for m in union_members(t)}


def _fits(value: Any, type_text: str, aliases: Mapping[str, str]) -> bool:
    """Whether a literal is a value of the parameter's type (a string of ``string``, a
    number of ``number``, either of ``any``)."""
    t = unwrapped(aliases.get(unwrapped(type_text), type_text))
    members = {unwrapped(m) for m in union_members(t)}
    if members & {"any", "unknown"}:
        return True
    return ("string" in members) if isinstance(value, str) else ("number" in members)


#: Inputs of the literals the versions compare a parameter with, at most, over every one.
MAX_LITERAL_INPUTS = 8
#: Inputs drawn from the versions' patterns, at most, over every parameter.
MAX_PATTERN_INPUTS = 8


#: The workspace's files of a module's view whose functions count as its helpers, at most.
HELPER_FILES = 32
#: A file larger than this is not read for helpers.
MAX_HELPER_FILE_CHARS = 256 * 1024


def helper_texts(module: ModuleContext) -> list[str]:
    """Where a function's helpers are looked for: its module, then the workspace's files the
    module imports (``assertString(str)`` of ``./util/assertString``: the view holds
    them), not packages; the module's own functions first where names collide."""
    others = [text for path, text in module.files
              if path != module.path and "node_modules/" not in path
              and len(text) <= MAX_HELPER_FILE_CHARS]
    return [module.source, *others[:HELPER_FILES]]


def _add_proposed(plan: InputPlan, proposer: Proposer, source: str, entry: str,
                  known: set[str]) -> None:
    arity = 1
    for fn in functions_in(source):
        params = params_of(fn.text)
        if fn.name.split(".")[-1] == entry.split(".")[-1] and params is not None:
            arity = len(parameter_nodes(params))
    drawn, notes = proposer(source, entry, arity)
    plan.notes.extend(notes)
    for raw in drawn:
        try:
            args = tuple(from_python(v) for v in raw)
        except NotLiteral:
            continue
        label = _label(entry, args)
        _add(plan, TestCase("call", args=args, name=label), "model", False, label, known)

__all__ = ["InstanceExample", "NotLiteral", "collect_js_inputs", "example_call", "examples",
           "from_python", "instance_examples", "literal", "scaled_value", "scaling_args"]
