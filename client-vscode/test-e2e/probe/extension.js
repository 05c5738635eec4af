// Test-only extension, installed beside codequorum in the end-to-end test. From inside the
// extension host it opens the workspace's app.py, waits for what codequorum shows (activation,
// the diagnostic, the hover, the code lenses), applies a code action and opens the report,
// writing each check to the file named by CODEQUORUM_E2E_OUT, together with vscode.env.remoteName
// and the levels of codequorum.interpreter VS Code applies. The status bar and the webview
// are checked in the page by the driver (test-e2e/run.mjs); the probe waits for the driver's
// go-ahead (a file beside the results) before it changes the function.
'use strict';
const vscode = require('vscode');
const fs = require('fs');

const EXTENSION_ID = 'codequorum.codequorum';
const FUNCTION = 'total';
// The stored versions (fixture/versions.json), one of which the code action puts in place.
const STORED = [
  'def total(prices):\n    return sum(prices)',
  'def total(prices):\n    s = 0\n    for p in prices:\n        s += p\n    return s',
  'def total(prices):\n    return sum(p for p in prices)',
];

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `get` until it returns a truthy value or `ms` pass; returns the value or undefined. */
async function waitFor(get, ms, every = 500) {
  const end = Date.now() + ms;
  for (;;) {
    let value;
    try {
      value = await get();
    } catch {
      value = undefined;
    }
    if (value) return value;
    if (Date.now() > end) return undefined;
    await sleep(every);
  }
}

function hoverText(hovers) {
  const parts = [];
  for (const hover of hovers || []) {
    for (const c of hover.contents) parts.push(typeof c === 'string' ? c : c.value);
  }
  return parts.join('\n');
}

function diagnosticCode(d) {
  return typeof d.code === 'object' && d.code !== null ? String(d.code.value) : String(d.code);
}

/** The levels of codequorum.interpreter VS Code applies in this window. */
function inspectInterpreter() {
  const i = vscode.workspace.getConfiguration('codequorum').inspect('interpreter') || {};
  return { globalValue: i.globalValue, workspaceValue: i.workspaceValue, workspaceFolderValue: i.workspaceFolderValue };
}

async function run(out, results, save) {
  const timeoutMs = Number(process.env.CODEQUORUM_E2E_TIMEOUT_MS || 240000);
  const check = (name, ok, detail) => {
    results.checks.push({ name, ok: Boolean(ok), detail });
    save();
  };
  // Where the window runs and what VS Code applies of codequorum.interpreter, for the driver.
  results.remoteName = vscode.env.remoteName;
  results.interpreterAtStart = inspectInterpreter();
  save();
  const folder = vscode.workspace.workspaceFolders && vscode.workspace.workspaceFolders[0];
  if (!folder) throw new Error('no workspace folder');
  const uri = vscode.Uri.joinPath(folder.uri, 'app.py');
  const doc = await vscode.workspace.openTextDocument(uri);
  let editor = await vscode.window.showTextDocument(doc);
  const before = doc.getText();
  const line = before.split('\n').findIndex((l) => l.startsWith(`def ${FUNCTION}(`));
  const namePos = new vscode.Position(line, 4 + 1);
  // The cursor inside the function, on its first line (it stays inside after a replacement).
  editor.selection = new vscode.Selection(line, 10, line, 10);

  const ext = await waitFor(() => {
    const e = vscode.extensions.getExtension(EXTENSION_ID);
    return e && e.isActive ? e : undefined;
  }, 60000);
  check('activation', ext, ext ? `${EXTENSION_ID} ${ext.packageJSON.version} active` : 'not active within 60 s');

  // The current code (nested loops) is far from what the stored versions agree on (sum).
  const describe = (ds) => ds.map((d) => `${diagnosticCode(d)} on '${doc.getText(d.range)}': ${d.message}`);
  const diag = await waitFor(() => {
    const ds = vscode.languages.getDiagnostics(uri);
    return ds.find((d) => diagnosticCode(d) === 'outlier-current' && d.range.start.line === line && doc.getText(d.range) === FUNCTION);
  }, timeoutMs);
  check(
    'diagnostic',
    diag,
    diag ? describe([diag]) : `no outlier-current diagnostic on '${FUNCTION}' within ${timeoutMs / 1000} s; diagnostics: ${JSON.stringify(describe(vscode.languages.getDiagnostics(uri)))}`,
  );

  // The first hover may say the versions are being compared; wait for the figures.
  let lastHover = '';
  const hover = await waitFor(async () => {
    lastHover = hoverText(await vscode.commands.executeCommand('vscode.executeHoverProvider', uri, namePos));
    return /\b5 (samples|versions)\b/.test(lastHover) && /\b0\.\d\d\b/.test(lastHover) ? lastHover : undefined;
  }, 60000);
  check('hover', hover, hover ? hover.split('\n')[0] : `last hover: ${JSON.stringify(lastHover)}`);

  let lastLenses = [];
  const lenses = await waitFor(async () => {
    const ls = (await vscode.commands.executeCommand('vscode.executeCodeLensProvider', uri, 20)) || [];
    lastLenses = ls.map((l) => `${l.range.start.line}: ${l.command ? l.command.title : '(unresolved)'}`);
    const onFn = ls.filter((l) => l.range.start.line === line && l.command);
    const titles = onFn.map((l) => l.command.title);
    return titles.some((t) => /^5 versions( \+ your code)? · (un)?stable 0\.\d\d$/.test(t)) && titles.includes('Compare') ? lastLenses : undefined;
  }, 60000);
  check('code lenses', lenses, lenses || lastLenses);

  // Hand over to the driver for the status bar, and wait for it before changing anything.
  results.phase = 'statusbar';
  save();
  const go = await waitFor(() => fs.existsSync(`${out}.continue`), 120000);
  results.phase = 'edit';
  if (!go) check('driver go-ahead', false, 'the driver did not answer within 120 s');

  editor = await vscode.window.showTextDocument(doc);
  const range = new vscode.Range(namePos, namePos);
  let lastActions = [];
  const action = await waitFor(async () => {
    const as = (await vscode.commands.executeCommand('vscode.executeCodeActionProvider', uri, range)) || [];
    lastActions = as.map((a) => a.title);
    // The server offers the recommended version, and the consensus when it is another one.
    return as.find((a) => /recommended|consensus/i.test(a.title) && (a.edit || a.command));
  }, 60000);
  if (!action) {
    check('code action', false, `no "recommended" or "consensus" code action; offered: ${JSON.stringify(lastActions)}`);
  } else {
    if (action.edit) await vscode.workspace.applyEdit(action.edit);
    if (action.command) await vscode.commands.executeCommand(action.command.command, ...(action.command.arguments || []));
    const changed = await waitFor(() => (doc.getText() !== before ? doc.getText() : undefined), 10000, 200);
    const after = changed || before;
    const start = (t) => t.indexOf(`def ${FUNCTION}(`);
    const end = (t) => t.indexOf('\n\n\ndef footer(');
    const outsideSame =
      start(after) === start(before) &&
      before.slice(0, start(before)) === after.slice(0, start(after)) &&
      end(after) > 0 &&
      before.slice(end(before)) === after.slice(end(after));
    const inside = after.slice(start(after), end(after));
    check(
      'code action',
      changed && outsideSame && inside !== before.slice(start(before), end(before)) && STORED.includes(inside.trim()),
      { title: action.title, offered: lastActions, function: inside, outsideUnchanged: outsideSame },
    );
  }

  editor = await vscode.window.showTextDocument(doc);
  editor.selection = new vscode.Selection(line, 10, line, 10);
  await vscode.commands.executeCommand('codequorum.showReport');
  const webview = await waitFor(() => {
    for (const group of vscode.window.tabGroups.all) {
      for (const tab of group.tabs) {
        if (tab.input instanceof vscode.TabInputWebview && /codequorum/i.test(tab.input.viewType)) {
          return `${tab.label} (${tab.input.viewType})`;
        }
      }
    }
    return undefined;
  }, 30000);
  check('report webview', webview, webview || 'no codequorum webview tab within 30 s');
  results.interpreterAtEnd = inspectInterpreter();
}

exports.activate = function activate() {
  const out = process.env.CODEQUORUM_E2E_OUT;
  if (!out) return;
  const results = { phase: 'start', checks: [], done: false };
  const save = () => {
    fs.writeFileSync(`${out}.tmp`, JSON.stringify(results, null, 1));
    fs.renameSync(`${out}.tmp`, out);
  };
  save();
  run(out, results, save)
    .catch((err) => {
      results.error = String((err && err.stack) || err);
    })
    .finally(() => {
      results.done = true;
      save();
    });
};

exports.deactivate = function deactivate() {};
