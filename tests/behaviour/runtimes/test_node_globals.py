"""Node's globals in the version's context (``node_harness/globals.js``): each gives the
value Node itself gives, asked of the same expression in a plain Node outside."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from codequorum.behaviour.runtimes import node_sandbox
from codequorum.behaviour.runtimes.node import JAVASCRIPT
from codequorum.behaviour.sandbox.limits import Limits
from codequorum.core.model import TestCase

#: Expressions real code writes, each the JSON text of what it gives.
EXPRESSIONS = [
    "Array.from(new TextEncoder().encode('h\\u00e9llo \\u20ac \\ud83d\\ude00 \\ud800'))",
    "(() => { const d = new Uint8Array(4);"
    " return new TextEncoder().encodeInto('\\u00e9\\u20ac', d); })()",
    "new TextDecoder().decode(new Uint8Array([104, 195, 169, 0xff, 226, 130, 172]))",
    "new TextDecoder('utf-16le').decode(new Uint8Array([104, 0, 105, 0]))",
    "[new TextDecoder('latin1').encoding, new TextDecoder('UTF8').encoding]",
    "(() => { try { new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array([255])); }"
    " catch (e) { return [e.name, e.code]; } })()",
    "(() => { try { new TextDecoder('klingon'); } catch (e) { return [e.name, e.code]; } })()",
    "(() => { const a = { n: [1, { d: new Date(5) }], m: new Map([[1, new Set([2])]]) };"
    " a.self = a; const c = structuredClone(a); return [c !== a, c.self === c,"
    " c.n[1].d.getTime(), [...c.m.get(1)], c.m instanceof Map]; })()",
    "(() => { try { structuredClone({ f() {} }); } catch (e) { return e.name; } })()",
    "Array.from(structuredClone(new Uint16Array([1, 65535])))",
    "(() => { const u = new URL('../c/./d?x=1&x=2&y=a%20b#frag', 'http://u:p@EX.com:8080/a/b/');"
    " return [u.href, u.origin, u.host, u.hostname, u.port, u.pathname, u.search, u.hash,"
    " u.username, u.searchParams.getAll('x'), u.searchParams.get('y'), String(u)]; })()",
    "(() => { const u = new URL('https://example.org/p?a=1'); u.searchParams.set('b', 'x y&z');"
    " u.searchParams.delete('a'); u.pathname = '/q r'; u.hash = 'h'; u.port = '443';"
    " return [u.href, u.search, JSON.stringify({ u })]; })()",
    "(() => { try { new URL('not a url'); } catch (e) { return [e.name, e.code, e.message]; } })()",
    "[URL.canParse('https://a.b'), URL.canParse('/x'), URL.canParse('/x', 'http://h')]",
    "(() => { const p = new URLSearchParams('?b=2&a=1&a=%C3%A9+x'); p.sort();"
    " p.append('c', '\\u00e9');"
    " return [p.toString(), [...p.keys()], p.get('a'), p.has('b'), p.size]; })()",
    "String(new URLSearchParams([['k', 'v 1'], ['k', '=&']]))",
    "String(new URLSearchParams({ a: 1, b: [2, 3], c: null }))",
    "(() => { const b = Buffer.from('h\\u00e9llo \\u20ac', 'utf8');"
    " return [b.length, b.toString('hex'), b.toString('base64'), b.toString('base64url'),"
    " b.toString('latin1'), b.toString('utf8', 1, 3), Buffer.isBuffer(b),"
    " Buffer.isBuffer(new Uint8Array(1)), b instanceof Uint8Array]; })()",
    "[Buffer.from('68656c6c6f', 'hex').toString(), Buffer.from('aGVsbG8=', 'base64').toString(),"
    " Buffer.from('aGVsbG8', 'base64url').toString('utf-8'),"
    " Buffer.from([256, -1, 65]).toString('hex')]",
    "[Buffer.byteLength('\\u20ac\\u00e9a'), Buffer.byteLength('abcd', 'base64'),"
    " Buffer.byteLength('abcd', 'hex'), Buffer.byteLength(new Uint8Array(7))]",
    "(() => { const c = Buffer.concat([Buffer.from('ab'), Buffer.alloc(2, 'xy'), Buffer.alloc(1)]);"
    " return [c.toString('hex'), Buffer.concat([Buffer.from('abc')], 2).toString(),"
    " c.toJSON(), JSON.stringify(Buffer.from('hi'))]; })()",
    "(() => { const b = Buffer.alloc(8); b.writeUInt32BE(0xdeadbeef, 0); b.writeInt16LE(-2, 4);"
    " return [b.toString('hex'), b.readUInt32BE(0), b.readInt16LE(4), b.readUInt8(0),"
    " b.slice(0, 2).toString('hex'), b.subarray(1, 3).length]; })()",
    "(() => { const b = Buffer.from('abcabc'); return [b.indexOf('c'), b.lastIndexOf('b'),"
    " b.includes('ca'), b.indexOf(99, 3), Buffer.compare(b, Buffer.from('abd')),"
    " b.equals(Buffer.from('abcabc'))]; })()",
    "[Buffer.from('x', 5).toString(), Buffer.from('x', '').toString('utf8'),"
    " Buffer.alloc(3, 'ab', 'latin1').toString()]",
    "(() => { try { Buffer.from('x', 'klingon'); } catch (e) { return [e.name, e.code]; } })()",
    "[typeof queueMicrotask, typeof setImmediate, typeof Intl.DateTimeFormat,"
    " new Intl.NumberFormat('en-US').format(1234567.891), global === globalThis]",
]


def _in_sandbox(expressions: list[str]) -> list[object]:
    code = "function f() { return [" + ",\n".join(expressions) + "].map(x => JSON.stringify(x)); }"
    test = TestCase("call", args=(), expected=1, has_expected=True)
    result = JAVASCRIPT.run(code, [test], "f", Limits())
    outcome = result.tests[0]
    assert outcome.exc_type is None, outcome.exc_message
    return [json.loads(text) for text in json.loads(outcome.output or "null")]


def _in_node(node: node_sandbox.NodeBinary, expressions: list[str]) -> list[object]:
    """Node's own answers: the test's own expressions, never a version's."""
    program = ("console.log(JSON.stringify([" + ",\n".join(expressions)
               + "].map(x => JSON.stringify(x))))")
    out = subprocess.run([node.path, "-e", program], capture_output=True, text=True,
                         timeout=60, check=True).stdout
    return [json.loads(text) for text in json.loads(out)]


def test_every_global_gives_what_node_gives(node_sandboxed: node_sandbox.NodeBinary) -> None:
    ours, nodes = _in_sandbox(EXPRESSIONS), _in_node(node_sandboxed, EXPRESSIONS)
    for expression, got, expected in zip(EXPRESSIONS, ours, nodes, strict=True):
        assert got == expected, expression


def test_a_version_that_encodes_text_gives_nodes_bytes(
        node_sandboxed: node_sandbox.NodeBinary) -> None:
    """A whole version, run as a version is run: its value in the canonical form."""
    code = ("function f(s) { return Array.from(new TextEncoder().encode(s)).map("
            "b => b.toString(16).padStart(2, '0')).join(''); }")
    test = TestCase("call", args=("na\u00efve \u2603",), expected="", has_expected=True)
    [outcome] = JAVASCRIPT.run(code, [test], "f", Limits()).tests
    assert json.loads(outcome.output or "") == "na\u00efve \u2603".encode().hex()


@pytest.mark.parametrize("name", ["Buffer", "URL", "URLSearchParams", "TextEncoder",
                                  "TextDecoder", "structuredClone", "setImmediate"])
def test_the_globals_are_writable_like_nodes(name: str, node_sandboxed: object) -> None:
    code = f"function f() {{ globalThis.{name} = 1; return {name}; }}"
    test = TestCase("call", args=(), expected=1, has_expected=True)
    assert JAVASCRIPT.run(code, [test], "f", Limits()).tests[0].passed is True


def test_nodes_other_console_methods_print_without_failing(node_sandboxed: object) -> None:
    """A version that reports with ``console.table``, ``assert``, ``count``, ``time`` or
    ``group`` returns its value, as under Node, instead of raising TypeError."""
    code = ("function f(xs) { console.table(xs); console.assert(xs.length > 9, 'short');"
            " console.count(); console.time('t'); console.group('g'); console.groupEnd();"
            " console.timeEnd('t'); console.dir(xs, { depth: 0 }); console.trace('here');"
            " return xs.length; }")
    test = TestCase("call", args=([1, 2],), expected=2, has_expected=True)
    [outcome] = JAVASCRIPT.run(code, [test], "f", Limits()).tests
    assert outcome.passed is True and outcome.exc_type is None


#: What Node 22 added to JavaScript's library, as versions written for it use it.
NEWER = [
    "Object.entries(Object.groupBy([1, 2, 3, 4, 5], (x, i) => (x % 2 ? 'odd' : 'even') + i % 2))",
    "[...Map.groupBy([1.5, -0, 0, 2.5], (x) => Math.floor(x))].map(([k, v]) => [Object.is(k, -0),"
    " k, v])",
    "(() => { const o = Object.groupBy('abca', (c) => c); return [Object.getPrototypeOf(o),"
    " Object.keys(o), o.a]; })()",
    "(() => { const { promise, resolve } = Promise.withResolvers(); resolve(1);"
    " return [typeof promise.then, typeof resolve]; })()",
    "(() => { const a = new Set([1, 2, 3, 4]), b = new Set([5, 4, 3]);"
    " return [[...a.union(b)], [...a.intersection(b)], [...b.intersection(a)],"
    " [...a.difference(b)], [...b.difference(a)], [...a.symmetricDifference(b)],"
    " a.isSubsetOf(b), new Set([3]).isSubsetOf(b), a.isSupersetOf(new Set([1, 4])),"
    " a.isDisjointFrom(new Set([9])), b.isDisjointFrom(a)]; })()",
    "(() => { const like = { size: 2, has: (v) => v < 3, keys: () => [2, 1].values() };"
    " return [[...new Set([1, 5]).union(like)], [...new Set([0, 1, 2, 7]).intersection(like)],"
    " new Set([1]).isSubsetOf(like)]; })()",
    "(() => { try { new Set([1]).union([1]); } catch (e) { return e.name; } })()",
    "[Object.groupBy.name, Object.getOwnPropertyDescriptor(Object, 'groupBy').enumerable,"
    " Set.prototype.union.length]",
]


def test_newer_library_methods_give_what_node_22_gives(
        node_sandboxed: node_sandbox.NodeBinary) -> None:
    """The sandbox's Node may be 20: the context adds what Node 22 added, valued as the
    wheel's Node (24) values it."""
    reference = node_sandbox.wheel_node()
    if reference is None or reference.major < 22:
        pytest.skip("no Node 22 or later to compare with")
    ours, nodes = _in_sandbox(NEWER), _in_node(reference, NEWER)
    for expression, got, expected in zip(NEWER, ours, nodes, strict=True):
        assert got == expected, expression


def test_every_version_runs_at_one_instant_with_one_seeded_chance(
        node_sandboxed: object) -> None:
    """Identical versions that read the time or draw a random number agree: the clock
    stands at 2025-01-01T12:00:00Z (moved on only by the timers' own clock) and
    ``Math.random`` starts one seeded sequence at each input; ``Date`` is still ``Date``."""
    from codequorum.behaviour.dynamic_analysis import DynamicOptions, run_dynamic
    from codequorum.core.model import VersionSet
    code = ("/**\n * @example stamp(1)\n */\nfunction stamp(x) { class D extends Date {}\n"
            "  return [x, Date.now(), new Date().toISOString(), new D().getFullYear(),\n"
            "    new Date(2020, 1, 1).getMonth(), new Date() instanceof Date, Date.name,\n"
            "    Date.length, typeof Date(), Math.random() < 1,\n"
            "    Math.random() !== Math.random()];\n}")
    report = run_dynamic(VersionSet.from_codes("t", [code, code], language="javascript",
                                               entry_point="stamp"),
                         DynamicOptions(hypothesis_examples=2, scaling=False))
    assert report.output_clusters == [[0, 1]] and report.rules.divergence is None
    first = report.outcomes[0][0]
    assert first is not None and json.loads(first[0] or "") == [
        1, 1735732800000, "2025-01-01T12:00:00.000Z", 2025, 1, True, "Date", 7, "string", True,
        True]
    waited = ("async function later() {\n  const t = Date.now();\n"
              "  await new Promise((r) => setTimeout(r, 250));\n  return Date.now() - t;\n}")
    [outcome] = JAVASCRIPT.run(waited, [TestCase("call", args=())], "later", Limits()).tests
    assert outcome.output == "250"


def test_random_values_draw_from_the_seeded_sequence(node_sandboxed: object) -> None:
    """``crypto.randomUUID`` and ``getRandomValues`` (global and of ``require('crypto')``,
    with ``randomBytes`` and ``randomInt``) draw from the seeded sequence: identical
    versions agree on each input, inputs differ from each other, the values have Node's
    forms and its refusals."""
    from codequorum.behaviour.dynamic_analysis import DynamicOptions, run_dynamic
    from codequorum.core.model import VersionSet
    code = ("/**\n * @example ids(1)\n * @example ids(2)\n */\n"
            "function ids(n) {\n  const bytes = crypto.getRandomValues(new Uint8Array(n));\n"
            "  return [crypto.randomUUID(), Array.from(bytes), bytes.length];\n}")
    report = run_dynamic(VersionSet.from_codes("t", [code, code], language="javascript",
                                               entry_point="ids"),
                         DynamicOptions(hypothesis_examples=0, scaling=False))
    assert report.output_clusters == [[0, 1]] and report.rules.divergence is None
    first, second = (json.loads(row[0] or "") for row in report.outcomes[0][:2] if row)
    assert first != second
    uuid, octets, length = first
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}",
                        uuid)
    assert length == 1 and all(0 <= b < 256 for b in octets)
    forms = _in_sandbox([
        "[__codequorum_crypto.randomBytes(3).length, __codequorum_crypto.randomInt(5, 6),"
        " __codequorum_crypto.randomInt(1), Buffer.isBuffer(__codequorum_crypto.randomBytes(0))]",
        "(() => { try { __codequorum_crypto.randomInt(3, 3); }"
        " catch (e) { return [e.name, e.code]; } })()",
        "(() => { try { __codequorum_crypto.randomBytes(-1); }"
        " catch (e) { return [e.name, e.code]; } })()",
        "typeof crypto.subtle",
        "(() => { try { crypto.getRandomValues(new Float64Array(2)); }"
        " catch (e) { return [e.name, e.code]; } })()",
        "(() => { try { crypto.getRandomValues(new Uint8Array(65537)); }"
        " catch (e) { return e.name; } })()",
    ])
    assert forms == [[3, 5, 0, True], ["RangeError", "ERR_OUT_OF_RANGE"],
                     ["RangeError", "ERR_OUT_OF_RANGE"], "undefined",
                     ["TypeError", "ERR_INVALID_ARG_TYPE"], "RangeError"]
