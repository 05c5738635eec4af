// Evaluated inside the version's own vm context, after ``globals.js``: the Node modules a
// version's module may ``require`` that only compute, made of this realm only (as
// ``globals.js``'s are): ``path`` (POSIX, with ``path.win32``) and ``crypto``'s hashes
// (``createHash``, ``createHmac``, ``getHashes``, ``timingSafeEqual``), ``assert`` (with
// ``assert/strict``), ``events`` and what of ``util`` needs no inspector. What only Node knows
// exactly (its path rules, its digests) is asked of it through ``globals.js``'s ``ask``,
// strings in and out (``bridge.js``). Each module is a frozen global of a name no program
// uses, which ``modules.js`` gives to ``require('path')`` (``CONTEXT_MODULES`` of
// ``js_module_view.py``). What is random (``randomUUID``, ``randomBytes``, ``randomInt``,
// ``getRandomValues``, here and as the global ``crypto``) draws from ``values.js``'s seeded
// ``Math.random`` sequence, which starts again at each input: identical versions draw the
// same bytes, and a version's values never differ run to run.
(function (global) {
  'use strict';
  const StringFn = String;
  const apply = Reflect.apply;
  const defineProperty = Object.defineProperty;
  const freeze = Object.freeze;
  const arrayJoin = Array.prototype.join;
  const arrayPush = Array.prototype.push;
  const TypeErrorCtor = TypeError;
  const ErrorCtor = Error;
  const RangeErrorCtor = RangeError;

  function described(value) {
    if (value === null) return 'null';
    if (value === undefined) return 'undefined';
    if (typeof value === 'function') return 'function';
    if (typeof value === 'object') return 'an instance of ' + (apply(Object.prototype.toString, value, [])
      .slice(8, -1));
    return 'type ' + typeof value;
  }

  function invalidType(name, expected, value) {
    const err = new TypeErrorCtor('The "' + name + '" argument must be of type ' + expected
      + '. Received ' + described(value));
    err.code = 'ERR_INVALID_ARG_TYPE';
    return err;
  }

  // ``assert`` and ``assert/strict`` as Node 20 gives them: the same checks, an
  // ``AssertionError`` (``code`` ``ERR_ASSERTION``, ``actual``, ``expected``, ``operator``)
  // when one fails, its message shorter than Node's (values shown as ``shown`` writes them).
  class AssertionError extends ErrorCtor {
    constructor(options) {
      const o = options || {};
      super(o.message === undefined ? 'Failed' : StringFn(o.message));
      this.name = 'AssertionError';
      this.code = 'ERR_ASSERTION';
      this.actual = o.actual;
      this.expected = o.expected;
      this.operator = o.operator;
      this.generatedMessage = !o.given;
    }
  }

  function shown(value) {
    try {
      if (typeof value === 'string') return JSON.stringify(value);
      if (typeof value === 'bigint') return StringFn(value) + 'n';
      if (typeof value === 'object' && value !== null) {
        const text = JSON.stringify(value);
        if (typeof text === 'string') return text.length > 200 ? text.slice(0, 197) + '...' : text;
      }
      return StringFn(value);
    } catch (err) {
      return Object.prototype.toString.call(value);
    }
  }

  // ``generated`` false where Node says its own words are not generated (a missing or an
  // unwanted exception, ``ifError``).
  function fail(given, actual, expected, operator, words, generated = true) {
    if (given instanceof ErrorCtor) throw given;
    throw new AssertionError({ message: given === undefined ? words : given,
      given: given !== undefined || !generated, actual, expected, operator });
  }

  const has = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
  const tag = (o) => Object.prototype.toString.call(o);

  // Node's deep equality: ``strict`` compares primitives with ``Object.is`` and prototypes
  // too, loose with ``==``; cycles are met once (``seen`` pairs them).
  function deepEqual(a, b, strict, seen) {
    if (strict ? Object.is(a, b) : (a == b || (a !== a && b !== b))) return true;
    if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
    if (strict && Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
    if (tag(a) !== tag(b) || Array.isArray(a) !== Array.isArray(b)) return false;
    if (seen.get(a) === b) return true;
    seen.set(a, b);
    if (a instanceof Date && !Object.is(a.getTime(), b.getTime())) return false;
    if (a instanceof RegExp && (StringFn(a) !== StringFn(b) || a.lastIndex !== b.lastIndex)) {
      return false;
    }
    if (a instanceof ErrorCtor && (a.message !== b.message || a.name !== b.name)) return false;
    if (a instanceof Number || a instanceof String || a instanceof Boolean) {
      if (!Object.is(a.valueOf(), b.valueOf())) return false;
    }
    if (ArrayBuffer.isView(a)) {
      if (a.length !== b.length || a.byteLength !== b.byteLength) return false;
      for (let i = 0; i < a.length; i++) {
        if (!(strict ? Object.is(a[i], b[i]) : a[i] == b[i])) return false;
      }
    }
    if (a instanceof Map && !sameMap(a, b, strict, seen)) return false;
    if (a instanceof Set && !sameSet(a, b, strict, seen)) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    for (const key of keys) {
      if (!has(b, key) || !deepEqual(a[key], b[key], strict, seen)) return false;
    }
    if (strict) {
      const own = (o) => Object.getOwnPropertySymbols(o).filter(
        (k) => Object.prototype.propertyIsEnumerable.call(o, k));
      const symbols = own(a);
      if (symbols.length !== own(b).length) return false;
      for (const key of symbols) {
        if (!has(b, key) || !deepEqual(a[key], b[key], strict, seen)) return false;
      }
    }
    return true;
  }

  function sameMap(a, b, strict, seen) {
    if (a.size !== b.size) return false;
    for (const [key, value] of a) {
      if (b.has(key)) {
        if (!deepEqual(value, b.get(key), strict, seen)) return false;
        continue;
      }
      if (typeof key !== 'object' || key === null) return false;
      let found = false;
      for (const [other, v] of b) {
        if (deepEqual(key, other, strict, seen) && deepEqual(value, v, strict, seen)) {
          found = true;
          break;
        }
      }
      if (!found) return false;
    }
    return true;
  }

  function sameSet(a, b, strict, seen) {
    if (a.size !== b.size) return false;
    for (const item of a) {
      if (b.has(item)) continue;
      if (typeof item !== 'object' || item === null) return false;
      let found = false;
      for (const other of b) {
        if (deepEqual(item, other, strict, seen)) { found = true; break; }
      }
      if (!found) return false;
    }
    return true;
  }

  // What ``throws`` and ``rejects`` accept as the error expected: a class, a RegExp of its
  // text, a function that returns true, or an object whose keys it must match.
  function matches(err, expected) {
    if (expected === undefined) return true;
    if (expected instanceof RegExp) return expected.test(StringFn(err));
    if (typeof expected === 'function') {
      if (expected.prototype !== undefined && err instanceof expected) return true;
      if (ErrorCtor.isPrototypeOf(expected) || expected === ErrorCtor) return false;
      return apply(expected, undefined, [err]) === true;
    }
    if (typeof expected === 'object' && expected !== null) {
      for (const key of Object.keys(expected)) {
        const want = expected[key];
        const got = err === null || err === undefined ? undefined : err[key];
        if (want instanceof RegExp && typeof got === 'string' ? !want.test(got)
          : !deepEqual(got, want, true, new Map())) return false;
      }
      return true;
    }
    return false;
  }

  function assertModule(strict) {
    const assert = function ok(value, message) {
      if (!value) fail(message, value, true, '==', 'The expression evaluated to a falsy value');
    };
    assert.ok = assert;
    assert.AssertionError = AssertionError;
    assert.fail = (message) => fail(message === undefined ? 'Failed' : message, undefined,
      undefined, 'fail', 'Failed');
    assert.strictEqual = (a, b, m) => {
      if (!Object.is(a, b)) fail(m, a, b, 'strictEqual', 'Expected values to be strictly '
        + 'equal: ' + shown(a) + ' !== ' + shown(b));
    };
    assert.notStrictEqual = (a, b, m) => {
      if (Object.is(a, b)) fail(m, a, b, 'notStrictEqual', 'Expected "actual" to be strictly '
        + 'unequal to: ' + shown(b));
    };
    assert.deepStrictEqual = (a, b, m) => {
      if (!deepEqual(a, b, true, new Map())) fail(m, a, b, 'deepStrictEqual', 'Expected '
        + 'values to be strictly deep-equal: ' + shown(a) + ' vs ' + shown(b));
    };
    assert.notDeepStrictEqual = (a, b, m) => {
      if (deepEqual(a, b, true, new Map())) fail(m, a, b, 'notDeepStrictEqual', 'Expected '
        + '"actual" not to be strictly deep-equal to: ' + shown(b));
    };
    const looseEqual = (a, b, m) => {
      if (!(a == b || (a !== a && b !== b))) fail(m, a, b, '==', shown(a) + ' == ' + shown(b));
    };
    const looseNotEqual = (a, b, m) => {
      if (a == b || (a !== a && b !== b)) fail(m, a, b, '!=', shown(a) + ' != ' + shown(b));
    };
    const looseDeep = (a, b, m) => {
      if (!deepEqual(a, b, false, new Map())) fail(m, a, b, 'deepEqual', 'Expected values to '
        + 'be loosely deep-equal: ' + shown(a) + ' vs ' + shown(b));
    };
    const looseNotDeep = (a, b, m) => {
      if (deepEqual(a, b, false, new Map())) fail(m, a, b, 'notDeepEqual', 'Expected "actual" '
        + 'not to be loosely deep-equal to: ' + shown(b));
    };
    assert.equal = strict ? assert.strictEqual : looseEqual;
    assert.notEqual = strict ? assert.notStrictEqual : looseNotEqual;
    assert.deepEqual = strict ? assert.deepStrictEqual : looseDeep;
    assert.notDeepEqual = strict ? assert.notDeepStrictEqual : looseNotDeep;
    assert.throws = (fn, expected, message) => {
      if (typeof expected === 'string') { message = expected; expected = undefined; }
      let threw = false;
      let err;
      try { fn(); } catch (e) { threw = true; err = e; }
      if (!threw) {
        fail(message, undefined, expected, 'throws', 'Missing expected exception.', false);
      }
      if (!matches(err, expected)) {
        fail(message, err, expected, 'throws', 'The error is not the one expected');
      }
    };
    assert.doesNotThrow = (fn, expected, message) => {
      try { fn(); } catch (e) {
        fail(typeof expected === 'string' ? expected : message, e, expected, 'doesNotThrow',
          'Got unwanted exception: ' + shown(e && e.message), false);
      }
    };
    assert.rejects = async (promise, expected, message) => {
      if (typeof expected === 'string') { message = expected; expected = undefined; }
      let threw = false;
      let err;
      try { await (typeof promise === 'function' ? promise() : promise); }
      catch (e) { threw = true; err = e; }
      if (!threw) {
        fail(message, undefined, expected, 'rejects', 'Missing expected rejection.', false);
      }
      if (!matches(err, expected)) fail(message, err, expected, 'rejects', 'The rejection is '
        + 'not the one expected');
    };
    assert.doesNotReject = async (promise, expected, message) => {
      try { await (typeof promise === 'function' ? promise() : promise); }
      catch (e) {
        fail(typeof expected === 'string' ? expected : message, e, expected, 'doesNotReject',
          'Got unwanted rejection: ' + shown(e && e.message), false);
      }
    };
    assert.match = (text, re, m) => {
      if (typeof text !== 'string' || !re.test(text)) fail(m, text, re, 'match', 'The input did '
        + 'not match the regular expression ' + StringFn(re) + '. Input: ' + shown(text));
    };
    assert.doesNotMatch = (text, re, m) => {
      if (typeof text !== 'string' || re.test(text)) fail(m, text, re, 'doesNotMatch', 'The '
        + 'input was expected to not match the regular expression ' + StringFn(re)
        + '. Input: ' + shown(text));
    };
    assert.ifError = (value) => {
      if (value === null || value === undefined) return;
      fail(undefined, value, null, 'ifError', 'ifError got unwanted exception: '
        + shown(value && value.message !== undefined ? value.message : value), false);
    };
    if (strict) assert.strict = assert;
    return assert;
  }

  // -------------------------------------------------------------------------- events
  // ``events``: Node's ``EventEmitter`` (a function, so that ``EventEmitter.call(this)``
  // and ``util.inherits`` work as well as ``class extends``), listeners called in order
  // with the emitter as ``this``, ``once`` wrappers, ``error`` with no listener thrown.
  function invalidListener(listener) {
    return invalidType('listener', 'function', listener);
  }

  function eventsModule() {
    function EventEmitter(options) { EventEmitter.init.call(this, options); }
    EventEmitter.init = function init() {
      if (this._events === undefined || this._events === Object.getPrototypeOf(this)._events) {
        this._events = Object.create(null);
        this._eventsCount = 0;
      }
      this._maxListeners = this._maxListeners || undefined;
    };
    const proto = EventEmitter.prototype;
    proto._events = undefined;
    proto._eventsCount = 0;
    proto._maxListeners = undefined;
    const listOf = (emitter, type) => {
      if (emitter._events === undefined) EventEmitter.init.call(emitter);
      const events = emitter._events;
      return has(events, type) ? events[type] : undefined;
    };
    function add(emitter, type, listener, prepend) {
      if (typeof listener !== 'function') throw invalidListener(listener);
      if (emitter._events === undefined) EventEmitter.init.call(emitter);
      if (has(emitter._events, 'newListener')) {
        emitter.emit('newListener', type, listener.listener ? listener.listener : listener);
      }
      const list = listOf(emitter, type);
      if (list === undefined) {
        emitter._events[type] = [listener];
        emitter._eventsCount++;
      } else if (prepend) list.unshift(listener);
      else list.push(listener);
      return emitter;
    }
    function onceWrapper(emitter, type, listener) {
      const state = { fired: false };
      const wrapped = function (...args) {
        if (state.fired) return undefined;
        state.fired = true;
        emitter.removeListener(type, wrapped);
        return apply(listener, emitter, args);
      };
      wrapped.listener = listener;
      return wrapped;
    }
    proto.addListener = function addListener(type, fn) { return add(this, type, fn, false); };
    proto.on = proto.addListener;
    proto.prependListener = function prependListener(type, fn) { return add(this, type, fn, true); };
    proto.once = function once(type, fn) {
      if (typeof fn !== 'function') throw invalidListener(fn);
      return add(this, type, onceWrapper(this, type, fn), false);
    };
    proto.prependOnceListener = function prependOnceListener(type, fn) {
      if (typeof fn !== 'function') throw invalidListener(fn);
      return add(this, type, onceWrapper(this, type, fn), true);
    };
    proto.removeListener = function removeListener(type, fn) {
      if (typeof fn !== 'function') throw invalidListener(fn);
      const list = listOf(this, type);
      if (list === undefined) return this;
      for (let i = list.length - 1; i >= 0; i--) {
        if (list[i] === fn || list[i].listener === fn) {
          const removed = list[i];
          list.splice(i, 1);
          if (list.length === 0) {
            delete this._events[type];
            this._eventsCount--;
          }
          if (has(this._events, 'removeListener')) {
            this.emit('removeListener', type, removed.listener || removed);
          }
          break;
        }
      }
      return this;
    };
    proto.off = proto.removeListener;
    proto.removeAllListeners = function removeAllListeners(type) {
      if (this._events === undefined) return this;
      if (type === undefined) {
        this._events = Object.create(null);
        this._eventsCount = 0;
      } else if (has(this._events, type)) {
        delete this._events[type];
        this._eventsCount--;
      }
      return this;
    };
    proto.emit = function emit(type, ...args) {
      const list = listOf(this, type);
      if (list === undefined) {
        if (type !== 'error') return false;
        const er = args[0];
        if (er instanceof ErrorCtor) throw er;
        const err = new ErrorCtor('Unhandled error. (' + shown(er) + ')');
        err.code = 'ERR_UNHANDLED_ERROR';
        err.context = er;
        throw err;
      }
      for (const listener of list.slice()) apply(listener, this, args);
      return true;
    };
    proto.listenerCount = function listenerCount(type) {
      const list = listOf(this, type);
      return list === undefined ? 0 : list.length;
    };
    proto.listeners = function listeners(type) {
      const list = listOf(this, type);
      return list === undefined ? [] : list.map((l) => l.listener || l);
    };
    proto.rawListeners = function rawListeners(type) {
      const list = listOf(this, type);
      return list === undefined ? [] : list.slice();
    };
    proto.eventNames = function eventNames() {
      return this._events === undefined ? [] : Reflect.ownKeys(this._events);
    };
    proto.setMaxListeners = function setMaxListeners(n) {
      if (typeof n !== 'number' || n < 0 || n !== n) {
        const err = new RangeErrorCtor('The value of "n" is out of range. It must be a '
          + 'non-negative number. Received ' + shown(n));
        err.code = 'ERR_OUT_OF_RANGE';
        throw err;
      }
      this._maxListeners = n;
      return this;
    };
    proto.getMaxListeners = function getMaxListeners() {
      return this._maxListeners === undefined ? EventEmitter.defaultMaxListeners
        : this._maxListeners;
    };
    EventEmitter.EventEmitter = EventEmitter;
    EventEmitter.defaultMaxListeners = 10;
    EventEmitter.once = (emitter, type) => new Promise((resolve, reject) => {
      const onError = (err) => { emitter.removeListener(type, onEvent); reject(err); };
      const onEvent = (...args) => {
        if (type !== 'error') emitter.removeListener('error', onError);
        resolve(args);
      };
      emitter.once(type, onEvent);
      if (type !== 'error') emitter.once('error', onError);
    });
    EventEmitter.listenerCount = (emitter, type) => emitter.listenerCount(type);
    return EventEmitter;
  }

  // ---------------------------------------------------------------------------- util
  // ``util``: what computes without Node's inspector of values; ``inspect`` and ``format``
  // are not built (a call of them raises, naming them; ``inspect.custom`` is there, as
  // classes name their own inspection with it).
  const CUSTOM_PROMISIFY = Symbol.for('nodejs.util.promisify.custom');

  function notBuilt(name) {
    return function () {
      const err = new ErrorCtor("'util." + name + "' of Node's module 'util', which the "
        + 'sandbox does not build');
      err.code = 'ERR_NOT_IN_SANDBOX';
      throw err;
    };
  }

  function utilModule() {
    const tagged = (name) => (value) => tag(value) === '[object ' + name + ']';
    const types = {
      isDate: tagged('Date'), isRegExp: tagged('RegExp'), isMap: tagged('Map'),
      isSet: tagged('Set'), isWeakMap: tagged('WeakMap'), isWeakSet: tagged('WeakSet'),
      isPromise: tagged('Promise'), isDataView: tagged('DataView'),
      isArrayBuffer: tagged('ArrayBuffer'), isNativeError: tagged('Error'),
      isAsyncFunction: tagged('AsyncFunction'),
      isGeneratorFunction: (v) => tag(v) === '[object GeneratorFunction]'
        || tag(v) === '[object AsyncGeneratorFunction]',
      isGeneratorObject: tagged('Generator'),
      isTypedArray: (v) => ArrayBuffer.isView(v) && !(v instanceof DataView),
      isUint8Array: tagged('Uint8Array'),
      isBoxedPrimitive: (v) => ['Number', 'String', 'Boolean', 'BigInt', 'Symbol'].some(
        (name) => typeof v === 'object' && v !== null && tag(v) === '[object ' + name + ']'),
    };
    function promisify(original) {
      if (typeof original !== 'function') throw invalidType('original', 'function', original);
      if (typeof original[CUSTOM_PROMISIFY] === 'function') return original[CUSTOM_PROMISIFY];
      return function promisified(...args) {
        return new Promise((resolve, reject) => {
          apply(original, this, [...args, (err, ...values) => {
            if (err) reject(err);
            else resolve(values[0]);
          }]);
        });
      };
    }
    promisify.custom = CUSTOM_PROMISIFY;
    function callbackify(original) {
      if (typeof original !== 'function') throw invalidType('original', 'function', original);
      return function callbackified(...args) {
        const callback = args.pop();
        if (typeof callback !== 'function') {
          throw invalidType('last argument', 'function', callback);
        }
        apply(original, this, args).then((value) => callback(null, value), (reason) => {
          if (!reason) {
            const err = new ErrorCtor('Promise was rejected with a falsy value');
            err.code = 'ERR_FALSY_VALUE_REJECTION';
            err.reason = reason;
            reason = err;
          }
          callback(reason);
        });
      };
    }
    function inherits(ctor, superCtor) {
      if (typeof ctor !== 'function') throw invalidType('ctor', 'function', ctor);
      if (typeof superCtor !== 'function') throw invalidType('superCtor', 'function', superCtor);
      if (superCtor.prototype === undefined) {
        throw invalidType('superCtor.prototype', 'object', superCtor.prototype);
      }
      defineProperty(ctor, 'super_', { value: superCtor, writable: true, configurable: true });
      Object.setPrototypeOf(ctor.prototype, superCtor.prototype);
    }
    const inspect = notBuilt('inspect');
    inspect.custom = Symbol.for('nodejs.util.inspect.custom');
    return {
      types, promisify, callbackify, inherits, inspect, format: notBuilt('format'),
      formatWithOptions: notBuilt('formatWithOptions'),
      deprecate: (fn) => fn,
      isDeepStrictEqual: (a, b) => deepEqual(a, b, true, new Map()),
      isArray: Array.isArray,
      TextEncoder: global.TextEncoder, TextDecoder: global.TextDecoder,
    };
  }

  return function install(tools) {
    const ask = tools.ask;
    const encoded = tools.encoded;
    const bytesOf = tools.bytesOf;
    const toHex = tools.toHex;
    const fromHex = tools.fromHex;
    const Buffer = tools.Buffer;

    function define(name, value) {
      defineProperty(global, name, { value: freeze(value), writable: false, configurable: true });
    }

    // ---------------------------------------------------------------------------- path
    const PATH_CALLS = ['basename', 'dirname', 'extname', 'isAbsolute', 'join', 'normalize',
      'relative', 'resolve', 'toNamespacedPath'];

    function pathModule(win32) {
      const call = (fn, args) => ask({ op: 'path', fn, args, win32 }).value;
      const api = {};
      for (const fn of PATH_CALLS) {
        api[fn] = function (...args) {
          for (let i = 0; i < args.length; i++) {
            const optional = fn === 'basename' && i === 1 && args[i] === undefined;
            if (!optional && typeof args[i] !== 'string') {
              throw invalidType(fn === 'basename' && i === 1 ? 'suffix' : 'path', 'string', args[i]);
            }
          }
          return call(fn, fn === 'basename' ? args.slice(0, 2).filter((a) => a !== undefined)
            : args);
        };
      }
      api.parse = function (p) {
        if (typeof p !== 'string') throw invalidType('path', 'string', p);
        const got = call('parse', [p]);
        return { root: StringFn(got.root), dir: StringFn(got.dir), base: StringFn(got.base),
          ext: StringFn(got.ext), name: StringFn(got.name) };
      };
      api.format = function (parts) {
        if (parts === null || typeof parts !== 'object') {
          throw invalidType('pathObject', 'object', parts);
        }
        const fields = {};
        for (const key of ['root', 'dir', 'base', 'ext', 'name']) {
          if (parts[key] !== undefined && parts[key] !== null) fields[key] = StringFn(parts[key]);
        }
        return call('format', [fields]);
      };
      api.sep = win32 ? '\\' : '/';
      api.delimiter = win32 ? ';' : ':';
      return api;
    }

    const posix = pathModule(false);
    const win32 = pathModule(true);
    posix.posix = posix;
    posix.win32 = win32;
    win32.posix = posix;
    win32.win32 = win32;
    freeze(win32);
    define('__codequorum_path', posix);

    // -------------------------------------------------------------------------- crypto
    function bytes(data, enc) {
      if (typeof data === 'string') return encoded(data, enc);
      return bytesOf(data, 'data');
    }

    function finalized() {
      const err = new ErrorCtor('Digest already called');
      err.code = 'ERR_CRYPTO_HASH_FINALIZED';
      return err;
    }

    class Hash {
      #alg;
      #key;
      #parts = [];
      #done = false;
      constructor(alg, key) {
        if (typeof alg !== 'string') throw invalidType('algorithm', 'string', alg);
        ask({ op: 'hash', alg, key, hex: '' });  // an unknown algorithm throws here, as Node's
        this.#alg = alg;
        this.#key = key;
      }
      update(data, enc) {
        if (this.#done) throw finalized();
        apply(arrayPush, this.#parts, [toHex(bytes(data, enc))]);
        return this;
      }
      digest(enc) {
        if (this.#done) throw finalized();
        this.#done = true;
        const hex = ask({ op: 'hash', alg: this.#alg, key: this.#key,
          hex: apply(arrayJoin, this.#parts, ['']) }).hex;
        const out = Buffer.from(fromHex(StringFn(hex)));
        return enc === undefined || enc === 'buffer' ? out : out.toString(enc);
      }
      copy() {
        if (this.#done) throw finalized();
        const made = new Hash(this.#alg, this.#key);
        for (const part of this.#parts) made.update(Buffer.from(fromHex(part)));
        return made;
      }
    }

    const draw = Math.random;  // values.js's seeded sequence, taken before any version ran
    const floor = Math.floor;
    const isSafeInteger = Number.isSafeInteger;
    const Uint8ArrayCtor = Uint8Array;
    const Float32ArrayCtor = Float32Array;
    const Float64ArrayCtor = Float64Array;
    const DataViewCtor = DataView;
    const isView = ArrayBuffer.isView;
    const hexOf = (b) => (b < 16 ? '0' : '') + b.toString(16);

    function randomFill(view) {
      const octets = new Uint8ArrayCtor(view.buffer, view.byteOffset, view.byteLength);
      for (let i = 0; i < octets.length; i++) octets[i] = (draw() * 256) >>> 0;
      return view;
    }

    function size(n, name) {
      if (typeof n !== 'number') throw invalidType(name, 'number', n);
      if (!(n >= 0 && n <= 2147483647 && n === floor(n))) {
        const err = new RangeErrorCtor('The value of "' + name + '" is out of range. It must be '
          + '>= 0 && <= 2147483647. Received ' + StringFn(n));
        err.code = 'ERR_OUT_OF_RANGE';
        throw err;
      }
      return n;
    }

    const random = {
      randomUUID() {
        const b = randomFill(new Uint8ArrayCtor(16));
        b[6] = (b[6] & 0x0f) | 0x40;
        b[8] = (b[8] & 0x3f) | 0x80;
        let out = '';
        for (let i = 0; i < 16; i++) {
          out += (i === 4 || i === 6 || i === 8 || i === 10 ? '-' : '') + hexOf(b[i]);
        }
        return out;
      },
      getRandomValues(view) {
        if (!isView(view) || view instanceof Float32ArrayCtor || view instanceof Float64ArrayCtor
            || view instanceof DataViewCtor) {
          const err = new TypeErrorCtor('The data argument must be an integer-type TypedArray');
          err.code = 'ERR_INVALID_ARG_TYPE';
          throw err;
        }
        if (view.byteLength > 65536) {
          throw new RangeErrorCtor('The ArrayBufferView\'s byte length (' + view.byteLength
            + ') exceeds the number of bytes of entropy available via this API (65536)');
        }
        return randomFill(view);
      },
    };
    define('crypto', { randomUUID: random.randomUUID, getRandomValues: random.getRandomValues });

    const crypto = {
      randomUUID: random.randomUUID,
      getRandomValues: random.getRandomValues,
      randomBytes(n) { return randomFill(Buffer.alloc(size(n, 'size'))); },
      randomInt(min, max) {
        if (max === undefined) { max = min; min = 0; }
        if (!isSafeInteger(min)) throw invalidType('min', 'a safe integer', min);
        if (!isSafeInteger(max)) throw invalidType('max', 'a safe integer', max);
        if (!(max > min)) {
          const err = new RangeErrorCtor('The value of "max" is out of range. It must be greater '
            + 'than the value of "min" (' + min + '). Received ' + max);
          err.code = 'ERR_OUT_OF_RANGE';
          throw err;
        }
        return min + floor(draw() * (max - min));
      },
      createHash(alg) { return new Hash(alg, undefined); },
      createHmac(alg, key) {
        if (key === null || key === undefined) throw invalidType('key', 'string', key);
        return new Hash(alg, toHex(bytes(key, 'utf8')));
      },
      getHashes() { return ask({ op: 'hashes' }).names.slice(); },
      timingSafeEqual(a, b) {
        const x = bytesOf(a, 'buf1');
        const y = bytesOf(b, 'buf2');
        if (x.length !== y.length) {
          const err = new RangeErrorCtor('Input buffers must have the same byte length');
          err.code = 'ERR_CRYPTO_TIMING_SAFE_EQUAL_LENGTH';
          throw err;
        }
        let diff = 0;
        for (let i = 0; i < x.length; i++) diff |= x[i] ^ y[i];
        return diff === 0;
      },
    };
    define('__codequorum_crypto', crypto);

    // -------------------------------------------------------------------------- assert
    define('__codequorum_assert', assertModule(false));
    define('__codequorum_assert_strict', assertModule(true));
    define('__codequorum_events', eventsModule());
    define('__codequorum_util', utilModule());
  };

})(globalThis)
