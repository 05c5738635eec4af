// The Node side of a sandboxed run: loaded by path, Node's standard library only.
//
// The parent sends one framed ``run`` message on stdin (4-byte big-endian length, UTF-8
// JSON, as ``protocol.py``); this script answers with framed messages on the descriptor
// given as its first argument, never on stdout. Two modes:
//
// - ``run``: the version is compiled in a fresh ``vm`` context; every input is decoded
//   inside that context (an object made out here would lead back to ``process`` through
//   ``constructor.constructor``), the version called there and its value written there in
//   the canonical form (``values.js``): only strings cross between the two realms.
//   The parent grades: expected values never come here. With ``trace``, each test's
//   block coverage too (``startTrace``).
// - ``counts``: each version is compiled (``new vm.Script``), never run, with V8 printing
//   its Ignition bytecode on stdout; a marker function with a random name closes each
//   version's part of the printout.
'use strict';

const fs = require('fs');
const vm = require('vm');
const path = require('path');

const MSG_FD = Number(process.argv[2]);
const VALUES_SRC = fs.readFileSync(path.join(__dirname, 'values.js'), 'utf8');
const MODULES_SRC = fs.readFileSync(path.join(__dirname, 'modules.js'), 'utf8');
const GLOBALS_SRC = fs.readFileSync(path.join(__dirname, 'globals.js'), 'utf8');
const NEWER_SRC = fs.readFileSync(path.join(__dirname, 'newer.js'), 'utf8');
const BUILTINS_SRC = fs.readFileSync(path.join(__dirname, 'builtins.js'), 'utf8');
const { bridge } = require(path.join(__dirname, 'bridge.js'));
const { watchIterators } = require(path.join(__dirname, 'iterators.js'));
const MAX_OUTPUT = 512 * 1024;
// Timers an async version's promise may wait on before it is called pending.
const MAX_TICKS = 256;
// The shortest a test's budget gets after tests before it overran (ms), as Python's child.
const SHORTEST_TEST_MS = 250;
// The layers the launcher put in place (``launch.py``), then out of the environment.
const LAYERS = String(process.env.CODEQUORUM_LAYERS || '').split(',').filter(Boolean);
delete process.env.CODEQUORUM_LAYERS;

function send(message) {
  const body = Buffer.from(JSON.stringify({ v: 1, ...message }), 'utf8');
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length, 0);
  const whole = Buffer.concat([head, body]);
  let off = 0;
  while (off < whole.length) off += fs.writeSync(MSG_FD, whole, off, whole.length - off);
}

function readRun() {
  const chunks = [];
  const buf = Buffer.alloc(65536);
  for (;;) {
    let n;
    try {
      n = fs.readSync(0, buf, 0, buf.length, null);
    } catch (err) {
      if (err.code === 'EAGAIN') continue;
      if (err.code === 'EOF') break;
      throw err;
    }
    if (n === 0) break;
    chunks.push(Buffer.from(buf.subarray(0, n)));
  }
  const data = Buffer.concat(chunks);
  const size = data.readUInt32BE(0);
  return JSON.parse(data.subarray(4, 4 + size).toString('utf8'));
}

// ---------------------------------------------------------------------------- trace
// With ``trace``: precise block coverage is on before the version compiles (so its
// bytecode holds the counters), its bytecode is printed on stdout as it compiles, between
// two marker functions of a random name, and each test's outcome carries the coverage of
// the traced script's functions run during that test only (``[name, ranges]``, a range
// ``[start, end, count]``, the function's own first), and where the calls of a generator's
// ``return`` and ``throw`` went (``iterators.js``). The parent turns them into executed
// bytecodes (``node_trace.py``).
function startTrace(ctx) {
  const inspector = require('inspector');
  const v8 = require('v8');
  const crypto = require('crypto');
  const session = new inspector.Session();
  session.connect();
  const post = (method, params) => {
    let out = null;
    let failed = null;
    session.post(method, params || {}, (err, res) => { failed = err; out = res; });
    if (failed) throw failed;
    return out;
  };
  post('Profiler.enable');
  post('Profiler.startPreciseCoverage', { callCount: true, detailed: true });
  const warm = '__codequorum_warm_' + crypto.randomBytes(4).toString('hex');
  new vm.Script('function ' + warm + '(a) { return a + 1; }', { filename: 'warm.js' });
  const marker = '__codequorum_mark_' + crypto.randomBytes(8).toString('hex');
  let url = null;
  let source = '';
  let scriptId = null;
  let iterators = null;
  return {
    marker,
    // Compile with the bytecode printed (``make`` compiles the traced script named ``name``
    // and gives it with its text).
    printed(name, make) {
      url = name;
      iterators = watchIterators(ctx, post, name);
      v8.setFlagsFromString('--no-lazy');
      v8.setFlagsFromString('--print-bytecode');
      new vm.Script('function ' + marker + '_begin() {}', { filename: 'mark.js' });
      try {
        const made = make();
        source = made.source || '';
        return made;
      } finally {
        new vm.Script('function ' + marker + '_end() {}', { filename: 'mark.js' });
        v8.setFlagsFromString('--no-print-bytecode');
        v8.setFlagsFromString('--lazy');
      }
    },
    reset() {
      post('Profiler.takePreciseCoverage');
      if (iterators) iterators.reset();
    },
    take() {
      const got = post('Profiler.takePreciseCoverage');
      const out = [];
      for (const script of (got && got.result) || []) {
        if (script.url !== url) continue;
        scriptId = script.scriptId;
        for (const fn of script.functions) {
          if (!fn.ranges.length || fn.ranges.every((r) => r.count === 0)) continue;
          out.push([String(fn.functionName).slice(0, 200),
            fn.ranges.map((r) => [r.startOffset, r.endOffset, r.count])]);
        }
      }
      return out;
    },
    iterators() { return iterators ? iterators.take(source, scriptId) : undefined; },
  };
}

// ------------------------------------------------------------------------------ run
function compileVersion(code, ctx, entry) {
  // The version as a script; a method alone (``add(a, b) { ... }``) as a class body (the
  // wraps ``MEMBER_WRAPS`` of ``core/parsing.py`` writes for static counts), then
  // with the private names it uses declared on the wrapper's first line (``this.#head``
  // names a field its own class declares: an undeclared one does not compile).
  const privates = Array.from(new Set(code.match(/#[A-Za-z_$][\w$]*/g) || [])).slice(0, 256);
  const attempts = [
    [code, null],
    ['(class __CodequorumVersion {\n' + code + '\n})', 'class'],
    ['({\n' + code + '\n})', 'object'],
  ];
  if (privates.length) {
    attempts.push(['(class __CodequorumVersion {' + privates.join('; ') + ';\n' + code + '\n})',
      'class']);
  }
  let first = null;
  for (const [src, wrap] of attempts) {
    let script;
    try {
      script = new vm.Script(src, { filename: 'version.js' });
    } catch (err) {
      if (first === null) first = err;
      continue;
    }
    return { script, wrap, source: src };
  }
  return { error: first };
}

// The function ``entry`` names (``values.js``'s ``find``), looked up by a script of the
// context under ``timeout`` ms: a getter it reads on an object runs the version's code.
const FIND = new vm.Script('__codequorum_find()', { filename: 'find.js' });
function located(inner, ctx, made, wrap, entry, timeout) {
  inner.look(made, wrap, entry);
  return FIND.runInContext(ctx, { timeout });
}

// The module with the version in place (``js_modules.py`` made it): its files behind a
// ``require`` of the context's own (``modules.js``), its top level run, then the function
// found there. One ``module`` message says whether it loaded; when it did not, no test
// runs (``ran_alone`` false: the version is not run without its module).
function inModule(mod, ctx, inner, entry, timeout, trace) {
  const notLoaded = (detail) => {
    send({ type: 'module', loaded: false, ran_alone: false, detail: String(detail).slice(0, 2000) });
    send({ type: 'done', timeouts: 0, memory_error: false });
    return null;
  };
  if (mod.problem) return notLoaded(mod.problem);
  const files = {};
  for (const [path, text] of mod.files || []) files[String(path)] = String(text);
  let script;
  let absent = () => [];
  try {
    const install = vm.runInContext(MODULES_SRC, ctx, { filename: 'modules.js' });
    absent = install(JSON.stringify(files), String(mod.path), JSON.stringify(mod.builtins || {}),
      JSON.stringify(mod.aliases || {}));
    const make = () => ({ script: new vm.Script(String(mod.entry), { filename: String(mod.path) }),
      source: String(mod.entry) });
    script = (trace ? trace.printed(String(mod.path), make) : make()).script;
  } catch (err) {
    return notLoaded('the version does not fit in the module `' + mod.name + '`: '
      + inner.describe(err));
  }
  try {
    script.runInContext(ctx, { timeout });
  } catch (err) {
    return notLoaded('the top level of `' + mod.name + '` raised: ' + inner.describe(err));
  }
  let target;
  try {
    target = located(inner, ctx, undefined, null, entry, timeout);
  } catch (err) {
    return notLoaded('`' + entry + '` raised while it was looked up in `' + mod.name + '`: '
      + inner.describe(err));
  }
  if (typeof target === 'string') return notLoaded(target + ' in `' + mod.name + '`');
  let missing = [];
  try { missing = Array.from(absent(), String); } catch (err) { missing = []; }
  send({ type: 'module', loaded: true, detail: missing.length
    ? 'packages not in the sandbox (a use of them raises): ' + missing.join(', ').slice(0, 1000)
    : '' });
  return target;
}

// A version run alone gets the ``require`` of a module with no files beside it
// (``modules.js``), and nothing else of a module: Node's modules the context gives
// (``builtins``, as ``CONTEXT_MODULES`` names them), a part that throws when used for a
// package, a clear error for anything else (``fs``, ``child_process``).
function alone(ctx, builtins) {
  const install = vm.runInContext(MODULES_SRC, ctx, { filename: 'modules.js' });
  install('{}', 'version.js', JSON.stringify(builtins || {}), '{}', true);
}

// An example run whole (``js_example_code.py``): its source evaluates, in the context where
// the version's names are, to a function of no parameter called in the version's place.
function exampleOf(code, ctx, timeout) {
  const fn = new vm.Script(code, { filename: 'example.js' })
    .runInContext(ctx, timeout ? { timeout } : {});
  return { fn, self: undefined };
}

function runMode(msg) {
  // A sandbox object of no prototype: a global lookup that falls through to it finds no
  // outer `constructor` (which would lead to this realm's Function and `process`).
  const ctx = vm.createContext(vm.constants && vm.constants.DONT_CONTEXTIFY !== undefined
    ? vm.constants.DONT_CONTEXTIFY : Object.create(null),
  { codeGeneration: { strings: true, wasm: false }, microtaskMode: 'afterEvaluate' });
  const inner = vm.runInContext(VALUES_SRC, ctx, { filename: 'values.js' });
  // Node's globals a bare context lacks, built in the context (``globals.js``); ``bridge``
  // stays in its closure and answers strings with strings (``bridge.js``).
  const tools = vm.runInContext(GLOBALS_SRC, ctx, { filename: 'globals.js' })(bridge);
  vm.runInContext(BUILTINS_SRC, ctx, { filename: 'builtins.js' })(tools);
  vm.runInContext(NEWER_SRC, ctx, { filename: 'newer.js' });
  const testSeconds = msg.limits && msg.limits.test_seconds;
  // after a test overruns it, each later test gets half the budget (down to
  // SHORTEST_TEST_MS): a version slow on a few inputs still runs the cheap ones after them
  let timeout = testSeconds ? Math.max(1, Math.round(testSeconds * 1000)) : undefined;
  const entry = String(msg.entry_point || '');
  send({ type: 'hello', layers: LAYERS, python: 'node ' + process.versions.node });
  const trace = msg.trace ? startTrace(ctx) : null;
  const compile = () => compileVersion(String(msg.code), ctx, entry);
  const compiled = trace && !msg.module ? trace.printed('version.js', compile) : compile();
  if (compiled.error) {
    send({ type: 'syntax-error', detail: 'SyntaxError: ' + String(compiled.error.message) });
    return;
  }
  let target;
  if (msg.module) {
    target = inModule(msg.module, ctx, inner, entry, timeout || 10000, trace);
    if (target === null) return;
  } else {
    try {
      alone(ctx, msg.builtins);
      const made = compiled.script.runInContext(ctx, { timeout: timeout || 10000 });
      target = located(inner, ctx, made, compiled.wrap, entry, timeout || 10000);
    } catch (err) {
      const told = inner.describe(err);
      send({ type: 'error', detail: 'the version raised while it loaded: ' + told });
      return;
    }
  }
  if (typeof target === 'string') {
    send({ type: 'error', detail: target });
    return;
  }
  const INVOKE = new vm.Script('__codequorum_invoke()', { filename: 'invoke.js' });
  const SETTLE = new vm.Script('__codequorum_settle()', { filename: 'settle.js' });
  const TICK = new vm.Script('__codequorum_tick()', { filename: 'tick.js' });
  let timeouts = 0;
  const tests = msg.tests || [];
  const skipped = new Set();
  for (let i = 0; i < tests.length; i++) {
    const test = tests[i];
    if (test.series && skipped.has(test.series)) {
      send({ type: 'test', index: i, outcome: { name: test.name || '', passed: null,
        output: null, exc_type: 'Skipped', exc_message: 'a smaller size timed out',
        opcodes: null, opcode_total: 0, seconds: 0 } });
      continue;
    }
    send({ type: 'test-start', index: i });
    const started = process.hrtime.bigint();
    let answer;
    if (trace) trace.reset();
    try {
      inner.stage(typeof test.code === 'string' ? exampleOf(test.code, ctx, timeout) : target,
        JSON.stringify(test.args || []),
        Array.isArray(test.receiver) ? JSON.stringify(test.receiver) : null,
        Array.isArray(test.steps) ? JSON.stringify(test.steps) : null,
        typeof test.method === 'string' ? test.method : null, test.chained === true);
      answer = INVOKE.runInContext(ctx, timeout ? { timeout } : {});
      if (typeof answer !== 'string') throw new Error('the call gave no answer');
      for (let ticks = 0; answer === '{"awaiting":true}'; ticks++) {
        // the version's timers fire one at a time, its microtasks after each
        if (ticks > 0 && (ticks > MAX_TICKS || TICK.runInContext(ctx, timeout ? { timeout } : {}) !== true)) {
          answer = SETTLE.runInContext(ctx, timeout ? { timeout } : {});
          if (answer === '{"awaiting":true}') answer = JSON.stringify({ output: JSON.stringify({ $: 'promise', v: 'pending' }) });
          break;
        }
        answer = SETTLE.runInContext(ctx, timeout ? { timeout } : {});
      }
    } catch (err) {
      answer = null;
      if (err && err.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
        timeouts++;
        if (test.series) skipped.add(test.series);
        if (timeout) timeout = Math.max(Math.min(timeout, SHORTEST_TEST_MS), Math.round(timeout / 2));
        answer = JSON.stringify({ exc_type: 'Timeout', exc_message: 'per-test limit' });
      } else {
        answer = JSON.stringify({ exc_type: 'InternalError', exc_message: String(err && err.message) });
      }
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const coverage = trace ? trace.take() : undefined;
    const iterators = trace ? trace.iterators() : undefined;
    const got = JSON.parse(answer);
    send({ type: 'test', index: i, outcome: {
      name: test.name || '', passed: null,
      output: got.exc_type ? null : got.output,
      printed: typeof got.printed === 'string' ? got.printed.slice(0, MAX_OUTPUT) : '',
      exc_type: got.exc_type || null, exc_message: got.exc_type ? got.exc_message : null,
      opcodes: null, opcode_total: 0, seconds, coverage, iterators } });
  }
  send({ type: 'done', timeouts, memory_error: false, marker: trace ? trace.marker : undefined });
}

// --------------------------------------------------------------------------- counts
function countsMode(msg) {
  const v8 = require('v8');
  const crypto = require('crypto');
  // Warm-up: everything this loop needs is compiled before the printout starts.
  const warm = '__codequorum_warm_' + crypto.randomBytes(4).toString('hex');
  new vm.Script('function ' + warm + '(a) { return a + 1; }', { filename: 'warm.js' });
  fs.writeSync(1, '');
  send({ type: 'hello', layers: LAYERS, python: 'node ' + process.versions.node });
  const nonce = crypto.randomBytes(8).toString('hex');
  v8.setFlagsFromString('--no-lazy');
  v8.setFlagsFromString('--print-bytecode');
  const codes = msg.codes || [];
  const ok = [];
  for (let i = 0; i < codes.length; i++) {
    try {
      new vm.Script(String(codes[i]), { filename: 'version.js' });
      ok.push(true);
    } catch (err) {
      ok.push(false);
    }
    new vm.Script('function __codequorum_mark_' + nonce + '_' + i + '() {}', { filename: 'mark.js' });
  }
  v8.setFlagsFromString('--no-print-bytecode');
  send({ type: 'done', compiled: ok, marker: '__codequorum_mark_' + nonce, timeouts: 0,
    memory_error: false });
}

// A promise of the version's that rejects unheard must not end the run.
process.on('unhandledRejection', () => {});
const message = readRun();
if (message.mode === 'counts') countsMode(message);
else runMode(message);
