// Evaluated inside the version's own vm context, after ``values.js`` and before the
// version: the globals Node gives a program that a bare context lacks, made of this realm
// only, so none of them leads to the harness's realm through ``constructor.constructor``:
// ``TextEncoder``, ``TextDecoder``, ``structuredClone``, ``URL``, ``URLSearchParams``,
// ``Buffer``, ``setImmediate``/``clearImmediate`` and ``global``.
//
// What only Node knows exactly (URL parsing and its setters, the form encoding, Buffer's
// encodings, TextDecoder's labels and errors) is asked of it through ``ask``: the
// harness's ``bridge.js`` function, held in this closure and given strings only; its
// answer is a string, parsed here into objects of this realm. The rest is here.
(function (global) {
  'use strict';
  const JSONparse = JSON.parse;
  const JSONstringify = JSON.stringify;
  const StringFn = String;
  const NumberFn = Number;
  const MathFloor = Math.floor;
  const MathMin = Math.min;
  const MathMax = Math.max;
  const isArray = Array.isArray;
  const apply = Reflect.apply;
  const defineProperty = Object.defineProperty;
  const getProto = Object.getPrototypeOf;
  const ObjectKeys = Object.keys;
  const toStr = Object.prototype.toString;
  const charCode = String.prototype.charCodeAt;
  const fromCharCode = String.fromCharCode;
  const U8 = Uint8Array;
  const u8Set = Uint8Array.prototype.set;
  const u8Subarray = Uint8Array.prototype.subarray;
  const isView = ArrayBuffer.isView;
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const RangeErrorCtor = RangeError;
  const iteratorOf = Symbol.iterator;
  const HEX = '0123456789abcdef';

  return function install(bridge) {
    function ask(request) {
      let text;
      try {
        text = bridge(JSONstringify(request));
      } catch (_) {
        text = '{"error":"failed"}';
      }
      const answer = JSONparse(StringFn(text));
      if (answer.error !== undefined) {
        const Ctor = answer.name === 'RangeError' ? RangeErrorCtor
          : answer.name === 'TypeError' ? TypeErrorCtor : ErrorCtor;
        const err = new Ctor(StringFn(answer.error));
        if (answer.code) err.code = StringFn(answer.code);
        throw err;
      }
      return answer;
    }

    function define(name, value) {
      defineProperty(global, name, { value, writable: true, configurable: true });
    }

    // ------------------------------------------------------------------ bytes and hex
    function bytesOf(source, what) {
      if (source instanceof ArrayBuffer || toStr.call(source) === '[object ArrayBuffer]'
        || toStr.call(source) === '[object SharedArrayBuffer]') return new U8(source);
      if (apply(isView, undefined, [source])) {
        return new U8(source.buffer, source.byteOffset, source.byteLength);
      }
      throw new TypeErrorCtor('The "' + what + '" argument must be an instance of '
        + 'ArrayBuffer or ArrayBufferView.');
    }

    function toHex(bytes) {
      let out = '';
      for (let i = 0; i < bytes.length; i++) out += HEX[bytes[i] >> 4] + HEX[bytes[i] & 15];
      return out;
    }

    function fromHex(hex) {
      const out = new U8(hex.length >> 1);
      for (let i = 0; i < out.length; i++) {
        out[i] = (HEX.indexOf(hex[2 * i]) << 4) | HEX.indexOf(hex[2 * i + 1]);
      }
      return out;
    }

    // UTF-8 of a string as the WHATWG encoder writes it (a lone surrogate is U+FFFD).
    function utf8(text, into, limit) {
      let n = 0;
      let read = 0;
      for (let i = 0; i < text.length; i++) {
        let c = apply(charCode, text, [i]);
        let units = 1;
        if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
          const d = apply(charCode, text, [i + 1]);
          if (d >= 0xdc00 && d <= 0xdfff) {
            c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
            units = 2;
          }
        }
        if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
        const size = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
        if (n + size > limit) break;
        if (into !== null) {
          if (size === 1) into[n] = c;
          else if (size === 2) { into[n] = 0xc0 | (c >> 6); into[n + 1] = 0x80 | (c & 63); } else if (size === 3) {
            into[n] = 0xe0 | (c >> 12); into[n + 1] = 0x80 | ((c >> 6) & 63);
            into[n + 2] = 0x80 | (c & 63);
          } else {
            into[n] = 0xf0 | (c >> 18); into[n + 1] = 0x80 | ((c >> 12) & 63);
            into[n + 2] = 0x80 | ((c >> 6) & 63); into[n + 3] = 0x80 | (c & 63);
          }
        }
        n += size;
        read += units;
        i += units - 1;
      }
      return { read, written: n };
    }

    // ------------------------------------------------------------------ TextEncoder
    class TextEncoder {
      get encoding() { return 'utf-8'; }
      encode(input = '') {
        const text = StringFn(input);
        const out = new U8(utf8(text, null, Infinity).written);
        utf8(text, out, Infinity);
        return out;
      }
      encodeInto(input, dest) {
        if (toStr.call(dest) !== '[object Uint8Array]') {
          throw new TypeErrorCtor('The "dest" argument must be an instance of Uint8Array.');
        }
        return utf8(StringFn(input), dest, dest.length);
      }
    }

    // ------------------------------------------------------------------ TextDecoder
    class TextDecoder {
      #label;
      #fatal;
      #ignoreBOM;
      #encoding;
      constructor(label = 'utf-8', options = {}) {
        this.#label = StringFn(label);
        this.#fatal = Boolean(options && options.fatal);
        this.#ignoreBOM = Boolean(options && options.ignoreBOM);
        this.#encoding = ask({ op: 'text-decode', label: this.#label, hex: '', fatal: false,
          ignoreBOM: false }).encoding;
      }
      get encoding() { return this.#encoding; }
      get fatal() { return this.#fatal; }
      get ignoreBOM() { return this.#ignoreBOM; }
      decode(input = new U8(0)) {
        return ask({ op: 'text-decode', label: this.#label, hex: toHex(bytesOf(input, 'input')),
          fatal: this.#fatal, ignoreBOM: this.#ignoreBOM }).text;
      }
    }

    // ------------------------------------------------------------------ structuredClone
    function cloneError(value) {
      const err = new ErrorCtor(StringFn(typeof value === 'symbol' ? 'Symbol()' : value)
        + ' could not be cloned.');
      err.name = 'DataCloneError';
      return err;
    }

    const ERRORS = { Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError,
      URIError };

    function clone(value, seen) {
      if (typeof value === 'function' || typeof value === 'symbol') throw cloneError(value);
      if (value === null || typeof value !== 'object') return value;
      if (seen.has(value)) return seen.get(value);
      const tag = toStr.call(value);
      let out;
      if (isArray(value)) {
        out = new Array(value.length);
        seen.set(value, out);
        for (const key of ObjectKeys(value)) out[key] = clone(value[key], seen);
        return out;
      }
      if (tag === '[object Date]') out = new Date(value.getTime());
      else if (tag === '[object RegExp]') out = new RegExp(value.source, value.flags);
      else if (tag === '[object Boolean]') out = Object(value.valueOf());
      else if (tag === '[object Number]' || tag === '[object String]'
        || tag === '[object BigInt]') out = Object(value.valueOf());
      else if (tag === '[object ArrayBuffer]') out = value.slice(0);
      else if (apply(isView, undefined, [value])) {
        const buffer = clone(value.buffer, seen);
        const Ctor = tag === '[object DataView]' ? DataView : global[tag.slice(8, -1)];
        out = tag === '[object DataView]' ? new DataView(buffer, value.byteOffset, value.byteLength)
          : new Ctor(buffer, value.byteOffset, value.length);
      } else if (value instanceof Map) {
        out = new Map();
        seen.set(value, out);
        for (const [k, v] of value) out.set(clone(k, seen), clone(v, seen));
        return out;
      } else if (value instanceof Set) {
        out = new Set();
        seen.set(value, out);
        for (const v of value) out.add(clone(v, seen));
        return out;
      } else if (tag === '[object Error]') {
        const Ctor = ERRORS[value.name] || ErrorCtor;
        out = new Ctor(StringFn(value.message));
        if ('stack' in value) out.stack = StringFn(value.stack);
      } else if (tag === '[object Promise]' || tag === '[object WeakMap]'
        || tag === '[object WeakSet]' || tag === '[object Generator]') {
        throw cloneError(value);
      } else {
        out = {};
        seen.set(value, out);
        for (const key of ObjectKeys(value)) out[key] = clone(value[key], seen);
        return out;
      }
      seen.set(value, out);
      return out;
    }

    function structuredClone(value, options) {
      if (arguments.length === 0) {
        throw new TypeErrorCtor('The "value" argument must be specified');
      }
      return clone(value, new Map());
    }

    // ------------------------------------------------------------------ URLSearchParams
    const LINKED = Symbol('url');
    class URLSearchParams {
      #pairs = [];
      constructor(init = '') {
        const linked = init !== null && typeof init === 'object' && init[LINKED] !== undefined;
        defineProperty(this, LINKED, { value: linked ? init[LINKED] : null });
        if (linked) {
          this.#pairs = ask({ op: 'form-parse', text: StringFn(init.text) }).pairs;
          return;
        }
        if (init !== null && (typeof init === 'object' || typeof init === 'function')) {
          if (typeof init[iteratorOf] === 'function') {
            for (const pair of init) {
              const items = [...pair];
              if (items.length !== 2) {
                throw new TypeErrorCtor('Each query pair must be an iterable [name, value] tuple');
              }
              this.#pairs.push([StringFn(items[0]), StringFn(items[1])]);
            }
          } else {
            for (const key of ObjectKeys(init)) this.#pairs.push([key, StringFn(init[key])]);
          }
          return;
        }
        let text = StringFn(init);
        if (text[0] === '?') text = text.slice(1);
        this.#pairs = ask({ op: 'form-parse', text }).pairs;
      }
      #changed() {
        const url = this[LINKED];
        if (url) url.search = this.toString();
      }
      _reset(text) { this.#pairs = ask({ op: 'form-parse', text }).pairs; }
      get size() { return this.#pairs.length; }
      append(name, value) { this.#pairs.push([StringFn(name), StringFn(value)]); this.#changed(); }
      delete(name, value) {
        const n = StringFn(name);
        const v = value === undefined ? undefined : StringFn(value);
        this.#pairs = this.#pairs.filter((p) => !(p[0] === n && (v === undefined || p[1] === v)));
        this.#changed();
      }
      get(name) {
        const n = StringFn(name);
        const found = this.#pairs.find((p) => p[0] === n);
        return found === undefined ? null : found[1];
      }
      getAll(name) {
        const n = StringFn(name);
        return this.#pairs.filter((p) => p[0] === n).map((p) => p[1]);
      }
      has(name, value) {
        const n = StringFn(name);
        const v = value === undefined ? undefined : StringFn(value);
        return this.#pairs.some((p) => p[0] === n && (v === undefined || p[1] === v));
      }
      set(name, value) {
        const n = StringFn(name);
        const v = StringFn(value);
        const at = this.#pairs.findIndex((p) => p[0] === n);
        if (at < 0) this.#pairs.push([n, v]);
        else {
          this.#pairs[at] = [n, v];
          this.#pairs = this.#pairs.filter((p, i) => i <= at || p[0] !== n);
        }
        this.#changed();
      }
      sort() {
        const keyed = this.#pairs.map((p, i) => [p, i]);
        keyed.sort((a, b) => (a[0][0] < b[0][0] ? -1 : a[0][0] > b[0][0] ? 1 : a[1] - b[1]));
        this.#pairs = keyed.map((k) => k[0]);
        this.#changed();
      }
      forEach(fn, self) {
        for (let i = 0; i < this.#pairs.length; i++) {
          apply(fn, self, [this.#pairs[i][1], this.#pairs[i][0], this]);
        }
      }
      *entries() { for (let i = 0; i < this.#pairs.length; i++) yield [this.#pairs[i][0], this.#pairs[i][1]]; }
      *keys() { for (let i = 0; i < this.#pairs.length; i++) yield this.#pairs[i][0]; }
      *values() { for (let i = 0; i < this.#pairs.length; i++) yield this.#pairs[i][1]; }
      [iteratorOf]() { return this.entries(); }
      toString() { return this.#pairs.length ? ask({ op: 'form-text', pairs: this.#pairs }).text : ''; }
      get [Symbol.toStringTag]() { return 'URLSearchParams'; }
    }

    // ------------------------------------------------------------------ URL
    class URL {
      #parts;
      #params = null;
      constructor(input, base) {
        const request = { op: 'url', input: StringFn(input) };
        if (base !== undefined) request.base = StringFn(base);
        this.#parts = parsed(request);
      }
      static canParse(input, base) {
        try {
          new URL(input, base); // eslint-disable-line no-new
          return true;
        } catch (_) {
          return false;
        }
      }
      static parse(input, base) {
        try {
          return new URL(input, base);
        } catch (_) {
          return null;
        }
      }
      #set(field, value) {
        const before = this.#parts.search;
        try {
          this.#parts = ask({ op: 'url-set', href: this.#parts.href, field, value: StringFn(value) });
        } catch (err) {
          if (field === 'href') throw invalidUrl(value);
        }
        if (this.#params !== null && this.#parts.search !== before) {
          this.#params._reset(this.#parts.search.slice(1));
        }
      }
      get href() { return this.#parts.href; }
      set href(v) { this.#set('href', v); }
      get origin() { return this.#parts.origin; }
      get protocol() { return this.#parts.protocol; }
      set protocol(v) { this.#set('protocol', v); }
      get username() { return this.#parts.username; }
      set username(v) { this.#set('username', v); }
      get password() { return this.#parts.password; }
      set password(v) { this.#set('password', v); }
      get host() { return this.#parts.host; }
      set host(v) { this.#set('host', v); }
      get hostname() { return this.#parts.hostname; }
      set hostname(v) { this.#set('hostname', v); }
      get port() { return this.#parts.port; }
      set port(v) { this.#set('port', v); }
      get pathname() { return this.#parts.pathname; }
      set pathname(v) { this.#set('pathname', v); }
      get search() { return this.#parts.search; }
      set search(v) { this.#set('search', v); }
      get hash() { return this.#parts.hash; }
      set hash(v) { this.#set('hash', v); }
      get searchParams() {
        if (this.#params === null) {
          const holder = {};
          holder[LINKED] = this;
          holder.text = this.#parts.search.slice(1);
          this.#params = new URLSearchParams(holder);
        }
        return this.#params;
      }
      toString() { return this.#parts.href; }
      toJSON() { return this.#parts.href; }
      get [Symbol.toStringTag]() { return 'URL'; }
    }

    function invalidUrl(input) {
      const err = new TypeErrorCtor('Invalid URL');
      err.code = 'ERR_INVALID_URL';
      err.input = StringFn(input);
      return err;
    }

    function parsed(request) {
      try {
        return ask(request);
      } catch (_) {
        throw invalidUrl(request.input);
      }
    }

    // ------------------------------------------------------------------ Buffer
    const ENCODINGS = ['utf8', 'utf-8', 'hex', 'base64', 'base64url', 'ascii', 'latin1',
      'binary', 'ucs2', 'ucs-2', 'utf16le', 'utf-16le'];

    function encoding(enc) {
      if (enc === undefined || enc === null) return 'utf8';
      const low = StringFn(enc).toLowerCase();
      if (ENCODINGS.indexOf(low) < 0) {
        const err = new TypeErrorCtor('Unknown encoding: ' + StringFn(enc));
        err.code = 'ERR_UNKNOWN_ENCODING';
        throw err;
      }
      return low;
    }

    function encoded(text, enc) {
      // As Node's ``Buffer.from``: an encoding that is no string, or empty, is UTF-8.
      const e = typeof enc === 'string' && enc !== '' ? encoding(enc) : 'utf8';
      if (e === 'utf8' || e === 'utf-8') {
        const out = new Buffer(utf8(text, null, Infinity).written);
        utf8(text, out, Infinity);
        return out;
      }
      const bytes = fromHex(ask({ op: 'encode', text, encoding: e }).hex);
      const out = new Buffer(bytes.length);
      apply(u8Set, out, [bytes]);
      return out;
    }

    function offsetOf(value, fallback, length) {
      const n = value === undefined ? fallback : MathFloor(NumberFn(value)) || 0;
      return MathMax(0, MathMin(length, n < 0 ? length + n : n));
    }

    class Buffer extends U8 {
      static from(value, encOrOffset, length) {
        if (typeof value === 'string') return encoded(value, encOrOffset);
        if (value instanceof ArrayBuffer || toStr.call(value) === '[object ArrayBuffer]'
          || toStr.call(value) === '[object SharedArrayBuffer]') {
          const offset = encOrOffset === undefined ? 0 : NumberFn(encOrOffset);
          const size = length === undefined ? value.byteLength - offset : NumberFn(length);
          return new Buffer(value, offset, size);
        }
        if (value !== null && typeof value === 'object') {
          if (value.type === 'Buffer' && isArray(value.data)) return Buffer.from(value.data);
          const out = new Buffer(value.length >>> 0);
          for (let i = 0; i < out.length; i++) out[i] = NumberFn(value[i]) & 255;
          return out;
        }
        const err = new TypeErrorCtor('The first argument must be of type string or an '
          + 'instance of Buffer, ArrayBuffer, or Array or an Array-like Object. Received '
          + (value === null ? 'null' : 'type ' + typeof value + ' (' + StringFn(value) + ')'));
        err.code = 'ERR_INVALID_ARG_TYPE';
        throw err;
      }
      static alloc(size, fill, enc) {
        const out = new Buffer(sizeOf(size));
        if (fill !== undefined && fill !== 0 && out.length) out.fill(fill, 0, out.length, enc);
        return out;
      }
      static allocUnsafe(size) { return new Buffer(sizeOf(size)); }
      static allocUnsafeSlow(size) { return new Buffer(sizeOf(size)); }
      static isBuffer(value) { return value instanceof Buffer; }
      static isEncoding(enc) {
        return typeof enc === 'string' && ENCODINGS.indexOf(enc.toLowerCase()) >= 0;
      }
      static byteLength(value, enc) {
        if (typeof value !== 'string') return bytesOf(value, 'string').byteLength;
        const e = encoding(enc);
        return e === 'utf8' || e === 'utf-8' ? utf8(value, null, Infinity).written
          : encoded(value, e).length;
      }
      static concat(list, total) {
        if (!isArray(list)) {
          throw new TypeErrorCtor('The "list" argument must be an instance of Array.');
        }
        let size = 0;
        for (let i = 0; i < list.length; i++) size += list[i].length;
        const out = Buffer.alloc(total === undefined ? size : sizeOf(total));
        let at = 0;
        for (let i = 0; i < list.length && at < out.length; i++) {
          const part = bytesOf(list[i], 'list[' + i + ']');
          const take = apply(u8Subarray, part, [0, MathMin(part.length, out.length - at)]);
          apply(u8Set, out, [take, at]);
          at += take.length;
        }
        return out;
      }
      static compare(a, b) { return Buffer.prototype.compare.call(a, b); }
      toString(enc, start, end) {
        const e = encoding(enc);
        const from = offsetOf(start, 0, this.length);
        const to = offsetOf(end, this.length, this.length);
        if (to <= from) return '';
        const bytes = apply(u8Subarray, this, [from, to]);
        if (e === 'hex') return toHex(bytes);
        return ask({ op: 'decode', hex: toHex(bytes), encoding: e }).text;
      }
      toJSON() { return { type: 'Buffer', data: Array.from(this) }; }
      equals(other) { return this.compare(other) === 0; }
      compare(other) {
        const b = bytesOf(other, 'target');
        const n = MathMin(this.length, b.length);
        for (let i = 0; i < n; i++) if (this[i] !== b[i]) return this[i] < b[i] ? -1 : 1;
        return this.length === b.length ? 0 : this.length < b.length ? -1 : 1;
      }
      slice(start, end) { return this.subarray(start, end); }
      write(text, offset, length, enc) {
        if (typeof offset === 'string') { enc = offset; offset = 0; length = undefined; } else if (typeof length === 'string') { enc = length; length = undefined; }
        const at = offsetOf(offset, 0, this.length);
        const room = MathMin(this.length - at, length === undefined ? Infinity : NumberFn(length));
        const bytes = encoded(StringFn(text), enc);
        const take = apply(u8Subarray, bytes, [0, MathMax(0, room)]);
        apply(u8Set, this, [take, at]);
        return take.length;
      }
      fill(value, start, end, enc) {
        if (typeof start === 'string') { enc = start; start = 0; end = this.length; }
        const from = offsetOf(start, 0, this.length);
        const to = offsetOf(end, this.length, this.length);
        if (typeof value === 'number' || typeof value === 'boolean') {
          return apply(U8.prototype.fill, this, [NumberFn(value) & 255, from, to]);
        }
        const pattern = typeof value === 'string' ? encoded(value, enc) : bytesOf(value, 'value');
        if (!pattern.length) return apply(U8.prototype.fill, this, [0, from, to]);
        for (let i = from; i < to; i++) this[i] = pattern[(i - from) % pattern.length];
        return this;
      }
      indexOf(value, offset, enc) { return search(this, value, offset, enc, false); }
      lastIndexOf(value, offset, enc) { return search(this, value, offset, enc, true); }
      includes(value, offset, enc) { return search(this, value, offset, enc, false) >= 0; }
      copy(target, targetStart, start, end) {
        const from = offsetOf(start, 0, this.length);
        const to = offsetOf(end, this.length, this.length);
        const at = offsetOf(targetStart, 0, target.length);
        const take = apply(u8Subarray, this, [from, MathMin(to, from + target.length - at)]);
        apply(u8Set, target, [take, at]);
        return take.length;
      }
    }

    function sizeOf(size) {
      if (typeof size !== 'number' || !(size >= 0) || size > 0x7fffffff) {
        const err = new RangeErrorCtor('The argument \'size\' is invalid. Received '
          + StringFn(size));
        err.code = 'ERR_OUT_OF_RANGE';
        throw err;
      }
      return MathFloor(size);
    }

    function search(buf, value, offset, enc, last) {
      if (typeof offset === 'string') { enc = offset; offset = undefined; }
      const needle = typeof value === 'number' ? [value & 255]
        : typeof value === 'string' ? encoded(value, enc) : bytesOf(value, 'value');
      const n = buf.length;
      const m = needle.length;
      let start = offset === undefined ? (last ? n - m : 0) : MathFloor(NumberFn(offset)) || 0;
      if (start < 0) start += n;
      const step = last ? -1 : 1;
      for (let i = MathMax(0, MathMin(start, n - m)); last ? i >= 0 : i <= n - m; i += step) {
        let j = 0;
        while (j < m && buf[i + j] === needle[j]) j++;
        if (j === m) return i;
      }
      return -1;
    }

    // Fixed-size reads and writes, as Node names them (``readUInt16BE``, ``readUint16BE``).
    const VIEWS = [['UInt8', 'Uint8', 1], ['Int8', 'Int8', 1], ['UInt16', 'Uint16', 2],
      ['Int16', 'Int16', 2], ['UInt32', 'Uint32', 4], ['Int32', 'Int32', 4],
      ['Float', 'Float32', 4], ['Double', 'Float64', 8], ['BigUInt64', 'BigUint64', 8],
      ['BigInt64', 'BigInt64', 8]];
    function rangeCheck(buf, offset, size) {
      const at = offset === undefined ? 0 : offset;
      if (typeof at !== 'number' || at !== MathFloor(at) || at < 0 || at + size > buf.length) {
        const err = new RangeErrorCtor('The value of "offset" is out of range. It must be >= 0 '
          + 'and <= ' + (buf.length - size) + '. Received ' + StringFn(at));
        err.code = 'ERR_OUT_OF_RANGE';
        throw err;
      }
      return at;
    }
    for (const [name, view, size] of VIEWS) {
      const ends = size === 1 ? [''] : ['LE', 'BE'];
      for (const end of ends) {
        const little = end === 'LE';
        const read = function (offset) {
          const at = rangeCheck(this, offset, size);
          return new DataView(this.buffer, this.byteOffset + at, size)['get' + view](0, little);
        };
        const write = function (value, offset) {
          const at = rangeCheck(this, offset, size);
          new DataView(this.buffer, this.byteOffset + at, size)['set' + view](0, value, little);
          return at + size;
        };
        for (const spelled of [name, name.replace('UInt', 'Uint')]) {
          defineProperty(Buffer.prototype, 'read' + spelled + end, { value: read, writable: true,
            configurable: true });
          defineProperty(Buffer.prototype, 'write' + spelled + end, { value: write,
            writable: true, configurable: true });
        }
      }
    }

    define('TextEncoder', TextEncoder);
    define('TextDecoder', TextDecoder);
    define('structuredClone', structuredClone);
    define('URL', URL);
    define('URLSearchParams', URLSearchParams);
    define('Buffer', Buffer);
    define('setImmediate', (fn, ...args) => global.setTimeout(fn, 0, ...args));
    define('clearImmediate', (id) => global.clearTimeout(id));
    define('global', global);
    // what ``builtins.js`` builds its modules with (the harness hands it on, no program)
    return { Buffer, URL, URLSearchParams, TextEncoder, TextDecoder, ask, encoded, bytesOf,
      toHex, fromHex };
  };
})(globalThis)
