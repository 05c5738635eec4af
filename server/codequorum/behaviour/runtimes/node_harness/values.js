// Evaluated inside the version's own vm context before the version's code: the helpers
// that decode inputs, call the version and write its value in the canonical form, built
// from this realm's intrinsics taken now (a version that later changes a prototype or a
// global cannot change how they work). Only strings leave: the canonical form, as JSON.
//
// Canonical form (``codequorum.behaviour.runtimes.js_values`` reads it): JSON null,
// booleans, strings, finite numbers other than -0 and arrays as themselves; everything
// else an object ``{"$": tag, ...}``: number (NaN, -0, Infinity, -Infinity), undefined,
// bigint, symbol, function (a returned one by the calls ``probed`` made), hole, object
// (keys sorted; ``class`` for a class instance),
// map and set (entries sorted by their canonical text), date, regexp, error, promise,
// typed arrays and ArrayBuffer (by their name), boxed, cycle (how many levels up),
// truncated (past the depth, item or character budget, or a whole text past 1 MiB). An
// input may also be a template: a tagged template's strings array (``decode``).
(function (global) {
  'use strict';
  const indirectEval = eval;
  const JSONparse = JSON.parse;
  const JSONstringify = JSON.stringify;
  const ObjectKeys = Object.keys;
  const getProto = Object.getPrototypeOf;
  const ObjectCreate = Object.create;
  const defineProperty = Object.defineProperty;
  const freeze = Object.freeze;
  const ObjectProto = Object.prototype;
  const isArray = Array.isArray;
  const apply = Reflect.apply;
  const construct = Reflect.construct;
  const ownKeys = Reflect.ownKeys;
  const hasOwn = Object.prototype.hasOwnProperty;
  const toStr = Object.prototype.toString;
  const StringFn = String;
  const NumberFn = Number;
  const ObjectIs = Object.is;
  const BigIntFn = BigInt;
  const SymbolFn = Symbol;
  const MapCtor = Map;
  const SetCtor = Set;
  const DateCtor = Date;
  const RegExpCtor = RegExp;
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const mapEntries = Map.prototype.entries;
  const setValues = Set.prototype.values;
  const iterNext = (function () { return getProto(new Map().entries()).next; })();
  const setIterNext = (function () { return getProto(new Set().values()).next; })();
  const mapSet = Map.prototype.set;
  const mapSize = Object.getOwnPropertyDescriptor(Map.prototype, 'size').get;
  const setSize = Object.getOwnPropertyDescriptor(Set.prototype, 'size').get;
  const setAdd = Set.prototype.add;
  const dateIso = Date.prototype.toISOString;
  const dateTime = Date.prototype.getTime;
  const regexpToString = RegExp.prototype.toString;
  const stringSlice = String.prototype.slice;
  const regexpTest = RegExp.prototype.test;
  const getOwnDescriptor = Object.getOwnPropertyDescriptor;
  const isView = ArrayBuffer.isView;
  const arraySort = Array.prototype.sort;
  const arrayPush = Array.prototype.push;
  const arraySlice = Array.prototype.slice;
  const promiseThen = Promise.prototype.then;
  const resolvedPromise = Promise.resolve();
  const charCode = String.prototype.charCodeAt;
  const fromCharCode = String.fromCharCode;
  const stringIndexOf = String.prototype.indexOf;
  const stringReplace = String.prototype.replace;
  const fnName = function (f) {
    try { const n = f.name; return typeof n === 'string' ? text(n) : ''; } catch (e) { return ''; }
  };
  const typedNames = ['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array',
    'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array'];
  const typedCtors = {};
  for (let i = 0; i < typedNames.length; i++) typedCtors[typedNames[i]] = global[typedNames[i]];
  const MAX_DEPTH = 32;
  const MAX_PRINTED = 512 * 1024;
  const MAX_STRING = 1 << 20;
  // The characters one value's strings may take in all: past them a string is truncated;
  // and the value's whole text, which the parent reads no further than 1 MiB (escapes
  // make a string's text longer than the string), is cut there too: never a message too
  // large to send, losing the run.
  const MAX_CHARS = 1 << 19;
  const MAX_TEXT = (1 << 20) - 64;
  const SHOWN = 1000;

  let budget = 0;
  let chars = 0;
  let printed = '';

  function slice(s, start, end) { return apply(stringSlice, s, [start, end]); }

  // A name, a key or a message: itself while the characters last, else its start.
  function text(s) {
    if (s.length > chars) s = slice(s, 0, SHOWN);
    chars -= s.length;
    return s;
  }

  function push(list, item) { apply(arrayPush, list, [item]); }
  // ``probe``: a function the value is (a version's result) is shown by what it does.
  function written(value, probe) {
    probing = probe === true;
    let tree;
    try {
      tree = canon(value, []);
    } finally {
      probing = false;
    }
    const out = JSONstringify(tree);
    return out.length > MAX_TEXT ? JSONstringify({ $: 'truncated', length: out.length }) : out;
  }
  function byText(a, b) { return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0; }
  function sorted(list) { apply(arraySort, list, [byText]); return list; }

  function number(n) {
    if (n !== n) return { $: 'number', v: 'NaN' };
    if (n === Infinity) return { $: 'number', v: 'Infinity' };
    if (n === -Infinity) return { $: 'number', v: '-Infinity' };
    if (ObjectIs(n, -0)) return { $: 'number', v: '-0' };
    return n;
  }

  function tagOf(value) { return apply(toStr, value, []); }

  // Whether ``check`` accepts ``value`` as its receiver: a brand check no
  // ``Symbol.toStringTag`` can forge or hide (a Map is a Map whatever its tag says).
  function branded(check, value) {
    try { apply(check, value, []); return true; } catch (e) { return false; }
  }

  function canon(value, stack) {
    budget -= 1;
    if (budget < 0 || stack.length > MAX_DEPTH) return { $: 'truncated' };
    const t = typeof value;
    if (t === 'string' && (value.length > MAX_STRING || value.length > chars)) {
      return { $: 'truncated', v: text(slice(value, 0, SHOWN)), length: value.length };
    }
    if (t === 'string') chars -= value.length;
    if (value === null || t === 'boolean' || t === 'string') return value;
    if (t === 'number') return number(value);
    if (t === 'undefined') return { $: 'undefined' };
    if (t === 'bigint') return { $: 'bigint', v: StringFn(value) };
    if (t === 'symbol') return { $: 'symbol', v: text(StringFn(value.description)) };
    if (t === 'function') {
      return probing && !stack.length ? probed(value) : { $: 'function', v: fnName(value) };
    }
    for (let i = 0; i < stack.length; i++) {
      if (stack[i] === value) return { $: 'cycle', v: stack.length - i };
    }
    push(stack, value);
    try {
      return canonObject(value, stack);
    } finally {
      stack.length -= 1;
    }
  }

  // A function a version returns (``once(f)``, ``memoize(f)``, ``adder(3)``) is shown by
  // what it does, not by its name: ``{"$": "function", "calls": [[args, value], ...]}``,
  // ``[args, null, name]`` where a call threw ``name``. One parameter (or none declared:
  // a rest parameter) is given each of PROBES, the first again last, so that one that
  // remembers (``once``, a cache, a counter) answers differently from one that does not;
  // more are given ``(1, 2)``, ``(2, 3)``, ``(1, 5)`` and ``(1, 2)`` again (the third the
  // first with its last argument changed: a cache keyed on the first argument alone
  // answers it from the first call), as ``doctest_run.probe_rows`` gives Python's. A function inside what a probe gives is only a
  // function, and one inside the returned value (a method of an object) is not called.
  //
  // What a function an input passes is called with while the probes run, and by the
  // timers left once they are made (at most MAX_TICKS, the clock moved to each), is kept
  // too, as ``heard``: a ``debounce`` that calls once after the last call differs from one
  // that calls after every call, and ``memoize`` from a wrapper that caches nothing,
  // though every probe returns ``undefined`` or the same value; what the timers made
  // heard comes after a ``{"$": "later"}`` mark (laterMarked). A timer's callback that
  // throws is heard as ``{"$": "throws", "v": name}``; past MAX_HEARD calls, one
  // ``{"$": "truncated"}``.
  const PROBES = [1, 2, 1];
  const MAX_ARITY = 3;
  const MAX_TICKS = 100;
  const MAX_HEARD = 100;
  let probing = false;
  let listening = false;
  let heard = [];

  // An input's function that writes down its calls while a returned function is probed,
  // with the length and name a version may read (``curry`` reads ``length``).
  function recording(fn) {
    if (typeof fn !== 'function') return fn;
    const made = function () {
      if (listening && heard.length < MAX_HEARD) {
        push(heard, canon(apply(arraySlice, arguments, []), []));
      } else if (listening && heard.length === MAX_HEARD) {
        push(heard, { $: 'truncated' });
      }
      return new.target === undefined ? apply(fn, this, arguments)
        : construct(fn, apply(arraySlice, arguments, []), new.target);
    };
    defineProperty(made, 'length', { value: fn.length });
    defineProperty(made, 'name', { value: fn.name });
    return made;
  }

  function probed(fn) {
    probing = false;
    heard = [];
    listening = true;
    try {
      const calls = probeCalls(fn);
      const atOnce = heard.length;
      for (let k = 0; k < MAX_TICKS; k++) {
        try {
          if (!tick()) break;
        } catch (err) {
          push(heard, { $: 'throws', v: excType(err) });
        }
      }
      if (heard.length > atOnce) heard = laterMarked(heard, atOnce);
      return heard.length ? { $: 'function', calls, heard } : { $: 'function', calls };
    } finally {
      listening = false;
    }
  }

  // ``heard`` with ``{"$": "later"}`` before what the timers' callbacks heard: a
  // ``debounce`` calling on the first call (leading) parts from one calling after the
  // last (trailing), though both hear the same arguments.
  function laterMarked(all, atOnce) {
    const out = [];
    for (let i = 0; i < all.length; i++) {
      if (i === atOnce) push(out, { $: 'later' });
      push(out, all[i]);
    }
    return out;
  }

  function probeRows(width) {
    const rows = [];
    if (width <= 1) {
      for (let i = 0; i < PROBES.length; i++) push(rows, [PROBES[i]]);
      return rows;
    }
    const first = [], second = [], third = [], again = [];
    for (let j = 0; j < width; j++) {
      push(first, j + 1);
      push(second, j + 2);
      push(third, j + 1 < width ? j + 1 : width + 3);
      push(again, j + 1);
    }
    return [first, second, third, again];
  }

  function probeCalls(fn) {
    let width = 1;
    try {
      const n = fn.length;
      if (typeof n === 'number' && n > 1) width = n < MAX_ARITY ? n : MAX_ARITY;
    } catch (e) { /* a length getter of the version's that throws */ }
    const calls = [];
    const rows = probeRows(width);
    for (let i = 0; i < rows.length; i++) {
      const args = rows[i];
      let value;
      try {
        value = apply(fn, undefined, args);
      } catch (err) {
        push(calls, [args, null, excType(err)]);
        continue;
      }
      push(calls, [args, canon(value, [])]);
    }
    return calls;
  }

  // Sorted entries; null when there are more than the item budget holds.
  function entriesOf(iterator, next, pairs, stack) {
    const out = [];
    for (;;) {
      const step = apply(next, iterator, []);
      if (step.done) break;
      if (budget < 0) return null;
      const item = step.value;
      if (pairs) {
        const k = canon(item[0], stack);
        push(out, [JSONstringify(k), [k, canon(item[1], stack)]]);
      } else {
        const v = canon(item, stack);
        push(out, [JSONstringify(v), v]);
      }
    }
    sorted(out);
    const result = [];
    for (let i = 0; i < out.length; i++) push(result, out[i][1]);
    return result;
  }

  // A generator's items (the first MAX_YIELDED), as a caller spreading it sees them:
  // ``{"$": "generator", "v": [...]}``, with ``raised`` when it threw on the way; null
  // when the value is not a generator of this realm.
  const MAX_YIELDED = 1000;
  const generatorNext = getProto(function* () {}).prototype.next;
  function yielded(value, stack) {
    const items = [];
    try {
      for (let i = 0; i < MAX_YIELDED && budget >= 0; i++) {
        const step = apply(generatorNext, value, []);
        if (step.done) return { $: 'generator', v: items };
        push(items, canon(step.value, stack));
      }
    } catch (err) {
      if (!items.length && apply(regexpTest, /incompatible receiver/, [excMessage(err)])) {
        return null;  // not a generator of this realm: its tag was a name only
      }
      return { $: 'generator', v: items, raised: excType(err) };
    }
    return { $: 'generator', v: items, more: true };
  }

  function canonObject(value, stack) {
    const tag = tagOf(value);
    if (isArray(value)) {
      const out = [];
      const n = value.length;
      for (let i = 0; i < n && budget >= 0; i++) {
        push(out, apply(hasOwn, value, [i]) ? canon(value[i], stack) : { $: 'hole' });
      }
      return out;
    }
    if (branded(mapSize, value)) {
      const v = entriesOf(apply(mapEntries, value, []), iterNext, true, stack);
      return v === null ? { $: 'truncated' } : { $: 'map', v };
    }
    if (branded(setSize, value)) {
      const v = entriesOf(apply(setValues, value, []), setIterNext, false, stack);
      return v === null ? { $: 'truncated' } : { $: 'set', v };
    }
    if (branded(dateTime, value)) {
      const time = apply(dateTime, value, []);
      return { $: 'date', v: time !== time ? 'Invalid Date' : apply(dateIso, value, []) };
    }
    if (tag === '[object RegExp]') return { $: 'regexp', v: apply(regexpToString, value, []) };
    if (tag === '[object Promise]') return { $: 'promise' };
    if (tag === '[object Generator]') {
      const items = yielded(value, stack);
      if (items !== null) return items;
    }
    if (tag === '[object Error]') {
      return { $: 'error', class: fnName(value.constructor), v: text(StringFn(value.message)) };
    }
    if (tag === '[object ArrayBuffer]') {
      const bytes = new typedCtors.Uint8Array(value);
      if (bytes.length > budget) return { $: 'truncated', v: 'ArrayBuffer', length: bytes.length };
      budget -= bytes.length;
      const out = [];
      for (let i = 0; i < bytes.length; i++) push(out, bytes[i]);
      return { $: 'ArrayBuffer', v: out };
    }
    const name = slice(tag, 8, -1);
    if (typedCtors[name] !== undefined && apply(isView, undefined, [value])) {
      const n = value.length;
      if (n > budget) return { $: 'truncated', v: name, length: n };
      budget -= n;
      const out = [];
      for (let i = 0; i < n; i++) {
        push(out, typeof value[i] === 'bigint' ? StringFn(value[i]) : number(value[i]));
      }
      return { $: name, v: out };
    }
    if (tag === '[object Number]' || tag === '[object String]' || tag === '[object Boolean]') {
      return { $: 'boxed', v: canon(value.valueOf(), stack) };
    }
    const keys = ownKeys(value);
    const pairs = [];
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      if (typeof key === 'symbol') continue;
      const desc = getOwnDescriptor(value, key);
      if (!desc || !desc.enumerable) continue;
      const shown = text(key);
      push(pairs, [shown, [shown, canon(value[key], stack)]]);
    }
    sorted(pairs);
    const v = [];
    for (let i = 0; i < pairs.length; i++) push(v, pairs[i][1]);
    const proto = getProto(value);
    if (proto === ObjectProto || proto === null) return { $: 'object', v };
    let cls = '';
    try { cls = fnName(proto.constructor); } catch (e) { cls = ''; }
    return { $: 'object', class: cls, v };
  }

  function decode(data) {
    if (data === null || typeof data !== 'object') return data;
    if (isArray(data)) {
      const out = [];
      for (let i = 0; i < data.length; i++) {
        const item = data[i];
        if (item !== null && typeof item === 'object' && item.$ === 'hole') { out.length += 1; continue; }
        push(out, decode(item));
      }
      return out;
    }
    const v = data.v;
    switch (data.$) {
      case 'number': return NumberFn(v);
      case 'undefined': return undefined;
      case 'bigint': return BigIntFn(v);
      case 'symbol': return SymbolFn(v);
      case 'date': return new DateCtor(v);
      case 'regexp': {
        const at = v.lastIndexOf('/');
        return new RegExpCtor(v.slice(1, at), v.slice(at + 1));
      }
      case 'map': {
        const m = new MapCtor();
        for (let i = 0; i < v.length; i++) apply(mapSet, m, [decode(v[i][0]), decode(v[i][1])]);
        return m;
      }
      case 'set': {
        const s = new SetCtor();
        for (let i = 0; i < v.length; i++) apply(setAdd, s, [decode(v[i])]);
        return s;
      }
      case 'source':
        // A function an input passes (an example's ``x => x + 1``, one drawn for a
        // callback's type): its text, evaluated here in the version's own context.
        return recording(indirectEval('(' + StringFn(v) + '\n)'));
      case 'template': {
        // A tagged template's strings array, as the tag receives it (a
        // TemplateStringsArray): frozen, its frozen ``raw`` not enumerable.
        const strings = decode(v);
        const raw = [];
        for (let i = 0; i < data.raw.length; i++) push(raw, StringFn(data.raw[i]));
        defineProperty(strings, 'raw', { value: freeze(raw), writable: false,
          enumerable: false, configurable: false });
        return freeze(strings);
      }
      case 'object': {
        const o = {};
        for (let i = 0; i < v.length; i++) {
          defineProperty(o, StringFn(v[i][0]), { value: decode(v[i][1]), enumerable: true,
            writable: true, configurable: true });
        }
        return o;
      }
      default:
        if (typedCtors[data.$] !== undefined) return new typedCtors[data.$](decode(v));
        throw new ErrorCtor('unknown value tag ' + StringFn(data.$));
    }
  }

  function describe(err) {
    try {
      if (err !== null && typeof err === 'object') {
        const name = fnName(err.constructor) || 'Error';
        return slice(name + ': ' + StringFn(err.message), 0, 2000);
      }
      return slice('thrown: ' + StringFn(err), 0, 2000);
    } catch (e) {
      return 'an exception that cannot be described';
    }
  }

  function excType(err) {
    try {
      if (err !== null && typeof err === 'object') {
        const name = fnName(err.constructor);
        if (name === 'RangeError' && apply(regexpTest, /call stack/, [StringFn(err.message)])) {
          return 'RecursionError';
        }
        return name || 'Error';
      }
    } catch (e) { /* a getter that throws */ }
    return 'Thrown';
  }

  function excMessage(err) {
    try {
      if (err !== null && typeof err === 'object') return slice(StringFn(err.message), 0, 2000);
      return slice(StringFn(err), 0, 2000);
    } catch (e) {
      return '';
    }
  }

  // What ``holder`` (or an object it inherits from) has under ``name``, read from the
  // descriptors: a method, else a getter (``get area() {...}``, run as a method of no
  // argument), else undefined. A getter is read only where ``read`` says ``holder`` is its
  // own receiver (an object, a namespace, a class's statics): where it gives a function
  // (a namespace's or a module's export binding), that function is the one; on a class's
  // prototype it is never read (its ``this`` would be the prototype: ``this.#w`` throws).
  function member(holder, name, read) {
    let at = holder;
    for (let depth = 0; at !== null && at !== undefined && depth < 64; depth++) {
      let desc;
      try { desc = getOwnDescriptor(at, name); } catch (e) { return undefined; }
      if (desc !== undefined) {
        if (typeof desc.value === 'function') return desc.value;
        if (typeof desc.get !== 'function') return undefined;
        if (read) {
          let got;
          try { got = holder[name]; } catch (e) { got = undefined; }
          if (typeof got === 'function') return got;
        }
        return desc.get;
      }
      try { at = getProto(at); } catch (e) { return undefined; }
    }
    return undefined;
  }

  function find(made, wrap, entry) {
    // The function named ``entry`` (``Name``, ``Owner.name``, or ``A.B.Owner.name`` in a
    // TypeScript namespace, an object holding what it exports) the version defined; a
    // getter of that name stands for it, and a class's ``constructor`` for the class, called
    // with ``new`` (its value is the instance it makes).
    if (!/^[A-Za-z_$][\w$]*(\.#?[A-Za-z_$][\w$]*)*$/.test(entry)) {
      return 'not a function name: ' + entry.slice(0, 100);
    }
    const parts = entry.split('.');
    const last = parts[parts.length - 1];
    if (wrap === 'class' && last[0] === '#') return privateOf(made, last);
    if (wrap === 'class' && last === 'constructor') return { fn: made, self: undefined, make: true };
    if (wrap === 'class') {
      const own = member(made.prototype, last, false);
      if (own !== undefined) return { fn: own, self: 'instance', cls: made, name: last };
      const fixed = member(made, last, true);
      if (fixed !== undefined) return { fn: fixed, self: made };
      return fieldOf(made, last);
    }
    if (wrap === 'object') {
      const fn = member(made, last, true);
      if (fn !== undefined) return { fn, self: made };
      return 'the version defines no method ' + last;
    }
    let owner;
    try {
      owner = indirectEval('typeof ' + parts[0] + " === 'undefined' ? undefined : " + parts[0]);
    } catch (e) {
      owner = undefined;
    }
    if (parts.length === 1) {
      if (typeof owner === 'function') return { fn: owner, self: undefined };
      const exported = exportedFunction(last);
      if (exported !== null) return exported;
      return 'the version defines no function ' + entry;
    }
    let at = 1;
    for (; at < parts.length - 1 && owner !== undefined && owner !== null; at++) {
      try {
        owner = owner[parts[at]];
      } catch (e) {
        owner = undefined;
      }
    }
    if (owner === undefined || owner === null) {
      return 'the version defines no ' + parts.slice(0, at).join('.');
    }
    if (last[0] === '#') return privateOf(owner, last);
    if (typeof owner === 'function' && last === 'constructor') {
      return { fn: owner, self: undefined, make: true };  // ``new Range(3, 1)``
    }
    const own = typeof owner === 'function' && owner.prototype
      ? member(owner.prototype, last, false) : undefined;
    if (own !== undefined) return { fn: own, self: 'instance', cls: owner, name: last };
    const fixed = member(owner, last, true);
    if (fixed !== undefined) return { fn: fixed, self: owner };
    if (typeof owner === 'function' && owner.prototype) return fieldOf(owner, last);
    return 'the version defines no method ' + entry;
  }

  // A private method ``#m`` of the class ``cls``: the function the static block after it
  // set (``js_modules.with_private_caller``), called on an instance, or on the class for a
  // static one.
  function privateOf(cls, name) {
    if (typeof cls !== 'function') return 'the version defines no class for ' + name;
    const fixed = getOwnDescriptor(cls, '__codequorum_private_static');
    if (fixed !== undefined && typeof fixed.value === 'function') return { fn: fixed.value, self: cls };
    const own = getOwnDescriptor(cls, '__codequorum_private');
    if (own !== undefined && typeof own.value === 'function') {
      return { fn: own.value, self: 'instance', cls, name };
    }
    return 'the version defines no private method ' + name;
  }

  // A class's field holding a function (``double = (n) => n * 2;``): on no prototype, it is
  // each instance's own, read from the instance the call is made on (``invoke``).
  function fieldOf(cls, name) {
    return { fn: null, self: 'instance', cls, name, field: true };
  }

  // CommonJS: ``module.exports = function (...) {}`` (the module is the function),
  // ``exports.name = ...`` or ``module.exports = { name }``; null when none is there.
  function exportedFunction(name) {
    const exported = moduleObject.exports;
    if (typeof exported === 'function') return { fn: exported, self: undefined };
    if (exported === null || typeof exported !== 'object') return null;
    if (typeof exported[name] === 'function') return { fn: exported[name], self: exported };
    if (typeof exported.default === 'function') return { fn: exported.default, self: exported };
    return null;
  }

  // ``btoa`` and ``atob`` as Node and browsers give them (Latin-1 text, Base64).
  const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  function invalid(message) {
    const err = new ErrorCtor(message);
    err.name = 'InvalidCharacterError';
    return err;
  }
  function base64(text) {
    let out = '';
    for (let i = 0; i < text.length; i += 3) {
      const codes = [apply(charCode, text, [i]), apply(charCode, text, [i + 1]),
        apply(charCode, text, [i + 2])];
      for (let k = 0; k < 3; k++) if (codes[k] > 255) throw invalid('Invalid character');
      const n = (codes[0] << 16) | ((codes[1] || 0) << 8) | (codes[2] || 0);
      const left = text.length - i;
      out += B64[(n >> 18) & 63] + B64[(n >> 12) & 63]
        + (left > 1 ? B64[(n >> 6) & 63] : '=') + (left > 2 ? B64[n & 63] : '=');
    }
    return out;
  }
  function unbase64(data) {
    const text = apply(stringReplace, data, [/[\t\n\f\r ]/g, '']);
    const bare = apply(stringReplace, text, [/==?$/, '']);
    if (bare.length % 4 === 1 || /[^A-Za-z0-9+/]/.test(bare)) throw invalid('Invalid character');
    let out = '';
    let bits = 0;
    let value = 0;
    for (let i = 0; i < bare.length; i++) {
      value = (value << 6) | apply(stringIndexOf, B64, [bare[i]]);
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        out += fromCharCode((value >> bits) & 255);
      }
    }
    return out;
  }

  let pending = null;

  // ``receiverJson``: the arguments a method's instance is made with (``new C(...)``, as a
  // test of the workspace makes it); without them the instance is ``new C()`` (its fields
  // and private fields set up), or a bare one of its class when that constructor throws.
  // ``stepsJson``: calls replayed on it first (``[["push", [1]], ...]``, an example's
  // setup), the version under test in its method's place; ``method``: the method called
  // last when it is not the one under test (an example of ``push`` shown by ``peek``);
  // ``chained``: each step and the last call are made on what the step before returned
  // (``new Bag().add(1).distinct()``), else all on the instance.
  function stage(target, argsJson, receiverJson, stepsJson, method, chained) {
    pending = [target, argsJson, receiverJson, stepsJson, method, chained === true];
  }

  function methodOf(target, self, name) {
    // a chain's step that returned nothing: the line itself throws there
    if (self === null || self === undefined) return self[name];
    if (name !== target.name || target.field) {
      const fn = self[name];
      if (typeof fn !== 'function') throw new TypeErrorCtor('the version defines no method ' + name);
      return fn;
    }
    return target.fn;
  }

  // The instance after the steps: the same one, or what the last step returned in a chain.
  function replay(target, self, stepsJson, chained) {
    const steps = JSONparse(stepsJson);
    for (let k = 0; k < steps.length; k++) {
      const value = apply(methodOf(target, self, StringFn(steps[k][0])), self, decode(steps[k][1]));
      if (chained) self = value;
    }
    return self;
  }

  function invoke() {
    const target = pending[0];
    const argsJson = pending[1];
    const receiverJson = pending[2];
    const stepsJson = pending[3];
    const method = pending[4];
    const chained = pending[5];
    pending = null;
    printed = '';
    timers = [];
    clock = 0;
    seed = SEED;
    budget = 10000;
    chars = MAX_CHARS;
    let result;
    try {
      const args = decode(JSONparse(argsJson));
      let self = target.self;
      if (self === 'instance') {
        if (typeof receiverJson === 'string') {
          self = construct(target.cls, decode(JSONparse(receiverJson)));
        } else {
          try { self = construct(target.cls, []); } catch (e) { self = ObjectCreate(target.cls.prototype); }
        }
      }
      let fn = target.fn;
      if (target.self === 'instance') {
        if (typeof stepsJson === 'string') self = replay(target, self, stepsJson, chained);
        fn = methodOf(target, self, typeof method === 'string' ? method : target.name);
      }
      result = target.make ? construct(fn, args) : apply(fn, self, args);
    } catch (err) {
      return JSONstringify({ exc_type: excType(err), exc_message: excMessage(err), printed });
    }
    if (result !== null && typeof result === 'object' && tagOf(result) === '[object Promise]') {
      // An async version: its value is what the promise settles to once the context's
      // microtasks have run (``settle``, evaluated next); still pending, it says so.
      settled = null;
      apply(promiseThen, result, [
        function (value) {
          settled = JSONstringify({ output: written(value, true), printed });
        },
        function (err) {
          settled = JSONstringify({ exc_type: excType(err), exc_message: excMessage(err),
            printed });
        },
      ]);
      return JSONstringify({ awaiting: true });
    }
    return JSONstringify({ output: written(result, true), printed });
  }

  let settled = null;

  // A clock of the version's own: ``setTimeout`` and ``setInterval`` queue their callbacks,
  // and while an async version's promise waits, ``tick`` (evaluated by the harness, its
  // microtasks run after it) fires the earliest one and moves the clock there: a delay
  // costs no time, and callbacks run in the order real timers would run them.
  let timers = [];
  let clock = 0;
  let timerSeq = 0;

  function addTimer(fn, ms, args, every) {
    timerSeq += 1;
    const delay = NumberFn(ms) > 0 ? NumberFn(ms) : 0;
    push(timers, { id: timerSeq, at: clock + delay, fn, args, every: every ? delay : -1 });
    return timerSeq;
  }

  function clearTimer(id) {
    const kept = [];
    for (let i = 0; i < timers.length; i++) if (timers[i].id !== id) push(kept, timers[i]);
    timers = kept;
  }

  function tick() {
    if (!timers.length) return false;
    let first = 0;
    for (let i = 1; i < timers.length; i++) {
      const a = timers[i], b = timers[first];
      if (a.at < b.at || (a.at === b.at && a.id < b.id)) first = i;
    }
    const timer = timers[first];
    clearTimer(timer.id);
    clock = timer.at;
    if (timer.every >= 0) push(timers, { id: timer.id, at: clock + timer.every, fn: timer.fn,
      args: timer.args, every: timer.every });
    if (typeof timer.fn === 'function') apply(timer.fn, undefined, timer.args);
    return true;
  }

  function settle() {
    const answer = settled;
    settled = null;
    if (answer !== null) return answer;
    if (timers.length) return JSONstringify({ awaiting: true });
    return JSONstringify({ output: JSONstringify({ $: 'promise', v: 'pending' }), printed });
  }

  // What the version prints, with budgets of its own (the value's stay whole).
  function log() {
    const kept = [budget, chars];
    let line = '';
    for (let i = 0; i < arguments.length && line.length < MAX_PRINTED; i++) {
      const a = arguments[i];
      budget = 10000;
      chars = MAX_CHARS;
      line += (i ? ' ' : '') + (typeof a === 'string' ? a : JSONstringify(canon(a, [])));
    }
    budget = kept[0];
    chars = kept[1];
    if (printed.length < MAX_PRINTED) printed += slice(line, 0, MAX_PRINTED - printed.length) + '\n';
  }

  // Node's other console methods print through ``log`` too (a table or a tree as the
  // canonical text of what they show; ``assert`` only when it fails, as Node's); timers
  // and groups print nothing: a time would differ on every run.
  const counts = ObjectCreate(null);
  const nothing = function () {};
  const consoleObject = {
    log, info: log, warn: log, error: log, debug: log, trace: log, dir: log, dirxml: log,
    table: log, group: log, groupCollapsed: log, groupEnd: nothing, time: nothing,
    timeEnd: nothing, timeLog: nothing,
    assert(ok, ...rest) {
      if (!ok) apply(log, undefined, ['Assertion failed' + (rest.length ? ':' : ''), ...rest]);
    },
    count(label = 'default') {
      const key = StringFn(label);
      counts[key] = (counts[key] || 0) + 1;
      log(key + ': ' + counts[key]);
    },
    countReset(label = 'default') { counts[StringFn(label)] = 0; },
  };
  // A CommonJS version's ``module.exports = f`` has somewhere to go (inner objects).
  const moduleObject = { exports: {} };
  defineProperty(global, 'module', { value: moduleObject, writable: true, configurable: true });
  defineProperty(global, 'exports', { value: moduleObject.exports, writable: true,
    configurable: true });
  defineProperty(global, 'console', { value: consoleObject, writable: true, configurable: true });
  defineProperty(global, '__codequorum_invoke', { value: invoke, writable: false,
    enumerable: false, configurable: false });
  defineProperty(global, '__codequorum_settle', { value: settle, writable: false,
    enumerable: false, configurable: false });
  defineProperty(global, '__codequorum_tick', { value: tick, writable: false,
    enumerable: false, configurable: false });
  // ``find`` run as a script of the context (``__codequorum_find()``, staged by ``look``):
  // a getter it reads is the version's code, so it runs under the script's time limit.
  let looking = null;
  function look(made, wrap, entry) { looking = [made, wrap, entry]; }
  function lookUp() {
    const staged = looking;
    looking = null;
    return staged === null ? 'nothing was looked for' : find(staged[0], staged[1], staged[2]);
  }
  defineProperty(global, '__codequorum_find', { value: lookUp, writable: false,
    enumerable: false, configurable: false });
  // The time and the chance a version sees: every version of a set runs at one instant,
  // ``NOW``, moved on by the clock its timers keep, and ``Math.random`` draws one seeded
  // sequence from the start of each input. Identical versions then never differ by when
  // they ran or by luck; versions that read the time or draw differently still do.
  const NOW = 1735732800000;  // 2025-01-01T12:00:00.000Z
  const dateString = DateCtor.prototype.toString;
  function FixedDate(...args) {
    if (new.target === undefined) return apply(dateString, new DateCtor(NOW + clock), []);
    return construct(DateCtor, args.length ? args : [NOW + clock], new.target);
  }
  defineProperty(FixedDate, 'prototype', { value: DateCtor.prototype });
  defineProperty(FixedDate, 'length', { value: 7 });
  defineProperty(FixedDate, 'name', { value: 'Date' });
  for (const key of ['parse', 'UTC']) {
    defineProperty(FixedDate, key, { value: DateCtor[key], writable: true, configurable: true });
  }
  defineProperty(FixedDate, 'now', { value: function now() { return NOW + clock; }, writable: true,
    configurable: true });
  defineProperty(DateCtor.prototype, 'constructor', { value: FixedDate, writable: true,
    configurable: true });
  defineProperty(global, 'Date', { value: FixedDate, writable: true, configurable: true });
  const SEED = 0x2545f491;
  let seed = SEED;
  const imul = Math.imul;
  function random() {  // mulberry32
    seed = (seed + 0x6d2b79f5) | 0;
    let t = seed;
    t = imul(t ^ (t >>> 15), t | 1);
    t ^= t + imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  defineProperty(Math, 'random', { value: random, writable: true, configurable: true });
  const timerFunctions = {
    setTimeout(fn, ms, ...args) { return addTimer(fn, ms, args, false); },
    setInterval(fn, ms, ...args) { return addTimer(fn, ms, args, true); },
    clearTimeout(id) { clearTimer(id); },
    clearInterval(id) { clearTimer(id); },
    queueMicrotask(fn) { apply(promiseThen, resolvedPromise, [fn]); },
    btoa(data) { return base64(StringFn(data)); },
    atob(data) { return unbase64(StringFn(data)); },
  };
  const timerNames = ObjectKeys(timerFunctions);
  for (let i = 0; i < timerNames.length; i++) {
    defineProperty(global, timerNames[i], { value: timerFunctions[timerNames[i]],
      writable: true, configurable: true });
  }
  return { look, stage, describe };
})(globalThis)
