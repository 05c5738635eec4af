"""The names a JavaScript or TypeScript version takes from outside itself."""

from __future__ import annotations

import pytest

from codequorum.behaviour.runtimes.js_outside import outside_names
from codequorum.ingest.js_globals import GLOBALS


@pytest.mark.parametrize(("code", "language", "names"), [
    # declared anywhere in the version, or a global every run has: nothing from outside
    ("function f(x) { return Math.max(x, 0) + parseInt('1'); }", "javascript", set()),
    ("const one = () => 1;\nfunction f(x) { return one() + x; }", "javascript", set()),
    ("export function formatDate(input: string | number): string {\n"
     "  const date = new Date(input)\n  return date.toLocaleDateString('en-US')\n}\n",
     "typescript", set()),
    ("function f(a, ...rest) { return [a, ...rest].length + arguments.length; }",
     "javascript", set()),
    # helpers, constants and classes of the module are from outside
    ("function f(a) { return cn(a) + LIMIT; }", "javascript", {"cn", "LIMIT"}),
    ("const f = (p) => new Parser(p).run();", "javascript", {"Parser"}),
    # a default value and a destructuring default are read, not declared
    ("function f(x, {y, z: [w]} = fallback, ...r) { const {m = n, ...o} = x;"
     " return y + w + m + o + r; }", "javascript", {"fallback", "n"}),
    # a catch binding, a for-of binding, an import and a shorthand property
    ("import { a as b } from 'x';\nfunction f(xs) { try { for (const k of xs) b(k); }"
     " catch ({ message }) { return { message, k: outer }; } }", "javascript", {"outer"}),
    # labels, property names, private names and types are not names read
    ("class C extends Base { #p = 1; m(a: Item): number { loop: for (;;) break loop;"
     " return a.size + this.#p; } }", "typescript", {"Base"}),
    ("enum E { A }\nfunction f(): E { return E.A + v; }", "typescript", {"v"}),
    ("function f(", "javascript", set()),  # does not parse: it will not compile either
])
def test_outside_names(code: str, language: str, names: set[str]) -> None:
    assert outside_names(code, language) == names


def test_the_harness_globals_are_known() -> None:
    assert {"console", "setTimeout", "Buffer", "URL", "structuredClone"} <= GLOBALS
    assert "require" not in GLOBALS and "process" not in GLOBALS  # no run alone has them
