// Evaluated inside the version's own vm context, after ``globals.js``: the Node modules a
// version's module may ``require`` that only compute, made of this realm only (as
// ``globals.js``'s are): ``path`` (POSIX, with ``path.win32``) and ``crypto``'s hashes
// (``createHash``, ``createHmac``, ``getHashes``, ``timingSafeEqual``). What only Node knows
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
  };
})(globalThis)
