"""A JavaScript or TypeScript set's own tests, and the function they call.

Four sources, read without running anything:

- ``call`` cases of the set (``{"args": [...], "expected": ...}``): plain JSON values
  read as JavaScript's (an object without a ``"$"`` tag is an object literal);
- a harness as MultiPL-E writes it (a string: ``let candidate = f;`` then
  ``assert.deepEqual(candidate(<literals>), <literal>)``): each such assert one graded call;
  ``deepEqual`` and ``equal`` are loose, so their ``null`` and ``undefined`` expect either;
- a harness as HumanEval-X writes it, calling the function by its name:
  ``console.assert(f(<literals>) === <literal>)`` (either side; ``== null`` expects
  either nullish value), with ``JSON.stringify`` on both sides for arrays and objects,
  each one graded call; any other (``f(x) == 6``, which ``"6.00"`` passes)
  ``console.assert(<expression>)`` calling it with literals and reading no other name
  (``!f(x)``, ``Math.abs(f(x) - 0.5) < 1e-6``) runs whole as a code example that must
  give a truthy value;
- for a HumanEval task (``HumanEval/0``, MultiPL-E's ``HumanEval_0_has_close_elements``)
  without tests of its own, the benchmark's Python tests whose calls are all literals,
  their values read as JavaScript's (``None`` expects ``null`` or ``undefined``).

The function called is the set's ``entry_point``, else the harness's candidate, else the
benchmark's name; where no version defines that name as written, the one they define that
means it (``hasCloseElements`` for ``has_close_elements``), else the guess of
``js_entry.py``; a version that names it otherwise is called by its own name
(:func:`version_entry`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from tree_sitter import Node

from codequorum.behaviour.runtimes import js_example_code
from codequorum.behaviour.runtimes.js_entry import defined_names, guess_entry, same_function
from codequorum.behaviour.runtimes.js_literals import (
    NULLISH,
    NotLiteral,
    call_arguments,
    from_python,
    literal,
    node_text,
)
from codequorum.core.errors import UserError
from codequorum.core.limits import InputLimitError
from codequorum.core.model import TestCase, VersionSet
from codequorum.core.parsing import parse
from codequorum.ingest import humaneval

#: The asserts of a harness read as graded calls, and whether each is loose.
ASSERTS = {"assert.deepEqual": True, "assert.equal": True, "assert.deepStrictEqual": False,
           "assert.strictEqual": False}
#: ``console.assert``'s comparisons read as graded calls, and whether each is loose.
CONSOLE_COMPARISONS = {"===": False, "==": True}
_TASK = re.compile(r"^HumanEval[/_-](\d+)(?:[/_-](.*))?$")
_CANDIDATE = re.compile(r"\b(?:let|const|var)\s+candidate\s*=\s*([A-Za-z_$][\w$.]*)\s*;?")


@dataclass
class SetTests:
    """The tests a set's versions run on, the function they call, and what was left."""

    tests: list[TestCase] = field(default_factory=list)
    entry: str | None = None
    notes: list[str] = field(default_factory=list)
    hidden: bool = False


def humaneval_task(task_id: str) -> str | None:
    """The HumanEval task a set's id names (``HumanEval_0_has_close_elements`` ->
    ``HumanEval/0``), if any; an id that names another function after the number
    (``HumanEval_0_other``) names no task, so no other problem's tests are run."""
    m = _TASK.match(task_id)
    if m is None:
        return None
    task = f"HumanEval/{m.group(1)}"
    if not humaneval.is_task(task):
        return None
    named = m.group(2)
    return task if not named or named == humaneval.entry_point_for(task) else None


def from_json(value: Any) -> Any:
    """A test's plain JSON value -> its canonical tree: an object without a ``"$"`` tag is
    an object literal (a tagged one is already canonical)."""
    if isinstance(value, list):
        return [from_json(v) for v in value]
    if isinstance(value, dict) and "$" not in value:
        return {"$": "object", "v": sorted([[str(k), from_json(v)] for k, v in value.items()],
                                           key=lambda p: p[0])}
    return value


def _call_case(t: TestCase) -> TestCase:
    return replace(t, args=tuple(from_json(a) for a in t.args),
                   expected=from_json(t.expected))


def _loosened(value: Any) -> Any:
    if value is None or value == {"$": "undefined"}:
        return NULLISH
    if isinstance(value, list):
        return [_loosened(v) for v in value]
    return value


def harness_tests(source: str, names: Sequence[str] = ()) -> tuple[str | None,
                                                                     list[TestCase]]:
    """A MultiPL-E or HumanEval-X style harness -> (the function its ``candidate`` is, its
    asserts that call it, or one of ``names``, with literals, as graded calls)."""
    alias = _CANDIDATE.search(source)
    callee = {"candidate", *names, *([alias.group(1)] if alias else [])}
    try:
        root = parse(source, "javascript").root_node
    except (InputLimitError, UserError, ValueError):
        return (alias.group(1) if alias else None), []
    cases: list[TestCase] = []
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(reversed(node.named_children))
        case = _assert_case(node, callee) or _console_case(node, callee)
        if case is not None:
            cases.append(case)
    return (alias.group(1) if alias else None), cases


def _assert_case(node: Node, callee: set[str]) -> TestCase | None:
    """``assert.deepEqual(candidate(1, 2), 3)`` -> a graded call; None otherwise."""
    fn = node.child_by_field_name("function") if node.type == "call_expression" else None
    if fn is None or node_text(fn) not in ASSERTS:
        return None
    arguments = node.child_by_field_name("arguments")
    args = [c for c in arguments.named_children if c.type != "comment"] if arguments else []
    if len(args) < 2 or args[0].type != "call_expression":
        return None
    target = args[0].child_by_field_name("function")
    if target is None or node_text(target) not in callee:
        return None
    try:
        call_args, expected = call_arguments(args[0]), literal(args[1])
    except NotLiteral:
        return None
    if ASSERTS[node_text(fn)]:
        expected = _loosened(expected)
    return TestCase("call", args=call_args, expected=expected, has_expected=True,
                    name=f"check {node.start_point[0] + 1}")


def _console_case(node: Node, callee: set[str]) -> TestCase | None:
    """``console.assert(f(1) === 2)`` -> a graded call; another ``console.assert(...)``
    calling ``f`` with literals -> a code example expected truthy; None otherwise."""
    fn = node.child_by_field_name("function") if node.type == "call_expression" else None
    if fn is None or node_text(fn) != "console.assert":
        return None
    arguments = node.child_by_field_name("arguments")
    args = [c for c in arguments.named_children if c.type != "comment"] if arguments else []
    if not args:
        return None
    name = f"check {node.start_point[0] + 1}"
    compared = _compared(args[0], callee)
    if compared is not None:
        call_args, expected = compared
        return TestCase("call", args=call_args, expected=expected, has_expected=True, name=name)
    return _truthy_example(node_text(args[0]), callee, name)


def _compared(node: Node, callee: set[str]) -> tuple[tuple[Any, ...], Any] | None:
    """``f(1) === 2``, ``2 == f(1)``, ``JSON.stringify(f(x)) === JSON.stringify([1])`` ->
    (the call's literal arguments, the value it must give); None for any other form."""
    operator = node.child_by_field_name("operator")
    if node.type != "binary_expression" or operator is None:
        return None
    loose = CONSOLE_COMPARISONS.get(node_text(operator))
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if loose is None or left is None or right is None:
        return None
    for call, value in ((left, right), (right, left)):
        stringified = _unstringified(call) is not call and _unstringified(value) is not value
        call, value = _unstringified(call), _unstringified(value)
        target = call.child_by_field_name("function") if call.type == "call_expression" \
            else None
        if target is None or node_text(target) not in callee:
            continue
        try:
            call_args, expected = call_arguments(call), literal(value)
        except NotLiteral:
            return None
        if loose and not stringified:
            # ``"6.00" == 6`` holds: only a nullish value is compared as a value (either
            # nullish), anything else as the harness compares it
            return (call_args, NULLISH) if _loosened(expected) is NULLISH else None
        return call_args, expected
    return None


def _unstringified(node: Node) -> Node:
    """The argument of ``JSON.stringify(x)``; ``node`` itself otherwise."""
    fn = node.child_by_field_name("function") if node.type == "call_expression" else None
    arguments = node.child_by_field_name("arguments")
    if fn is None or node_text(fn) != "JSON.stringify" or arguments is None:
        return node
    args = [c for c in arguments.named_children if c.type != "comment"]
    return args[0] if len(args) == 1 else node


def _truthy_example(expression: str, callee: set[str], name: str) -> TestCase | None:
    """``expression`` run whole as a code example expected truthy, where it calls one of
    ``callee`` and reads no other name."""
    if not any(js_example_code.calls(expression, c, "javascript") for c in callee):
        return None
    source = js_example_code.example_source(f"Boolean({expression})", [], "javascript")
    if source is None or not js_example_code.reads(source) <= callee:
        return None
    return TestCase("example", source=source, expected=True, has_expected=True, name=name)


def _hidden(task: str) -> tuple[list[TestCase], int]:
    """The benchmark's literal calls as JavaScript tests, and how many it has of no literal
    form (left out)."""
    out: list[TestCase] = []
    left = 0
    for t in humaneval.tests_for(task):
        if t.kind != "call" or t.kwargs:
            left += 1
            continue
        try:
            out.append(replace(t, args=tuple(from_python(a) for a in t.args),
                               expected=from_python(t.expected, none=NULLISH)))
        except NotLiteral:
            left += 1
    return out, left


def resolve_entry(wanted: str | None, codes: Sequence[str], language: str,
                  prompt: str | None) -> str | None:
    """``wanted`` where a version defines it, else the defined name that means it, else
    the set's guess (module docstring)."""
    defined = [n for c in codes for n in defined_names(c, language)]
    if wanted and (not defined or wanted in defined):
        return wanted
    if wanted:
        alike = next((n for n in defined if same_function(wanted, n)), None)
        if alike is not None:
            return alike
    return guess_entry(codes, language, prompt) or wanted


def version_entry(code: str, entry: str, language: str) -> str:
    """The name one version gives the set's function: ``entry`` where it defines it, else
    the name it defines that means it (``strLen`` for ``strlen``)."""
    defined = defined_names(code, language)
    if entry in defined:
        return entry
    return next((n for n in defined if same_function(entry, n)), entry)


def set_tests(version_set: VersionSet) -> SetTests:
    """The tests of a set and the function they call (module docstring)."""
    out = SetTests()
    wanted = version_set.entry_point
    for t in version_set.tests:
        if t.kind == "call":
            out.tests.append(_call_case(t))
        elif t.kind == "check" and t.source:
            named = resolve_entry(wanted, version_set.codes, version_set.language,
                                  version_set.prompt)
            name, cases = harness_tests(t.source, [named] if named else [])
            wanted = wanted or name
            out.tests.extend(cases)
            if not cases:
                out.notes.append("a test harness with no assert of a literal call: not run")
        else:
            out.notes.append(f"a {t.kind} test is not run for {version_set.language}")
    task = humaneval_task(version_set.task_id) if not version_set.tests else None
    if task is not None:
        out.tests, left = _hidden(task)
        out.hidden = True
        wanted = wanted or humaneval.entry_point_for(task)
        if left:
            out.notes.append(f"{left} of {task}'s checks have no literal form: not run")
    if version_set.module is not None and wanted:
        out.entry = wanted  # the editor names the function it is in
    else:
        out.entry = resolve_entry(wanted, version_set.codes, version_set.language,
                                  version_set.prompt)
    return out


__all__ = ["SetTests", "from_json", "harness_tests", "humaneval_task", "resolve_entry",
           "set_tests", "version_entry"]
