"""Node's modules that only compute, in the version's context (``node_harness/builtins.js``):
``path`` and ``crypto``'s hashes give what Node's own give, asked of the same expressions in
a plain Node outside; a module's ``require('node:path')`` gets them, as does a version run
alone; nothing of the harness's realm is reached through them."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from codequorum.behaviour.dynamic_analysis import DynamicOptions, run_dynamic
from codequorum.behaviour.runtimes import node_sandbox
from codequorum.behaviour.runtimes.node import JAVASCRIPT
from codequorum.behaviour.sandbox.limits import Limits
from codequorum.core.model import TestCase, VersionSet
from codequorum.ingest.js_module_view import js_module_view

#: Expressions real code writes (``PATH`` and ``CRYPTO`` the modules), each the JSON text of
#: what it gives.
EXPRESSIONS = [
    "[PATH.join('a', '..', 'b/./c', 'd.txt'), PATH.join(), PATH.normalize('/x//y/../z/'),"
    " PATH.dirname('/a/b/c.d'), PATH.basename('/a/b/c.tar.gz', '.gz'), PATH.basename('x/'),"
    " PATH.extname('a/b.c.d'), PATH.extname('.rc'), PATH.isAbsolute('/a'),"
    " PATH.isAbsolute('a'), PATH.relative('/a/b/c', '/a/d'), PATH.sep, PATH.delimiter]",
    "[PATH.parse('/home/u/file.txt'), PATH.format({ dir: '/x', name: 'y', ext: '.z' }),"
    " PATH.format({ root: '/', base: 'b' }), PATH.posix === PATH.posix.posix]",
    "[PATH.win32.join('a', 'b', '..\\\\c'), PATH.win32.sep, PATH.win32.basename('C:\\\\x\\\\y.js'),"
    " PATH.win32.isAbsolute('C:\\\\a'), PATH.win32.parse('C:\\\\d\\\\e.f')]",
    "(() => { try { PATH.join('a', 1); } catch (e) { return [e.name, e.code]; } })()",
    "[CRYPTO.createHash('sha256').update('abc').digest('hex'),"
    " CRYPTO.createHash('md5').update('a').update(Buffer.from('b')).digest('base64'),"
    " CRYPTO.createHash('sha1').update('\\u00e9', 'latin1').digest().length,"
    " CRYPTO.createHmac('sha256', 'key').update('The quick brown fox').digest('hex'),"
    " CRYPTO.createHash('sha512').update(new Uint8Array([1, 2, 3])).digest('base64url')]",
    "(() => { const h = CRYPTO.createHash('sha256').update('a'); const c = h.copy();"
    " c.update('b'); return [h.digest('hex'), c.digest('hex')]; })()",
    "(() => { const h = CRYPTO.createHash('sha1'); h.digest();"
    " try { h.update('x'); } catch (e) { return [e.name, e.code]; } })()",
    "(() => { try { CRYPTO.createHash('nope'); } catch (e) { return e.name; } })()",
    "[CRYPTO.timingSafeEqual(Buffer.from('ab'), Buffer.from('ab')),"
    " CRYPTO.getHashes().includes('sha256')]",
]


def _with(expressions: list[str], path: str, crypto: str) -> list[str]:
    return [e.replace("PATH", path).replace("CRYPTO", crypto) for e in expressions]


def test_path_and_hashes_give_what_node_gives(node_sandboxed: node_sandbox.NodeBinary) -> None:
    ours = _with(EXPRESSIONS, "__codequorum_path", "__codequorum_crypto")
    code = "function f() { return [" + ",\n".join(ours) + "].map(x => JSON.stringify(x)); }"
    outcome = JAVASCRIPT.run(code, [TestCase("call", args=())], "f", Limits()).tests[0]
    assert outcome.exc_type is None, outcome.exc_message
    got = [json.loads(text) for text in json.loads(outcome.output or "null")]
    program = ("console.log(JSON.stringify([" + ",\n".join(
        _with(EXPRESSIONS, "require('path')", "require('crypto')"))
        + "].map(x => JSON.stringify(x))))")
    out = subprocess.run([node_sandboxed.path, "-e", program], capture_output=True, text=True,
                         timeout=60, check=True).stdout
    for expression, mine, nodes in zip(EXPRESSIONS, got, (json.loads(t) for t in json.loads(out)),
                                       strict=True):
        assert mine == nodes, expression


HASHED = """import { createHash } from 'node:crypto';
import path from 'path';

/** @example keyOf('a/b.txt') // => 'b-3e23e816' */
export function keyOf(file: string): string {
  const digest = createHash('sha256').update(path.basename(file, '.txt')).digest('hex');
  return path.basename(file, path.extname(file)) + '-' + digest.slice(0, 8);
}
"""


def test_a_module_requiring_path_and_crypto_loads_and_its_versions_run(
        node_sandboxed: object, tmp_path: Path) -> None:
    """``import { createHash } from 'node:crypto'`` and ``import path from 'path'``: the
    module loads; a relative path resolves against the workspace, not the sandbox's folder;
    a function of the module reaches no ``process`` of the harness through them."""
    (tmp_path / "keys.ts").write_text(HASHED)
    other = ("export function keyOf(file: string): string {\n"
             "  return path.resolve(file) + String(path.join.constructor("
             "'return typeof process.binding')());\n}")
    right = HASHED[HASHED.index("export function"):]
    ss = VersionSet.from_codes("t", [right, other], language="typescript", entry_point="keyOf",
                               prompt=HASHED)
    ss.module = js_module_view(HASHED, tmp_path / "keys.ts", tmp_path).context(
        "keyOf", "function")
    report = run_dynamic(ss, DynamicOptions(hypothesis_examples=0, scaling=False))
    assert report.rules.module_problem is None
    assert [row[0][0] if row[0] else None for row in report.outcomes] == [
        '"b-3e23e816"', '"/workspace/a/b.txtundefined"']
    assert [c.pass_rate for c in report.candidates] == [1.0, 0.0]


ALONE = [
    # an ES import and a require of the modules the sandbox gives
    HASHED[HASHED.index("export function"):].replace(
        "export function", "import { createHash } from 'node:crypto';\nimport path from "
        "'path';\nexport function"),
    "const path = require('node:path'), { createHash } = require('crypto');\n"
    + HASHED[HASHED.index("export function"):],
    # the guard of a script run directly: false for a version that is loaded
    HASHED + "\nif (require.main === module) { throw 1; }",
    # a package: a part that throws only when it is used
    "import _ from 'lodash';\nfunction keyOf(file) { return 1; }",
    "const _ = require('lodash');\nfunction keyOf(file) { return _.kebabCase(file); }",
    "const fs = require('fs');\nfunction keyOf(file) { return 1; }",
]


def test_versions_run_alone_require_the_modules_the_sandbox_gives(
        node_sandboxed: object) -> None:
    """Without a module, a version still imports or requires ``path`` and ``crypto``; a
    package gives a part that throws when used, and any other module a clear error."""
    ss = VersionSet.from_codes("t", ALONE, language="typescript", entry_point="keyOf",
                               prompt=HASHED)
    report = run_dynamic(ss, DynamicOptions(hypothesis_examples=0, scaling=False))
    assert [c.status for c in report.candidates] == ["ok"] * 5 + ["error"]
    assert [row[0][0] if row[0] else None for row in report.outcomes[:4]] == [
        '"b-3e23e816"', '"b-3e23e816"', '"b-3e23e816"', "1"]
    used = JAVASCRIPT.run(ALONE[4], [TestCase("call", args=("a.txt",))], "keyOf", Limits())
    assert "'lodash.kebabCase' of the package 'lodash', which is not in the sandbox" in (
        used.tests[0].exc_message or "")
    assert "Cannot find module 'fs' in the sandbox" in report.candidates[5].detail


#: Checks real code writes with ``assert`` (``A``; ``S`` is ``assert/strict``): each passes
#: or throws, and what it throws is compared by name, code and operator.
ASSERTS = [
    "A(1)", "A(0)", "A.ok('')", "A.ok(0, new TypeError('mine'))", "A.equal(1, '1')",
    "A.equal(NaN, NaN)", "A.equal(1, 2)", "A.notEqual(1, '1')", "A.strictEqual(1, '1')",
    "A.strictEqual(NaN, NaN)", "A.strictEqual(-0, 0)", "A.notStrictEqual(1, 2)",
    "A.deepEqual({a: [1, 2]}, {a: [1, '2']})", "A.deepStrictEqual({a: [1, 2]}, {a: [1, '2']})",
    "A.deepStrictEqual({a: [1, 2]}, {a: [1, 2]})", "A.deepStrictEqual([1, , 3], [1, undefined, 3])",
    "A.deepStrictEqual(new Map([[1, {x: 1}]]), new Map([[1, {x: 1}]]))",
    "A.deepStrictEqual(new Set([{a: 1}, 2]), new Set([2, {a: 1}]))",
    "A.deepStrictEqual(new Set([{a: 1}]), new Set([{a: 2}]))",
    "A.deepStrictEqual(new Date(5), new Date(5))", "A.deepStrictEqual(/a/g, /a/i)",
    "A.deepStrictEqual(Object.create(null), {})", "A.deepEqual(Object.create(null), {})",
    "A.deepStrictEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2]))",
    "(() => { const a = {}; a.self = a; const b = {}; b.self = b; A.deepStrictEqual(a, b); })()",
    "A.notDeepStrictEqual([1], [1])", "A.deepStrictEqual([0], [-0])", "A.deepEqual([0], [-0])",
    "A.throws(() => { throw new TypeError('x'); }, TypeError)",
    "A.throws(() => { throw new TypeError('bad x'); }, /bad/)",
    "A.throws(() => { throw new TypeError('x'); }, RangeError)",
    "A.throws(() => 1)", "A.throws(() => { throw new Error('m'); }, { message: 'm' })",
    "A.throws(() => { throw new Error('m'); }, { message: 'n' })",
    "A.throws(() => { throw new Error('m'); }, (e) => e.message === 'm')",
    "A.doesNotThrow(() => { throw new Error('m'); })", "A.fail('boom')", "A.match('abc', /b/)",
    "A.match('abc', /d/)", "A.doesNotMatch('abc', /d/)", "A.ifError(null)",
    "A.ifError(new Error('e'))", "S.equal(1, '1')", "S.deepEqual([1], ['1'])",
    "S.deepEqual([1], [1])", "A.strictEqual(1, 2, 'said')",
]


def _checked(expressions: list[str], assert_: str, strict: str) -> str:
    body = ", ".join(
        "(() => { try { " + e.replace("A", assert_, 1).replace("S.", strict + ".", 1)
        + "; return 'passed'; } catch (e) { return [e.name, e.code, e.operator, "
        "e.generatedMessage, e instanceof (" + assert_ + ").AssertionError]; } })()"
        for e in expressions)
    return "[" + body + "]"


def test_assert_checks_as_node_checks(node_sandboxed: node_sandbox.NodeBinary) -> None:
    """``require('assert')`` inside the context passes and fails where Node's does, with
    the same error's name, code, operator and whether its message was given."""
    ours = _checked(ASSERTS, "require('assert')", "require('node:assert/strict')")
    code = "function f() { return JSON.stringify(" + ours + "); }"
    outcome = JAVASCRIPT.run(code, [TestCase("call", args=())], "f", Limits()).tests[0]
    assert outcome.exc_type is None, outcome.exc_message
    got = json.loads(json.loads(outcome.output or "null"))
    program = "console.log(JSON.stringify(" + _checked(
        ASSERTS, "require('assert')", "require('assert/strict')") + "))"
    out = subprocess.run([node_sandboxed.path, "-e", program], capture_output=True, text=True,
                         timeout=60, check=True).stdout
    differ = [(e, mine, nodes) for e, mine, nodes in zip(ASSERTS, got, json.loads(out),
                                                          strict=True) if mine != nodes]
    assert differ == [], "\n".join(map(str, differ))
    assert got.count("passed") == 22


#: Programs real modules run with ``events`` (``EE``) and ``util`` (``UU``), each giving a
#: JSON-able value; compared with what Node's own modules give.
EVENTS_AND_UTIL = [
    """(() => { const e = new EE(); const out = [];
      e.on('a', function (x) { out.push(['on', x, this === e]); });
      e.prependListener('a', (x) => out.push(['first', x]));
      e.once('a', (x) => out.push(['once', x]));
      return [e.emit('a', 1), e.emit('a', 2), e.emit('b'), e.listenerCount('a'), out,
        e.eventNames(), e.getMaxListeners(), EE.defaultMaxListeners]; })()""",
    """(() => { const e = new EE(); const f = () => 1; const seen = [];
      e.on('newListener', (t) => seen.push('new ' + t));
      e.on('removeListener', (t) => seen.push('removed ' + t));
      e.once('x', f); const before = [e.listeners('x').length, e.listeners('x')[0] === f,
        e.rawListeners('x')[0] === f];
      e.off('x', f); return [before, e.listenerCount('x'), seen]; })()""",
    """(() => { const e = new EE(); try { e.emit('error', new TypeError('t')); }
      catch (err) { var a = [err.name, err.message]; }
      try { e.emit('error', 'plain'); } catch (err) { var b = [err.code]; }
      try { e.on('x', 1); } catch (err) { var c = [err.name, err.code]; }
      return [a, b, c, e.removeAllListeners() === e]; })()""",
    """(() => { class Bus extends EE { constructor() { super(); this.n = 0; }
        bump() { this.n++; this.emit('bumped', this.n); return this; } }
      function Old() { EE.call(this); } UU.inherits(Old, EE);
      const b = new Bus(); const got = []; b.on('bumped', (n) => got.push(n)); b.bump().bump();
      const o = new Old(); o.on('z', () => got.push('z')); o.emit('z');
      return [got, o instanceof EE, Old.super_ === EE, EE.EventEmitter === EE]; })()""",
    """[UU.isDeepStrictEqual({a: [1, new Map([[1, 2]])]}, {a: [1, new Map([[1, 2]])]}),
      UU.isDeepStrictEqual([1], ['1']), UU.types.isDate(new Date()), UU.types.isRegExp(/a/),
      UU.types.isPromise(Promise.resolve()), UU.types.isMap(new Map()), UU.types.isSet([]),
      UU.types.isAsyncFunction(async () => 1), UU.types.isGeneratorFunction(function* () {}),
      UU.types.isTypedArray(new Uint8Array(1)), UU.types.isTypedArray([]),
      UU.types.isNativeError(new RangeError()), UU.types.isBoxedPrimitive(Object(1)),
      UU.isArray([]), typeof UU.promisify.custom, UU.deprecate((x) => x + 1, 'old')(1),
      UU.inspect.custom === Symbol.for('nodejs.util.inspect.custom')]""",
]


def test_events_and_util_give_what_nodes_give(node_sandboxed: node_sandbox.NodeBinary) -> None:
    """``require('events')`` and ``require('util')`` inside the context behave as Node's
    on what real modules do with them; ``util.promisify`` settles as Node's."""
    programs = "[" + ", ".join(EVENTS_AND_UTIL) + "]"
    code = ("function f() { const EE = require('events'), UU = require('node:util');\n"
            "return " + programs + "; }")
    outcome = JAVASCRIPT.run(code, [TestCase("call", args=())], "f", Limits()).tests[0]
    assert outcome.exc_type is None, outcome.exc_message
    got = json.loads(outcome.output or "null")
    program = ("const EE = require('events'), UU = require('util');\n"
               "console.log(JSON.stringify(" + programs + "))")
    out = subprocess.run([node_sandboxed.path, "-e", program], capture_output=True, text=True,
                         timeout=60, check=True).stdout
    assert got == json.loads(out)
    assert got[0][:4] == [True, True, False, 2]  # emitted, emitted, no listener, two left
    promised = ("async function f(x) { const later = (v, cb) => cb(v < 0 ? new Error('neg') : null,"
                " v * 2); const p = require('util').promisify(later);"
                " try { return [await p(x), await p(-1)]; } catch (e) { return e.message; } }")
    result = JAVASCRIPT.run(promised, [TestCase("call", args=(3,))], "f", Limits()).tests[0]
    assert result.output == '"neg"'
    told = JAVASCRIPT.run("function f(x) { return require('util').inspect(x); }",
                          [TestCase("call", args=(3,))], "f", Limits()).tests[0]
    assert told.exc_message == ("'util.inspect' of Node's module 'util', which the sandbox "
                                "does not build")
