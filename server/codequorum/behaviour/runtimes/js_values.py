"""JavaScript values in the canonical form the Node harness writes (``node_harness/values.js``).

A value is a JSON tree: null, booleans, strings, finite numbers other than -0 and arrays
as themselves, everything else ``{"$": tag, ...}`` (NaN and -0 as ``number``, undefined,
bigint, map and set with sorted entries, object with sorted keys and its class, date,
regexp, typed arrays, holes, cycles, a generator's items, a returned function's answers
to the harness's probe calls, ...; as an input only,
``template``: the strings array a tagged template gives its tag,
``{"$": "template", "v": cooked, "raw": raw}``, and ``source``: a function's text, made in
the version's context). Two values are equal when their trees
are equal with JavaScript's strict deep equality: numbers by value (``1`` and ``1.0``
are one number), never a boolean for a number, NaN equal to NaN and -0 not equal to 0
(as ``assert.deepStrictEqual``), which the tags already give.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from codequorum.behaviour.sandbox.outcome_grading import ENDINGS

MAX_VALUE_TEXT = 1 << 20
NULLISH: dict[str, str] = {"$": "nullish"}
UNDEFINED: dict[str, str] = {"$": "undefined"}


def strict_equal(a: Any, b: Any) -> bool:
    """Strict deep equality of two canonical trees (no ``True == 1``); an expected
    ``{"$": "nullish"}`` (a test that cannot tell them apart) is ``null`` or ``undefined``."""
    if NULLISH in (a, b):
        return all(x in (None, UNDEFINED, NULLISH) for x in (a, b))
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(strict_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(strict_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and bool(a == b)


#: Most digits of an integer ``JSON.stringify`` writes for a number (past 1e21 it writes
#: an exponent).
MAX_INTEGER_DIGITS = 21


def _integer(text: str) -> int:
    """An integer of the text: only as long as a JavaScript number writes one (a forged
    text, ``JSON.rawJSON`` in a ``toJSON`` of the version's, may hold any digits)."""
    if len(text.lstrip("-")) > MAX_INTEGER_DIGITS:
        raise ValueError("an integer no JavaScript number writes")
    return int(text)


def parse(text: str) -> Any:
    """A canonical value's JSON text -> its tree; ValueError when it is not one."""
    if len(text) > MAX_VALUE_TEXT:
        raise ValueError("value text too long")
    try:
        return json.loads(text, parse_int=_integer)
    except RecursionError:
        raise ValueError("value nested too deeply") from None


def matches(output: str, expected: Any) -> bool:
    """Whether a version's canonical value text equals the expected tree."""
    try:
        return strict_equal(parse(output), expected)
    except ValueError:
        return False


def canonical(output: str | None) -> str | None:
    """The comparison key of a value (OER): its tree written with sorted keys and every
    integral number as an integer, so equal values print alike."""
    if output is None:
        return None
    try:
        tree = parse(output)
    except ValueError:
        return output
    return json.dumps(_floats(tree), sort_keys=True, separators=(",", ":"))


def _floats(tree: Any) -> Any:
    if isinstance(tree, bool) or tree is None or isinstance(tree, str):
        return tree
    if isinstance(tree, (int, float)):
        return int(tree) if float(tree).is_integer() and abs(tree) < 2**53 else float(tree)
    if isinstance(tree, list):
        return [_floats(x) for x in tree]
    if isinstance(tree, dict):
        return {k: _floats(v) for k, v in tree.items()}
    return tree


#: Runs of blanks (a callback's types, blanked where they stood), and blanks before a
#: closing bracket or a comma: a label shows ``(...items) => ...``, the value runs as is.
_BLANKS = re.compile(r"[ \t]{2,}")
_BLANKS_BEFORE = re.compile(r"[ \t]+([),\]])")


def show(tree: Any) -> str:
    """A canonical tree in JavaScript's words, for labels (``f(1, [2, NaN])``)."""
    if tree is None:
        return "null"
    if isinstance(tree, bool):
        return "true" if tree else "false"
    if isinstance(tree, (int, float)):
        return repr(int(tree)) if float(tree).is_integer() and abs(tree) < 2**53 else repr(tree)
    if isinstance(tree, str):
        return _string(tree)
    if isinstance(tree, list):
        return "[" + ", ".join(show(x) for x in tree) + "]"
    tag, v = tree.get("$"), tree.get("v")
    if tag == "number":
        return str(v)
    if tag == "undefined":
        return "undefined"
    if tag == "nullish":
        return "null or undefined"
    if tag == "bigint":
        return f"{v}n"
    if tag == "template":
        return show(v)
    if tag == "source":  # a TypeScript callback's blanked types shown as one space
        return _BLANKS_BEFORE.sub(r"\1", _BLANKS.sub(" ", str(v)))
    if tag == "date":
        return "new Date(" + ("NaN" if v == "Invalid Date" else json.dumps(v)) + ")"
    if tag == "regexp":
        return str(v)
    if tag == "promise":
        return "a promise still pending" if v == "pending" else "a promise"
    if tag == "function":
        return _function(tree)
    if tag == "generator":  # what it yields, as a spread shows it
        more = ", …" if tree.get("more") else ""
        raised = f", then throws {tree['raised']}" if tree.get("raised") else ""
        return f"generator yielding [{', '.join(show(x) for x in v)}{more}]{raised}"
    if tag == "object":
        return "{" + ", ".join(f"{json.dumps(k)}: {show(x)}" for k, x in v) + "}"
    if tag in ("map", "set"):
        inner = ", ".join(show(x) if tag == "set" else f"[{show(x[0])}, {show(x[1])}]"
                          for x in v)
        return f"new {'Map' if tag == 'map' else 'Set'}([{inner}])"
    return json.dumps(tree)


def _function(tree: dict[str, Any]) -> str:
    """A returned function by what its probe calls gave (``a function: (1) => 2, (2) =>
    throws TypeError``), another by its name."""
    calls = tree.get("calls")
    if not isinstance(calls, list):
        return f"function {tree.get('v') or '(anonymous)'}"
    said = []
    for call in calls:
        args = "(" + ", ".join(show(a) for a in call[0]) + ")"
        said.append(f"{args} => throws {call[2]}" if len(call) > 2 else
                    f"{args} => {show(call[1])}")
    return "a function: " + ", ".join(said) + _heard(tree.get("heard"))


def _heard(heard: Any) -> str:
    """What the function passed in was called with meanwhile (``; calls back (1), (2)``),
    what its timers made it hear once the calls were made after "later" (``; calls back
    later (1)``, ``; calls back (1), then later (2)``)."""
    if not isinstance(heard, list) or not heard:
        return ""
    at_once: list[str] = []
    later: list[str] | None = None
    for h in heard:
        if isinstance(h, dict) and h.get("$") == "later":
            later = []
            continue
        word = ("…" if h.get("$") == "truncated" else f"throws {h.get('v')}") \
            if isinstance(h, dict) else \
            "(" + ", ".join(show(a) for a in (h if isinstance(h, list) else [h])) + ")"
        (at_once if later is None else later).append(word)
    said = ", ".join(at_once)
    if later:
        said += (", then later " if at_once else "later ") + ", ".join(later)
    return "; calls back " + said


def _string(text: str) -> str:
    """A string literal as JavaScript writes it: printable letters as they are
    (``"naïve"``), every other character escaped (a control, a bidi mark, a zero-width or
    non-breaking space), so that a label shows what the value holds."""
    return "".join(ch if ch.isprintable() else
                   (f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else f"\\u{{{ord(ch):x}}}")
                   for ch in json.dumps(text, ensure_ascii=False))


def show_call(name: str, args: Sequence[Any]) -> str:
    """A call in JavaScript's words: ``f(1, "a")``, or a tagged template when the first
    argument is a template's strings array and the rest its substitutions
    (``dedent`a${1}b` ``, the raw text as written)."""
    first = args[0] if args else None
    if (isinstance(first, dict) and first.get("$") == "template"
            and isinstance(first.get("raw"), list) and len(first["raw"]) == len(args)):
        raw = [str(r) for r in first["raw"]]
        subs = "".join("${" + show(a) + "}" + r for a, r in zip(args[1:], raw[1:], strict=True))
        return f"{name}`{raw[0]}{subs}`"
    return f"{name}({', '.join(show(a) for a in args)})"


def shown_text(output: str) -> str:
    """A version's value text (canonical JSON) as a message shows it: in JavaScript's
    words (``undefined``, ``-0``, ``new Set([1])``), or as it is when it is not one (a
    version can forge the text: a ``toJSON`` of its own on ``Object.prototype`` writes
    ``{"$": "object", "v": [1]}``, which no value gives)."""
    try:
        return show(parse(output))
    except (ValueError, TypeError, AttributeError, KeyError, IndexError, RecursionError):
        return output


#: Globals of Node and of browsers that the bare JavaScript context a version runs in does
#: not have (it has the language's own, the console, timers, ``btoa`` and ``atob``, and
#: those ``node_harness/globals.js`` builds: ``Buffer``, ``TextEncoder``, ``TextDecoder``,
#: ``URL``, ``URLSearchParams``, ``structuredClone``, ``setImmediate``, ``global``).
HOST_GLOBALS = frozenset({
    "process", "require", "fetch", "crypto", "performance", "window", "document",
    "__dirname", "__filename", "AbortController", "Blob", "navigator",
})


def raised_as_expected(wanted: str, thrown: str | None) -> bool:
    """Whether a throw the harness names ``thrown`` (the thrown object's constructor name;
    None: nothing thrown) is what a test expects (``wanted``: a class name, ``""`` for any
    throw), as ``toThrow(E)`` takes it: ``Error`` is every error class, another name only
    itself; a run's ending (a limit, the harness's own) matches nothing."""
    if thrown is None or thrown in ENDINGS:
        return False
    return wanted in ("", thrown) or (wanted == "Error" and thrown != "Thrown")


def host_global_told(exc_type: str | None, message: str | None) -> str | None:
    """A ``ReferenceError`` for a global of Node or of browsers, told as what it is (the
    sandbox's context has no such global, not the version's mistake); else the message."""
    m = re.fullmatch(r"([\w$]+) is not defined", message or "")
    if exc_type != "ReferenceError" or m is None or m.group(1) not in HOST_GLOBALS:
        return message
    return (f"{message} (versions run in a bare JavaScript context: Node's and browsers' "
            f"`{m.group(1)}` is not there)")


__all__ = ["HOST_GLOBALS", "canonical", "host_global_told", "matches", "parse",
           "raised_as_expected", "show", "show_call", "shown_text", "strict_equal"]
