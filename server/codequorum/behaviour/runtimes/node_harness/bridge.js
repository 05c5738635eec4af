// What the version's context asks of Node's own URL, URLSearchParams, Buffer,
// TextDecoder, path and hashes (``globals.js`` and ``builtins.js`` build those inside the
// context on top of it): one
// function, a JSON string in and a JSON string out, that never throws. Nothing of this
// realm crosses: the request is parsed here, the answer is a string, and an error is
// caught here and told as text (an object of this realm would lead back to ``process``
// through ``constructor.constructor``). ``globals.js`` keeps the function in a closure
// no version reaches, and hands it strings only.
'use strict';

const crypto = require('crypto');
const path = require('path');

const URL_FIELDS = ['href', 'origin', 'protocol', 'username', 'password', 'host', 'hostname',
  'port', 'pathname', 'search', 'hash'];
const URL_SETTERS = new Set(['href', 'protocol', 'username', 'password', 'host', 'hostname',
  'port', 'pathname', 'search', 'hash']);
const MAX_REQUEST = 64 * 1024 * 1024;

function parts(url) {
  const out = {};
  for (const field of URL_FIELDS) out[field] = String(url[field]);
  return out;
}

function failure(err) {
  const code = err && typeof err.code === 'string' ? err.code : '';
  const name = err && typeof err.name === 'string' ? err.name : 'Error';
  const message = err && typeof err.message === 'string' ? err.message : 'failed';
  return { error: message.slice(0, 500), name: name.slice(0, 50), code: code.slice(0, 50) };
}

function answer(request) {
  const op = String(request.op);
  if (op === 'url') {
    const input = String(request.input);
    return parts(typeof request.base === 'string' ? new URL(input, request.base) : new URL(input));
  }
  if (op === 'url-set') {
    const url = new URL(String(request.href));
    const field = String(request.field);
    if (!URL_SETTERS.has(field)) throw new TypeError('no such field');
    url[field] = String(request.value);
    return parts(url);
  }
  if (op === 'form-parse') {
    return { pairs: [...new URLSearchParams(String(request.text))] };
  }
  if (op === 'form-text') {
    const pairs = Array.isArray(request.pairs) ? request.pairs : [];
    return { text: new URLSearchParams(pairs.map((p) => [String(p[0]), String(p[1])])).toString() };
  }
  if (op === 'encode') {
    return { hex: Buffer.from(String(request.text), String(request.encoding)).toString('hex') };
  }
  if (op === 'decode') {
    const bytes = Buffer.from(String(request.hex), 'hex');
    return { text: bytes.toString(String(request.encoding)) };
  }
  if (op === 'text-decode') {
    const decoder = new TextDecoder(String(request.label),
      { fatal: request.fatal === true, ignoreBOM: request.ignoreBOM === true });
    return { text: decoder.decode(Buffer.from(String(request.hex), 'hex')),
      encoding: decoder.encoding };
  }
  if (op === 'path') return { value: pathCall(request) };
  if (op === 'hash') return { hex: digest(request) };
  if (op === 'hashes') return { names: crypto.getHashes() };
  throw new TypeError('unknown request');
}

// ``path``'s calls, as Node answers them (``builtins.js`` checked the argument types): a
// relative path resolves against ``/workspace`` (``C:\\workspace`` for win32), never this
// process's folder.
const PATH_CALLS = new Set(['basename', 'dirname', 'extname', 'isAbsolute', 'join', 'normalize',
  'relative', 'resolve', 'toNamespacedPath', 'parse', 'format']);
const FORMAT_FIELDS = ['root', 'dir', 'base', 'ext', 'name'];

function pathCall(request) {
  const fn = String(request.fn);
  if (!PATH_CALLS.has(fn) || !Array.isArray(request.args)) throw new TypeError('no such call');
  const flavour = request.win32 === true ? path.win32 : path.posix;
  if (fn === 'format') {
    const given = request.args[0] || {};
    const parts = {};
    for (const key of FORMAT_FIELDS) if (typeof given[key] === 'string') parts[key] = given[key];
    return flavour.format(parts);
  }
  const args = request.args.map(String);
  if (fn === 'resolve') args.unshift(request.win32 === true ? 'C:\\workspace' : '/workspace');
  const value = flavour[fn](...args);
  if (fn !== 'parse') return value;
  const parts = {};
  for (const key of FORMAT_FIELDS) parts[key] = String(value[key]);
  return parts;
}

// A digest (an HMAC's with ``key``, hex) of ``hex``'s bytes, in hex.
function digest(request) {
  const alg = String(request.alg);
  const made = typeof request.key === 'string'
    ? crypto.createHmac(alg, Buffer.from(request.key, 'hex')) : crypto.createHash(alg);
  return made.update(Buffer.from(String(request.hex), 'hex')).digest('hex');
}

function bridge(text) {
  try {
    if (typeof text !== 'string' || text.length > MAX_REQUEST) return '{"error":"refused"}';
    return JSON.stringify(answer(JSON.parse(text)));
  } catch (err) {
    try {
      return JSON.stringify(failure(err));
    } catch (_) {
      return '{"error":"failed"}';
    }
  }
}

module.exports = { bridge };
