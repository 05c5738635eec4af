// The VS Code extension's cost per keystroke: its `onDidChangeTextDocument` listener
// (client-vscode/src/editReason.ts, `changeListener`) over the changes of the typing replay
// of bench_watch_replay.py, timed one call at a time. Target: p95 at most 1 ms.
//
//   .venv/bin/python bench/bench_watch_replay.py --events /tmp/replay.json
//   (cd client-vscode && npm run compile-tests)
//   node bench/bench_watch_keystroke.mjs /tmp/replay.json
//   node bench/bench_watch_keystroke.mjs --smoke   # five changes, no target
//
// Prints the median, p95, p99 and largest time per change, and how many changes the listener
// sent on (the undos and redos). Exits 1 when p95 is over 1 ms.
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const compiled = join(here, '..', 'client-vscode', 'out', 'src', 'editReason.js');
// --smoke: a few changes of each kind, no target (the test suite's smoke run)
const smoke = process.argv[2] === '--smoke';
if (smoke && !existsSync(compiled)) {
  console.log('skipped: the extension is not compiled (cd client-vscode && npm run compile-tests)');
  process.exit(0);
}
const { changeListener } = require(compiled);

const file = process.argv[2];
if (!file) {
  console.error('usage: node bench/bench_watch_keystroke.mjs REPLAY.json | --smoke');
  process.exit(2);
}
const SMOKE_CHANGES = [[2, null, 1], [3, null, 1], [4, 'undo', 1], [5, 'redo', 1], [6, null, 3]];
const { changes } = smoke ? { changes: SMOKE_CHANGES } : JSON.parse(readFileSync(file, 'utf8'));
const uri = { scheme: 'file', toString: () => 'file:///work/project/app.py' };
const REASON = { undo: 1, redo: 2 };
// The events as VS Code hands them to the listener (built before the clock starts).
const events = changes.map(([version, reason, count]) => ({
  document: { uri, version, languageId: 'python' },
  contentChanges: new Array(count).fill({}),
  reason: reason ? REASON[reason] : undefined,
}));
let sent = 0;
const listener = changeListener((method, params) => {
  // what the language client does first with a notification: serialise it
  sent += JSON.stringify({ method, params }).length > 0 ? 1 : 0;
});
for (let round = 0; round < 3; round++) for (const e of events) listener(e); // warm up
sent = 0;
const ns = new Array(events.length);
for (let i = 0; i < events.length; i++) {
  const began = process.hrtime.bigint();
  listener(events[i]);
  ns[i] = Number(process.hrtime.bigint() - began);
}
ns.sort((a, b) => a - b);
const at = (q) => ns[Math.min(ns.length - 1, Math.floor(q * ns.length))] / 1000;
console.log(
  `extension change listener over ${events.length} changes: median ${at(0.5).toFixed(2)} µs, ` +
    `p95 ${at(0.95).toFixed(2)} µs, p99 ${at(0.99).toFixed(2)} µs, max ${(ns[ns.length - 1] / 1000).toFixed(1)} µs; ` +
    `${sent} sent to the server`,
);
process.exit(!smoke && at(0.95) > 1000 ? 1 : 0);
