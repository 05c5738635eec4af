// The module loader of a version's context: evaluated inside the version's ``vm`` context,
// so that what it makes (``require``, ``module``, ``exports``) belongs to that realm only.
//
// Its files came in the run message (the view of the workspace the parent read, each a
// CommonJS script: ``js_modules.py``); there is no file system behind it. ``require`` of
// a relative path, a package of a ``node_modules`` folder of the view or a ``#`` specifier
// its package's ``imports`` map is looked up as Node looks it up (the same order as
// ``js_module_view.py``); ``buffer`` and ``url`` are the context's own globals. A package
// the view does not hold (``@angular/core``, ``react``) is an absent package: importing it
// works, and any use of what it gives (a call, ``new``, reading a value of it) throws, so a
// module whose functions never use it still loads (``absent()`` names them). Node's own
// modules, a relative path that is not there and a path that leads above the view throw as
// a missing module does.
(function (global) {
  'use strict';
  let files = Object.create(null);
  const has = (p) => Object.prototype.hasOwnProperty.call(files, p);
  const EXTENSIONS = ['.js', '.ts', '.mjs', '.cjs', '.mts', '.cts', '.json'];
  const cache = Object.create(null);
  const indirectEval = eval;

  function normalize(path) {
    const out = [];
    for (const part of path.split('/')) {
      if (part === '' || part === '.') continue;
      if (part === '..') {
        if (out.length === 0) return null;
        out.pop();
      } else out.push(part);
    }
    return out.join('/');
  }

  function dirname(path) {
    const at = path.lastIndexOf('/');
    return at < 0 ? '' : path.slice(0, at);
  }

  function join(a, b) {
    return a ? a + '/' + b : b;
  }

  // The TypeScript source a specifier of the JavaScript it compiles to names
  // (``./util.js`` in ``index.ts`` loads ``util.ts``), as ``js_module_view.py`` reads it.
  const TS_SOURCES = { '.js': ['.ts', '.tsx'], '.mjs': ['.mts'], '.cjs': ['.cts'], '.jsx': ['.tsx'] };

  function typescriptSources(base) {
    const dot = base.lastIndexOf('.');
    if (dot <= base.lastIndexOf('/')) return [];
    const ts = TS_SOURCES[base.slice(dot)];
    return ts ? ts.map((e) => base.slice(0, dot) + e) : [];
  }

  function locate(base) {
    if (base === null) return null;
    const tries = [base].concat(EXTENSIONS.map((e) => base + e), EXTENSIONS.map((e) => base + '/index' + e),
      typescriptSources(base));
    for (const t of tries) {
      const p = normalize(t);
      if (p !== null && (has(p) || p === entry)) return p;
    }
    return null;
  }

  // The module under test runs as the context's script, not as a file of the view; a file
  // that loads it back (``utils.ts`` imports ``./parse``, which imports ``./utils``) gets
  // its exports as Node would give them in the middle of that cycle: what it has exported
  // so far, and each top-level name it declares, read when it is asked for (a function
  // declaration is there from the start, as it is hoisted; a name not yet set reads as
  // ``undefined``).
  let entry = null;
  const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

  function entryExports() {
    const exported = () => {
      const exp = global.module && global.module.exports;
      return exp !== null && (typeof exp === 'object' || typeof exp === 'function') ? exp : {};
    };
    const read = (key) => {
      const exp = exported();
      if (key in exp) return exp[key];
      if (key === '__esModule') return true;
      if (typeof key !== 'string' || !IDENTIFIER.test(key)) return undefined;
      try { return indirectEval(key); } catch (e) { return undefined; }
    };
    return new Proxy(Object.create(null), {
      get: (_t, key) => read(key),
      has: (_t, key) => read(key) !== undefined,
      ownKeys: () => Reflect.ownKeys(exported()).filter((k) => typeof k === 'string'),
      getOwnPropertyDescriptor: (_t, key) => (key in exported()
        ? { value: read(key), enumerable: true, configurable: true, writable: false }
        : undefined),
      set: () => false, defineProperty: () => false, deleteProperty: () => false,
    });
  }

  function main(info) {
    let exp = info && info.exports;
    if (exp && typeof exp === 'object' && !Array.isArray(exp)) exp = '.' in exp ? exp['.'] : exp;
    // the conditions in ``js_module_view.py``'s order, nested ones followed
    for (let i = 0; i < 4 && exp && typeof exp === 'object'; i++) {
      exp = exp.require || exp.node || exp.default || exp.import;
    }
    if (typeof exp === 'string') return exp;
    return typeof (info && info.main) === 'string' && info.main ? info.main : 'index';
  }

  function resolvePackage(folder, spec) {
    const parts = spec.split('/');
    const cut = spec[0] === '@' ? 2 : 1;
    const name = parts.slice(0, cut).join('/');
    const sub = parts.slice(cut).join('/');
    let here = folder;
    for (;;) {
      const top = join(here, 'node_modules/' + name);
      if (has(top + '/package.json')) {
        let info;
        try { info = JSON.parse(files[top + '/package.json']); } catch (e) { return null; }
        return locate(top + '/' + (sub || main(info)));
      }
      if (!here) return null;
      here = dirname(here);
    }
  }

  // ``#`` specifiers through the ``imports`` of the nearest package.json, as
  // ``codequorum/ingest/js_imports.py`` reads them (the view holds what they lead to).
  const CONDITIONS = ['import', 'require', 'node', 'default'];
  const BAD_SEGMENT = /(?:^|\/)(?:|\.|\.\.|node_modules)(?:\/|$)/i;
  const ENCODED = /%2e|%2f|%5c/i;
  const refused = (s) => BAD_SEGMENT.test(s) || s.includes('\\') || ENCODED.test(s);

  function scope(folder) {
    for (let here = folder; ; here = dirname(here)) {
      const meta = join(here, 'package.json');
      if (has(meta)) return [here, meta];
      if (!here || here.split('/').pop() === 'node_modules') return null;
    }
  }

  // A target read: a string, null (none here), or undefined when refused.
  function target(t, match, depth) {
    if (depth > 8) return undefined;
    if (typeof t === 'string') {
      if (match !== null && refused(match)) return undefined;
      const bare = !t.startsWith('./');
      const rest = bare ? t : t.slice(2);
      if ((bare && (/^[#./]/.test(t) || t.includes(':'))) || refused(rest)) return undefined;
      return match === null ? t : t.split('*').join(match);
    }
    if (Array.isArray(t)) {
      let out = null;
      for (const item of t) {
        const found = target(item, match, depth + 1);
        if (typeof found === 'string') return found;
        if (found === undefined) out = undefined;
      }
      return out;
    }
    if (t !== null && typeof t === 'object') {
      for (const key of Object.keys(t)) {
        if (!CONDITIONS.includes(key)) continue;
        const found = target(t[key], match, depth + 1);
        if (found !== null) return found;
      }
    }
    return null;
  }

  function importsTarget(imports, spec) {
    if (spec === '#' || spec.startsWith('#/') || !imports || typeof imports !== 'object'
      || Array.isArray(imports)) return null;
    if (Object.prototype.hasOwnProperty.call(imports, spec) && !spec.includes('*')) {
      return target(imports[spec], null, 0);
    }
    const keys = Object.keys(imports).filter((k) => k.split('*').length === 2);
    keys.sort((a, b) => (b.indexOf('*') - a.indexOf('*')) || (b.length - a.length));
    for (const key of keys) {
      const [base, trailer] = key.split('*');
      if (spec.startsWith(base) && spec !== base
        && (!trailer || (spec.endsWith(trailer) && spec.length >= key.length))) {
        return target(imports[key], spec.slice(base.length, spec.length - trailer.length), 0);
      }
    }
    return null;
  }

  function resolveImports(folder, spec) {
    const found = scope(folder);
    if (found === null) return null;
    let info;
    try { info = JSON.parse(files[found[1]]); } catch (e) { return null; }
    const t = importsTarget(info && info.imports, spec);
    if (typeof t !== 'string') return null;
    if (!t.startsWith('./')) return resolvePackage(found[0], t);
    const path = normalize(join(found[0], t.slice(2)));
    return path !== null && has(path) ? path : null;
  }

  function resolve(folder, spec) {
    if (spec.startsWith('./') || spec.startsWith('../') || spec === '.' || spec === '..') {
      return locate(normalize(join(folder, spec)));
    }
    if (spec.startsWith('#')) return resolveImports(folder, spec);
    if (spec.startsWith('/') || spec.includes(':')) return null;
    return resolvePackage(folder, spec);
  }

  function load(path) {
    if (path === entry) return entryExports();
    if (cache[path]) return cache[path].exports;
    const module = { exports: {} };
    cache[path] = module;
    if (path.endsWith('.json')) {
      module.exports = JSON.parse(files[path]);
      return module.exports;
    }
    const wrapped = indirectEval('(function (exports, require, module, __filename, __dirname) {'
      + files[path] + '\n})');
    wrapped.call(module.exports, module.exports, requireFrom(dirname(path)), module,
      '/workspace/' + path, '/workspace/' + dirname(path));
    return module.exports;
  }

  // Node's own modules the context gives (``CONTEXT_MODULES`` of ``js_module_view.py``):
  // each an object of the context's globals it names, as they were before the module ran.
  let builtins = Object.create(null);

  // Node's own modules (and their subpaths): never an absent package, always refused.
  const NODE_OWN = new Set(['assert', 'async_hooks', 'buffer', 'child_process', 'cluster',
    'console', 'constants', 'crypto', 'dgram', 'diagnostics_channel', 'dns', 'domain', 'events',
    'fs', 'http', 'http2', 'https', 'inspector', 'module', 'net', 'os', 'path', 'perf_hooks',
    'process', 'punycode', 'querystring', 'readline', 'repl', 'stream', 'string_decoder', 'sys',
    'test', 'timers', 'tls', 'trace_events', 'tty', 'url', 'util', 'v8', 'vm', 'wasi',
    'worker_threads', 'zlib']);
  const absentNames = [];

  function isPackage(spec) {
    if (spec.startsWith('.') || spec.startsWith('/') || spec.startsWith('#')
        || spec.includes(':') || spec.includes('\\')) return false;
    const parts = spec.split('/');
    const name = spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
    return /^(@[a-z0-9][\w.~-]*\/)?[a-z0-9][\w.~-]*$/i.test(name) && !NODE_OWN.has(parts[0]);
  }

  // What an absent package gives: a part for every name, each a function that throws when
  // called, constructed or read into (``Injectable``, ``core.Injectable``); ``default`` too.
  function absentPart(spec, path) {
    const fail = () => {
      const err = new Error("'" + path.slice(0, 200) + "' of the package '" + spec.slice(0, 200)
        + "', which is not in the sandbox (it gives the workspace's own files and "
        + 'pure-JavaScript packages of node_modules)');
      err.code = 'MODULE_NOT_FOUND';
      throw err;
    };
    return new Proxy(function absent() {}, {
      apply: fail, construct: fail,
      get(_target, key) {
        if (key === '__esModule') return true;
        if (typeof key === 'symbol' || key === 'then') return undefined;
        return absentPart(spec, path + '.' + String(key));
      },
      set: fail, defineProperty: fail, deleteProperty: fail,
      getPrototypeOf: () => Function.prototype, setPrototypeOf: fail,
    });
  }

  function absentPackage(spec) {
    if (!absentNames.includes(spec) && absentNames.length < 16) absentNames.push(spec);
    return absentPart(spec, spec);
  }

  // The files the workspace's configuration maps specifiers to (``paths``, ``baseUrl`` of
  // a tsconfig.json: ``ts_config.py``), per importing folder, as the parent resolved them.
  let aliases = Object.create(null);
  const own = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

  function aliasOf(folder, spec) {
    if (!own(aliases, folder) || !own(aliases[folder], spec)) return null;
    const path = aliases[folder][spec];
    return typeof path === 'string' && has(path) ? path : null;
  }

  function requireFrom(folder) {
    return function require(spec) {
      spec = String(spec);
      const bare = spec.startsWith('node:') ? spec.slice(5) : spec;
      if (Object.prototype.hasOwnProperty.call(builtins, bare)) return builtins[bare];
      const path = aliasOf(folder, spec) || resolve(folder, spec);
      if (path === null && isPackage(bare) && bare === spec) return absentPackage(spec);
      if (path === null) {
        const err = new Error("Cannot find module '" + spec.slice(0, 200) + "' in the sandbox "
          + "(it gives the workspace's own files, pure-JavaScript packages of node_modules and "
          + "Node's assert, buffer, events, url, path, util and crypto's hashes and random values)");
        err.code = 'MODULE_NOT_FOUND';
        throw err;
      }
      return load(path);
    };
  }

  // A ``process`` of this realm with neutral answers and no powers, for what modules read at
  // their top level (``process.env.NODE_ENV``, ``process.platform``): an empty environment,
  // as a Node started without variables has; nothing reaches the host's.
  function neutralProcess() {
    const freeze = Object.freeze;
    return freeze({
      env: freeze(Object.create(null)), platform: 'linux', arch: 'x64', argv: freeze([]),
      version: 'v0.0.0', versions: freeze({}), browser: false, pid: 1,
      cwd: () => '/workspace', nextTick: (fn, ...args) => { Promise.resolve().then(() => fn(...args)); },
      emitWarning: () => undefined,
    });
  }

  // The module's own ``require``, ``__filename``, ``__dirname`` and neutral ``process``, as
  // globals of the context (its top level runs as a script there, so that the version's
  // function is found by name); a version run alone (``requireOnly``) gets ``require`` only.
  return function install(filesJson, entryPath, builtinsJson, aliasesJson, requireOnly) {
    files = JSON.parse(filesJson);
    entry = normalize(String(entryPath));
    aliases = JSON.parse(aliasesJson || '{}');
    const named = JSON.parse(builtinsJson || '{}');
    for (const name of Object.keys(named)) {
      if (typeof named[name] === 'string') {  // one global is the whole module
        builtins[name] = global[named[name]];
        continue;
      }
      const module = {};
      for (const key of named[name]) module[key] = global[key];
      builtins[name] = Object.freeze(module);
    }
    const folder = dirname(entryPath);
    const globals = [['require', requireFrom(folder)], ['process', neutralProcess()],
      ['__filename', '/workspace/' + entryPath], ['__dirname', '/workspace/' + folder]];
    for (const [name, value] of requireOnly ? globals.slice(0, 1) : globals) {
      Object.defineProperty(global, name, { value, writable: true, configurable: true });
    }
    return function absent() { return absentNames.slice(); };
  };
})(globalThis)
