"""Hostile JavaScript versions: every escape tried from inside the vm context and, where
one leads out of it, from Node itself; the kernel's walls hold."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
from typing import Any

import pytest

from codequorum.behaviour.runtimes import node_sandbox
from codequorum.behaviour.runtimes.node import JAVASCRIPT, static_counts_js
from codequorum.behaviour.sandbox.limits import Limits
from codequorum.core.model import TestCase

#: From inside the context, ``process`` through the constructor of a harness object.
ESCAPE = "const P = this.constructor.constructor('return process')();"


DEFAULT = Limits()


def run(code: str, limits: Limits = DEFAULT, args: tuple[object, ...] = ()) -> Any:
    test = TestCase("call", args=args, expected=1, has_expected=True)
    return JAVASCRIPT.run(code, [test], "f", limits)


def test_no_process_require_or_console_of_the_host(node_sandboxed: object) -> None:
    """``require`` is the context's own (``modules.js``): it gives ``path`` and nothing
    that reaches the host; no ``process`` at all."""
    code = """function f() {
      const refused = ['fs', 'node:child_process', 'net', 'worker_threads', 'vm', 'module',
        'inspector', '/etc/passwd', './x'].map((m) => {
          try { require(m); return 'loaded ' + m; } catch (e) { return e.code; } });
      return [typeof process, typeof module.require, typeof globalThis.process,
        String(Object.getOwnPropertyNames(globalThis).includes('process')),
        typeof require.constructor.constructor('return this.process')(),
        typeof require('assert').AssertionError.constructor('return this.process')(),
        typeof require('events').prototype.on.constructor('return this.process')(),
        typeof require('util').promisify.constructor('return this.process')(),
        require('path').extname('a.b'), typeof require('lodash').chunk, ...refused]; }"""
    result = run(code)
    assert json.loads(result.tests[0].output or "null") == [
        "undefined", "undefined", "undefined", "false", "undefined", "undefined", "undefined",
        "undefined", ".b", "function",
        *["MODULE_NOT_FOUND"] * 9]


def test_constructor_constructor_reaches_only_the_contexts_own_realm(
        node_sandboxed: object) -> None:
    code = "function f() { " + ESCAPE + " return typeof P; }"
    got = run(code).tests[0]
    assert got.exc_type == "ReferenceError"
    assert (got.exc_message or "").startswith("process is not defined (versions run in a bare")
    args_escape = """function f(a) { const P = a.constructor.constructor('return this.process')();
      return typeof P; }"""
    assert run(args_escape, args=([1, 2],)).tests[0].output == '"undefined"'


def test_prototype_pollution_does_not_change_the_harness(node_sandboxed: object) -> None:
    code = """function f() {
      JSON.stringify = () => '1'; Array.prototype.push = () => 0; Object.keys = () => [];
      Object.prototype.toJSON = () => 1; return 2; }"""
    result = run(code)
    assert result.status == "ok" and result.tests[0].passed is False


def test_an_infinite_loop_is_a_timeout(node_sandboxed: object) -> None:
    result = run("function f() { for (;;) {} }", Limits(wall_seconds=5, cpu_seconds=5,
                                                        test_seconds=1))
    assert result.tests[0].exc_type == "Timeout" and result.tests[0].passed is False


def test_an_endless_chain_of_microtasks_is_a_timeout(node_sandboxed: object) -> None:
    result = run("async function f() { for (;;) await null; }",
                 Limits(wall_seconds=5, cpu_seconds=5, test_seconds=1))
    assert result.tests[0].exc_type == "Timeout"


def test_a_memory_bomb_is_stopped(node_sandboxed: object) -> None:
    code = "function f() { const a = []; for (;;) a.push(new Array(1e6).fill(1)); }"
    result = run(code, Limits(wall_seconds=30, cpu_seconds=30, memory_mb=128))
    assert result.status in ("memory", "timeout") or result.status.startswith("crashed")
    assert not any(t.passed for t in result.tests)


def host_level(node: node_sandbox.NodeBinary, code: str) -> subprocess.CompletedProcess[str]:
    """``code`` as Node's own code (``process``, ``require``) in the same walls as a version:
    the sandbox's command line with ``-e code`` in place of the harness."""
    argv = [*node_sandbox.command(node, Limits(), 1)[:-2], "-e", code]
    return subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)


@pytest.mark.parametrize("what", [
    "require('child_process').execSync('id').toString()",
    "require('child_process').spawnSync('/usr/bin/id').stdout.toString()",
    "require('child_process').spawnSync('/usr/bin/id', {stdio: 'ignore'}).status",
    "require('fs').writeFileSync('/usr/pwned', 'x') || 'wrote'",
    "require('fs').readFileSync('/etc/shadow', 'utf8')",
])
def test_node_itself_starts_no_process_and_writes_nothing(
        node_sandboxed: node_sandbox.NodeBinary, what: str) -> None:
    """Even with the real ``process`` and ``require`` (a version that left its context),
    no process starts (clone without CLONE_THREAD kills) and the host's files stay."""
    done = host_level(node_sandboxed, f"try {{ console.log('GOT ' + {what}); }} "
                                      "catch (e) { console.log('REFUSED ' + e.code); }")
    assert "GOT" not in done.stdout
    assert "uid=" not in done.stdout
    assert "REFUSED" in done.stdout or done.returncode == 128 + signal.SIGSYS


def test_a_worker_thread_is_a_thread_in_the_same_walls(
        node_sandboxed: node_sandbox.NodeBinary) -> None:
    code = ("const { Worker } = require('worker_threads');"
            "const w = new Worker(\"try { require('child_process').spawnSync('/usr/bin/id',"
            " {stdio: 'ignore'}); console.log('SPAWNED'); } catch (e) { console.log('NO'); }\","
            " {eval: true}); w.on('exit', () => console.log('EXITED'));")
    done = host_level(node_sandboxed, code)
    assert "SPAWNED" not in done.stdout


def test_node_itself_opens_no_socket(node_sandboxed: node_sandbox.NodeBinary,
                                     listener: socket.socket) -> None:
    port = listener.getsockname()[1]
    code = (f"const s = require('net').connect({port}, '127.0.0.1');"
            "s.on('connect', () => console.log('CONNECTED'));"
            "s.on('error', (e) => console.log('REFUSED ' + e.code));")
    done = host_level(node_sandboxed, code)
    assert "CONNECTED" not in done.stdout
    with pytest.raises(OSError):
        listener.accept()


def test_node_itself_runs_as_nobody_without_capabilities(
        node_sandboxed: node_sandbox.NodeBinary) -> None:
    code = ("console.log(process.getuid(), require('fs').readFileSync('/proc/self/status', 'utf8')"
            ".split('\\n').filter(l => l.startsWith('CapEff') || l.startsWith('Seccomp:'))"
            ".join(' '))")
    done = host_level(node_sandboxed, code)
    assert "CapEff:\t0000000000000000" in done.stdout
    assert "Seccomp:\t2" in done.stdout
    assert not done.stdout.startswith("0 ")


def test_sockets_files_and_workers_are_walled(node_sandboxed: object,
                                             listener: socket.socket) -> None:
    port = listener.getsockname()[1]
    code = f"""function f() {{
      const out = [];
      try {{ eval('require')('net'); out.push('require'); }}
      catch (e) {{ out.push('no-require'); }}
      try {{ import('net').then(() => 0); out.push('import'); }}
      catch (e) {{ out.push('no-import'); }}
      return out.concat([{port} > 0]); }}"""
    result = run(code)
    assert result.tests[0].output.startswith('["no-require"')
    listener.settimeout(0.5)
    with pytest.raises(OSError):
        listener.accept()


def test_a_forged_frame_on_stdout_counts_for_nothing(node_sandboxed: object) -> None:
    code = """function f() { console.log('\\u0000\\u0000\\u0000\\u0020{"v":1,"type":"done"}');
      return 5; }"""
    result = run(code)
    assert result.status == "ok" and result.tests[0].output == "5"
    assert result.tests[0].passed is False


def test_a_huge_string_and_a_strange_entry_point_are_bounded(node_sandboxed: object) -> None:
    huge = run("function f() { return 'x'.repeat(50 * 1024 * 1024); }",
               Limits(wall_seconds=30, cpu_seconds=30))
    assert huge.status == "ok"
    assert huge.tests[0].output.startswith('{"$":"truncated","v":"xxx')
    assert huge.tests[0].output.endswith('"length":52428800}')
    test = TestCase("call", args=(), expected=1, has_expected=True)
    odd = JAVASCRIPT.run("function f() { return 1; }", [test], "f; globalThis.x = 1", Limits())
    assert odd.status == "error" and "not a function name" in odd.detail


#: A method name that imitates V8's printout: its first line a whole header, then a forged
#: function of 40 ``Debugger`` bytecodes, then a line that reads as a bytecode too.
FORGED_FN = "\n".join(["x (0x1 <SharedFunctionInfo x>)]",
                        "[generated bytecode for function: g (0x2 <SharedFunctionInfo g>)]",
                        *[f"         0x{i + 16:x} @ {i:4d} : 89                Debugger"
                          for i in range(40)],
                        "         0x9 @   41 : a9                Return"])
FORGED_NAME = json.dumps(FORGED_FN)
LOOP = "function f(a, b) { let s = 0; for (let i = 0; i < a; i++) s += i * b; return s; }"


def _hostile(key: str) -> str:
    return ("function f(n) { const o = { " + key + "() { return 1; } }; let s = 0;"
            " for (let i = 0; i < n; i++) s += o[" + key + "](); return s; }")


def test_a_name_imitating_a_header_forges_no_static_counts_and_costs_no_other(
        node_sandboxed: object) -> None:
    inferred = ("function f(n) { const o = {}; o[" + FORGED_NAME + "] = function () {"
                " return 1; }; return n; }")
    templated = "function f(n) { const o = {}; o[`" + FORGED_FN + "`] = () => 1; return n; }"
    plain = [_hostile('"x"'), inferred.replace(FORGED_NAME, '"x"'),
             templated.replace(FORGED_FN, "x")]
    got = static_counts_js([LOOP, _hostile(FORGED_NAME), inferred, templated, "function ("])
    alone = static_counts_js([LOOP, *plain])
    assert got[0] == alone[0]  # the honest version keeps its own counts
    assert got[1:4] == alone[1:4]  # each hostile one counts what it compiles, nothing forged
    assert all(c is not None and "Debugger" not in c for c in got[1:4])
    assert got[4] is None


def test_a_name_imitating_a_header_forges_no_traced_counts(node_sandboxed: object) -> None:
    test = TestCase("call", args=(3,), name="f")
    hostile = node_sandbox.run_node_candidate(_hostile(FORGED_NAME), [test], "f", Limits(),
                                              trace=True)
    assert hostile.status == "ok" and hostile.tests[0].output == "3"
    assert hostile.tests[0].opcodes is None  # refused, never counted as forged
    honest = node_sandbox.run_node_candidate(
        'function f(n) { return "a\\nb".split("\\n").length + n; }', [test], "f",
        Limits(), trace=True)
    assert honest.tests[0].output == "5"
    assert honest.tests[0].opcodes is not None and "Debugger" not in honest.tests[0].opcodes


def test_a_forged_number_past_a_double_grades_as_a_wrong_value(
        node_sandboxed: node_sandbox.NodeBinary) -> None:
    """Node 22 and later have ``JSON.rawJSON``: a version that gives the canonical form a
    ``toJSON`` of its own writes any number text, a 400-digit integer no JavaScript value
    gives, and grading it raised OverflowError in the runner (the run lost). Such a text is
    no canonical value: the test fails."""
    node = node_sandbox.wheel_node()
    if node is None or node.major < 22:
        pytest.skip("no Node with JSON.rawJSON here")
    code = """function f(n) {
      const raw = JSON.rawJSON;
      Object.prototype.toJSON = function () {
        return ('$' in this) ? raw('1' + '0'.repeat(400)) : this; };
      return {a: 1};
    }"""
    test = TestCase("call", args=(1,), expected=1, has_expected=True)
    result = node_sandbox.run_node_candidate(code, [test], "f", Limits(wall_seconds=20),
                                             node=node)
    assert result.status == "ok", result.detail
    [outcome] = result.tests
    assert outcome.passed is False
    assert outcome.output == "1" + "0" * 400


@pytest.mark.parametrize("forged", ['{"$": "object", "v": [1]}', '{"$": "map", "v": [1]}',
                                    '{"$": "set", "v": 5}'])
def test_a_forged_canonical_form_costs_only_its_own_version(
        node_sandboxed: node_sandbox.NodeBinary, forged: str) -> None:
    """A ``toJSON`` of the version's on ``Object.prototype`` writes a canonical form no value
    gives; showing it in a message raised TypeError and cost the function its whole analysis
    (every version's results). It is shown as it came, and graded as a wrong value."""
    from codequorum.behaviour.runtimes import js_values

    code = ("function f(n) { const forged = " + forged + "; Object.prototype.toJSON = "
            "function () { return ('$' in this && this !== forged) ? forged : this; };"
            " return {a: 1}; }")
    result = run(code, args=(1,))
    [outcome] = result.tests
    assert (result.status, outcome.passed) == ("ok", False)
    assert outcome.output == forged.replace(" ", "")
    assert js_values.shown_text(outcome.output) == outcome.output


def test_the_traced_runs_generator_wrappers_lead_nowhere_out(node_sandboxed: object) -> None:
    """A traced run wraps the context's generator ``return`` and ``throw``: they are the
    context's own functions, and calling them on anything (a proxy whose traps throw, a
    number, a running generator) changes nothing outside the version's counts."""
    code = """function f() {
      const P = Object.getPrototypeOf(function* () {}).prototype;
      const out = [typeof P.return.constructor('return this.process')(), P.return.name,
        P.return.length];
      const trap = new Proxy({}, { ownKeys() { throw new Error('trap'); },
        get() { throw new Error('trap'); } });
      for (const bad of [trap, 1, null]) {
        try { P.return.call(bad, 0); } catch (e) { out.push(e instanceof TypeError); }
      }
      function* self() {
        try { g.return(1); } catch (e) { out.push(e instanceof TypeError); }
        yield 1; }
      const g = self(); g.next();
      return out; }"""
    test = TestCase("call", args=(), name="wrappers")
    result = node_sandbox.run_node_candidate(code, [test], "f", Limits(), trace=True)
    got = result.tests[0]
    assert result.status == "ok" and got.exc_type is None, (got.exc_type, got.exc_message)
    assert json.loads(got.output or "null") == ["undefined", "return", 1, True, True, True, True]
    assert got.opcodes is not None


#: Node's globals the context builds (``globals.js``), and what a version can make of them.
NEW_GLOBALS = ["Buffer", "URL", "URLSearchParams", "TextEncoder", "TextDecoder",
               "structuredClone", "setImmediate", "clearImmediate"]


def test_constructor_constructor_of_each_new_global_stays_in_the_context(
        node_sandboxed: object) -> None:
    """From each global, its instances and the errors its bridge to Node reports, the
    Function reached is the context's own: ``process`` is not there."""
    code = """function f() {
      const things = [Buffer, URL, URLSearchParams, TextEncoder, TextDecoder, structuredClone,
        setImmediate, clearImmediate, new URL('http://a/?b=1'), new URL('http://a/?b=1').searchParams,
        Buffer.from('x'), new TextEncoder(), new TextDecoder(), new URLSearchParams('a=1')];
      for (const make of [() => new URL('::'), () => new TextDecoder('x'),
          () => Buffer.from('x', 'y'), () => Buffer.alloc(-1),
          () => Buffer.alloc(2).readUInt32LE(0),
          () => new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array([255])),
          () => structuredClone(() => 1),
          () => { const u = new URL('http://a'); u.href = '::'; }]) {
        try { make(); things.push('no error'); } catch (e) { things.push(e); }
      }
      return things.map((t) => {
        try { return typeof t.constructor.constructor('return this.process')(); }
        catch (e) { return 'threw ' + e.name; }
      });
    }"""
    result = run(code)
    assert result.status == "ok", result.detail
    got = json.loads(result.tests[0].output)
    assert len(got) == 22 and set(got) == {"undefined"}


def test_nothing_a_version_reaches_belongs_to_the_harnesss_realm(node_sandboxed: object) -> None:
    """Every object reachable from the context's globals (values, getters, setters,
    prototypes), the new globals' instances and their errors: each prototype chain ends at
    the context's own ``Object.prototype`` (or has none), so none is the harness's."""
    code = """function f() {
      const roots = [globalThis, new URL('http://u:p@a:1/p?q=1#h'),
        new URL('http://a/?b=1').searchParams, Buffer.from('xy'), new TextEncoder(),
        new TextDecoder('latin1'), new URLSearchParams('a=1'), structuredClone({ a: [1] }),
        new TextEncoder().encode('x'), new TextEncoder().encodeInto('x', new Uint8Array(2))];
      for (const make of [() => new URL('::'), () => new TextDecoder('x'),
          () => Buffer.from('x', 'y'), () => structuredClone(() => 1)]) {
        try { make(); } catch (e) { roots.push(e); }
      }
      const seen = new Set();
      const queue = roots.slice();
      let foreign = 0;
      while (queue.length) {
        const o = queue.pop();
        if (o === null || (typeof o !== 'object' && typeof o !== 'function')) continue;
        if (seen.has(o)) continue;
        seen.add(o);
        let root = o;
        while (Object.getPrototypeOf(root) !== null) root = Object.getPrototypeOf(root);
        if (root !== o && root !== Object.prototype) foreign++;
        queue.push(Object.getPrototypeOf(o));
        for (const key of Reflect.ownKeys(o)) {
          const d = Object.getOwnPropertyDescriptor(o, key);
          if (d) queue.push(d.value, d.get, d.set);
        }
      }
      return [foreign, seen.size > 300];
    }"""
    result = run(code)
    assert result.status == "ok", result.detail
    assert result.tests[0].output == "[0,true]"


def test_the_bridge_answers_a_forged_request_with_text_only(node_sandboxed: object) -> None:
    """A version cannot reach the bridge, and what it hands the globals is made a string
    before it leaves the context: a ``toString`` that returns an object is refused here."""
    code = """function f() {
      const evil = { toString() { return { constructor: 1 }; } };
      const out = [];
      for (const make of [() => new URL(evil), () => Buffer.from('x', evil),
          () => new URLSearchParams(evil).toString()]) {
        try { out.push(String(make())); } catch (e) { out.push(e.name); }
      }
      return out;
    }"""
    result = run(code)
    assert result.status == "ok"
    url, buffer, form = json.loads(result.tests[0].output)
    assert url == "TypeError" and buffer == "x"  # an encoding not a string is UTF-8, as Node's
    assert form.startswith("toString=toString%28%29")
