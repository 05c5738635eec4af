// Evaluated inside the version's own vm context, after ``globals.js``: the additions to
// JavaScript's library that Node 22 has and an older supported Node (20) lacks, written
// as the specification says (their order of iteration too), so that a version written for
// today's Node runs where the system's Node is older: ``Object.groupBy``, ``Map.groupBy``,
// ``Promise.withResolvers`` and ``Set.prototype`` ``union``, ``intersection``,
// ``difference``, ``symmetricDifference``, ``isSubsetOf``, ``isSupersetOf``,
// ``isDisjointFrom``. Each is added only where it is missing, non-enumerable as the
// built-ins are; everything here is of the context's realm.
(function (global) {
  'use strict';
  const defineProperty = Object.defineProperty;
  const TypeErrorCtor = TypeError;
  const MapCtor = Map;
  const SetCtor = Set;

  function add(target, name, value) {
    if (Object.prototype.hasOwnProperty.call(target, name)) return;
    defineProperty(value, 'name', { value: name });
    defineProperty(target, name, { value, writable: true, enumerable: false, configurable: true });
  }

  function callable(fn, what) {
    if (typeof fn !== 'function') throw new TypeErrorCtor(what + ' is not a function');
  }

  function groups(items, callback, key) {
    if (items === null || items === undefined) {
      throw new TypeErrorCtor('Object.groupBy called on null or undefined');
    }
    callable(callback, String(callback));
    const out = new MapCtor();
    let k = 0;
    for (const value of items) {
      const group = key(callback(value, k));
      k += 1;
      if (out.has(group)) out.get(group).push(value);
      else out.set(group, [value]);
    }
    return out;
  }

  const propertyKey = (v) => (typeof v === 'symbol' ? v : String(v));
  const mapKey = (v) => (v === 0 ? 0 : v); // -0 is +0, as SameValueZero keys are

  add(Object, 'groupBy', function (items, callback) {
    const out = Object.create(null);
    for (const [k, v] of groups(items, callback, propertyKey)) out[k] = v;
    return out;
  });
  add(MapCtor, 'groupBy', function (items, callback) {
    return groups(items, callback, mapKey);
  });
  add(Promise, 'withResolvers', function () {
    let resolve;
    let reject;
    const promise = new this((res, rej) => { resolve = res; reject = rej; });
    return { promise, resolve, reject };
  });

  // GetSetRecord: what a set method reads of its argument.
  function record(other) {
    if (other === null || (typeof other !== 'object' && typeof other !== 'function')) {
      throw new TypeErrorCtor('The "other" argument must be an object');
    }
    const size = Number(other.size);
    if (size !== size) throw new TypeErrorCtor("The 'size' property must be a number");
    const has = other.has;
    callable(has, "The 'has' property");
    const keys = other.keys;
    callable(keys, "The 'keys' property");
    return { size: Math.max(0, Math.trunc(size)), has: (v) => Boolean(has.call(other, v)),
      keys: function* () {
        const it = keys.call(other);
        for (let step = it.next(); !step.done; step = it.next()) yield step.value;
      } };
  }

  function own(set) {
    if (!(set instanceof SetCtor)) throw new TypeErrorCtor('Method called on an incompatible receiver');
    return set;
  }

  const proto = SetCtor.prototype;
  add(proto, 'union', function (other) {
    const r = record(other);
    const out = new SetCtor(own(this));
    for (const v of r.keys()) out.add(mapKey(v));
    return out;
  });
  add(proto, 'intersection', function (other) {
    const r = record(other);
    const out = new SetCtor();
    if (own(this).size <= r.size) {
      for (const v of [...this]) if (r.has(v)) out.add(v);
    } else {
      for (const v of r.keys()) if (this.has(v)) out.add(mapKey(v));
    }
    return out;
  });
  add(proto, 'difference', function (other) {
    const r = record(other);
    const out = new SetCtor(own(this));
    if (this.size <= r.size) {
      for (const v of [...this]) if (r.has(v)) out.delete(v);
    } else {
      for (const v of r.keys()) out.delete(v);
    }
    return out;
  });
  add(proto, 'symmetricDifference', function (other) {
    const r = record(other);
    const out = new SetCtor(own(this));
    for (const v of r.keys()) {
      if (this.has(v)) out.delete(v);
      else out.add(mapKey(v));
    }
    return out;
  });
  add(proto, 'isSubsetOf', function (other) {
    const r = record(other);
    if (own(this).size > r.size) return false;
    for (const v of [...this]) if (!r.has(v)) return false;
    return true;
  });
  add(proto, 'isSupersetOf', function (other) {
    const r = record(other);
    if (own(this).size < r.size) return false;
    for (const v of r.keys()) if (!this.has(v)) return false;
    return true;
  });
  add(proto, 'isDisjointFrom', function (other) {
    const r = record(other);
    if (own(this).size <= r.size) {
      for (const v of [...this]) if (r.has(v)) return false;
    } else {
      for (const v of r.keys()) if (this.has(v)) return false;
    }
    return true;
  });
})(globalThis)
