"""The names every JavaScript run has without declaring them: the language's globals and
those the sandbox's harness gives. Read where a name's origin matters (a version reading
a name it does not declare, an example calling a library's namespace)."""

from __future__ import annotations

#: The ECMAScript globals, and those the sandbox's harness gives every run
#: (``node_harness/globals.js``, ``values.js``).
_GLOBAL_WORDS = """
globalThis Infinity NaN undefined eval isFinite isNaN parseFloat parseInt decodeURI
decodeURIComponent encodeURI encodeURIComponent escape unescape arguments
AggregateError Array ArrayBuffer Atomics BigInt BigInt64Array BigUint64Array Boolean
DataView Date Error EvalError FinalizationRegistry Float32Array Float64Array Function
Int8Array Int16Array Int32Array Intl Iterator JSON Map Math Number Object Promise Proxy
RangeError ReferenceError Reflect RegExp Set SharedArrayBuffer String Symbol SyntaxError
TypeError Uint8Array Uint8ClampedArray Uint16Array Uint32Array URIError WeakMap WeakRef
WeakSet
console setTimeout clearTimeout setInterval clearInterval setImmediate clearImmediate
queueMicrotask structuredClone TextEncoder TextDecoder URL URLSearchParams Buffer global
"""
GLOBALS = frozenset(_GLOBAL_WORDS.split())


__all__ = ["GLOBALS"]
