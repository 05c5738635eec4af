// Where the calls of a generator's ``return`` and ``throw`` went, for a traced run's
// executed counts (``node_trace.py``): no block counter says so. ``return`` and ``throw`` of
// the version context's generators (and ``return`` of its iterator helpers) are replaced by
// wrappers compiled in that context (no object of this realm reaches the version: they
// hold one function of ours in a closure, which takes primitives' worth of facts from its
// arguments, never throws and returns nothing). Per call, noted:
// - the caller's source position when it is the traced script (a ``for``-``of``'s close
//   calls ``return`` at a position the parent tells from the printout);
// - for a suspended generator of the traced script, the position it is suspended at (the
//   inspector's ``[[GeneratorLocation]]``) and the mode (1 ``return``, 2 ``throw``);
// - ``other``: a call whose effect cannot be placed (an async generator's, a failure of
//   the inspector, past ``MAX_NOTES``): the parent flags that input's counts approximate.
// A note costs about 0.3 ms (mostly the inspector's reading of the generator), so one
// input notes at most ``MAX_NOTES`` calls.
'use strict';

const vm = require('vm');
const crypto = require('crypto');
const { isGeneratorObject } = require('util').types;

const MAX_NOTES = 1000;
const INSTALL = `(note) => {
  const apply = Reflect.apply;
  const wrap = (proto, name, kind) => {
    if (!proto || typeof proto[name] !== 'function') return;
    const real = proto[name];
    const made = {
      return(value) { note(this, kind); return apply(real, this, [value]); },
      throw(error) { note(this, kind); return apply(real, this, [error]); },
    };
    Object.defineProperty(proto, name, { value: made[name], writable: true, enumerable: false,
      configurable: true });
  };
  const generator = Object.getPrototypeOf(function* () {}).prototype;
  wrap(generator, 'return', 1);
  wrap(generator, 'throw', 2);
  const asyncGenerator = Object.getPrototypeOf(async function* () {}).prototype;
  wrap(asyncGenerator, 'return', 3);
  wrap(asyncGenerator, 'throw', 3);
  const helper = typeof Iterator === 'function' && typeof Iterator.prototype.map === 'function'
    ? Object.getPrototypeOf(Iterator.prototype.map.call([].values(), (x) => x)) : null;
  wrap(helper, 'return', 4);
}`;

function callerPosition(url) {
  const prev = Error.prepareStackTrace;
  const limit = Error.stackTraceLimit;
  Error.prepareStackTrace = (_e, frames) => frames;
  Error.stackTraceLimit = 4;
  const holder = {};
  try {
    Error.captureStackTrace(holder, callerPosition);
    const frames = holder.stack;
    // [0] note, [1] the wrapper, [2] its caller
    const caller = Array.isArray(frames) ? frames[2] : null;
    if (!caller || caller.getFileName() !== url) return -1;
    return typeof caller.getPosition === 'function' ? caller.getPosition() : -2;
  } finally {
    Error.prepareStackTrace = prev;
    Error.stackTraceLimit = limit;
  }
}

// ``post``: the inspector session's synchronous call; ``url``: the traced script's name.
function watchIterators(ctx, post, url) {
  const slot = '__codequorum_probe_' + crypto.randomBytes(8).toString('hex');
  let closes = new Map();
  let suspended = new Map();
  let other = 0;
  let notes = 0;

  function internal(gen) {
    globalThis[slot] = gen;
    try {
      const got = post('Runtime.evaluate', { expression: 'globalThis.' + slot, objectGroup: slot });
      const props = post('Runtime.getProperties', { objectId: got.result.objectId,
        ownProperties: true, objectGroup: slot });
      const out = {};
      for (const p of props.internalProperties || []) out[p.name] = p.value && p.value.value;
      return out;
    } finally {
      globalThis[slot] = undefined;
      post('Runtime.releaseObjectGroup', { objectGroup: slot });
    }
  }

  function note(gen, kind) {
    try {
      if (++notes > MAX_NOTES || kind === 3) {
        other++;
        return;
      }
      const at = callerPosition(url);
      if (at === -2) other++;
      if (at >= 0 && kind !== 2) closes.set(at, (closes.get(at) || 0) + 1);
      if (kind === 4 || !isGeneratorObject(gen)) return;
      const facts = internal(gen);
      const where = facts['[[GeneratorLocation]]'];
      if (facts['[[GeneratorState]]'] !== 'suspended' || !where) return;
      const key = [where.scriptId, where.lineNumber, where.columnNumber, kind].join(':');
      suspended.set(key, (suspended.get(key) || 0) + 1);
    } catch (err) {
      other++;
    }
  }

  vm.runInContext(INSTALL, ctx, { filename: 'iterators.js' })(note);
  return {
    reset() {
      closes = new Map();
      suspended = new Map();
      other = notes = 0;
    },
    // This test's notes; ``source`` and ``scriptId``: the traced script's, to turn a line
    // and column into a position.
    take(source, scriptId) {
      const starts = [0];
      for (let i = source.indexOf('\n'); i >= 0; i = source.indexOf('\n', i + 1)) starts.push(i + 1);
      const resumes = [];
      for (const [key, n] of suspended) {
        const [script, line, column, kind] = key.split(':');
        if (script !== String(scriptId)) continue;
        if (Number(line) >= starts.length) other++;
        else resumes.push([starts[Number(line)] + Number(column), Number(kind), n]);
      }
      return { closes: [...closes], resumes, other };
    },
  };
}

module.exports = { watchIterators };
