// Test-only extension, installed beside codequorum in the end-to-end test. From inside the
// extension host it opens the workspace's app.py, waits for what codequorum shows (activation,
// the diagnostic, the hover, the code lenses), applies a code action and opens the report,
// writing each check to the file named by CODEQUORUM_E2E_OUT, together with vscode.env.remoteName
// and the levels of codequorum.interpreter VS Code applies. The status bar and the webview
// are checked in the page by the driver (test-e2e/run.mjs); the probe waits for the driver's
// go-ahead (a file beside the results) before it changes the function.
//
// With CODEQUORUM_E2E_SCENARIO=watch it plays an assistant instead (runWatch): its inline
// completion provider writes the body of durations.py's function, which it accepts as a user
// does; the driver answers the watch's offer in the page; the versions come from the local
// model at CODEQUORUM_E2E_LLM (llama.cpp's OpenAI-compatible server). With ts-watch the same
// for a TypeScript function (prices.ts), its versions fixed TypeScript answers of a scripted
// endpoint, and the hover must keep a version on behaviour. Where the editor has
// vscode.lm.registerLanguageModelChatProvider, the probe also serves that model as a VS Code
// language model (vendor codequorum-e2e) and runs "Regenerate with a VS Code Language Model".
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
    return titles.some((t) => /^5 versions( \+ your code)? · (shape )?(un)?stable 0\.\d\d( · not run.*)?$/.test(t)) && titles.includes('Compare') ? lastLenses : undefined;
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

exports.activate = function activate(context) {
  const out = process.env.CODEQUORUM_E2E_OUT;
  if (!out) return;
  const results = { phase: 'start', checks: [], done: false };
  const save = () => {
    fs.writeFileSync(`${out}.tmp`, JSON.stringify(results, null, 1));
    fs.renameSync(`${out}.tmp`, out);
  };
  save();
  const scenario = WATCHES[process.env.CODEQUORUM_E2E_SCENARIO] ? runWatch : run;
  scenario(out, results, save, context)
    .catch((err) => {
      results.error = String((err && err.stack) || err);
    })
    .finally(() => {
      results.done = true;
      save();
    });
};

// --------------------------------------------------------------------------- the watch

// What each watch scenario's "assistant" writes: in watch, the body under durations.py's
// header and docstring; in ts-watch, prices.ts's whole function under its JSDoc (the
// versions then come from fixed TypeScript answers, and the hover must keep a version on
// behaviour: its JSDoc examples graded in the Node sandbox).
const WATCHES = {
  watch: {
    file: 'durations.py',
    name: 'parse_duration',
    accepted: 'total += int(amount)',
    body: [
      '    total = 0',
      '    for amount, unit in re.findall(r"(\\d+)([hms])", text):',
      '        total += int(amount) * {"h": 3600, "m": 60, "s": 1}[unit]',
      '    return total',
      '',
    ].join('\n'),
  },
  'ts-watch': {
    file: 'prices.ts',
    name: 'total',
    accepted: 'prices.reduce((sum, price) => sum + price, 0)',
    body: [
      'export function total(prices: number[]): number {',
      '    return prices.reduce((sum, price) => sum + price, 0);',
      '}',
      '',
    ].join('\n'),
    behaviour: /keep (version \d+|the current code)[^:\n]*: passes both docstring examples/,
  },
};
const LLM = process.env.CODEQUORUM_E2E_LLM || '';
const LLM_MODEL = process.env.CODEQUORUM_E2E_LLM_MODEL || 'SmolLM2-135M-Instruct';
const VENDOR = 'codequorum-e2e';

/** The versions stored for `name`, as the server shows them (showSample 1, 2, ... until none). */
async function storedVersions(uri, name) {
  const out = [];
  for (let k = 1; k <= 40; k++) {
    try {
      const v = await vscode.commands.executeCommand('codequorum.showSample', { uri: uri.toString(), qualifiedName: name, version: k });
      if (!v || typeof v.code !== 'string') break;
      out.push({ origin: v.origin, provider: v.provider, model: v.model, code: v.code });
    } catch {
      break;
    }
  }
  return out;
}

/** One chat completion from the local model (the language model the probe serves). */
async function complete(messages, seed) {
  const response = await fetch(`${LLM}/chat/completions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ model: LLM_MODEL, messages, max_tokens: 400, temperature: 0.8, seed }),
  });
  const body = await response.json();
  return (body.choices && body.choices[0] && body.choices[0].message && body.choices[0].message.content) || '';
}

/** A VS Code language model backed by the local model, where the editor lets an extension add one. */
function registerLanguageModel(context, results) {
  const lm = vscode.lm;
  if (!lm || typeof lm.registerLanguageModelChatProvider !== 'function' || !LLM) {
    results.languageModel = !LLM ? 'no local model' : 'vscode.lm.registerLanguageModelChatProvider is not offered by this editor';
    return false;
  }
  let seed = 100;
  results.languageModelRequests = 0;
  const provider = {
    provideLanguageModelChatInformation() {
      return [
        {
          id: 'smollm2-local',
          name: 'SmolLM2 (local)',
          family: 'smollm2',
          version: '1',
          maxInputTokens: 1536,
          maxOutputTokens: 400,
          capabilities: {},
        },
      ];
    },
    async provideLanguageModelChatResponse(model, messages, options, progress) {
      const chat = messages.map((m) => ({
        role: m.role === vscode.LanguageModelChatMessageRole.Assistant ? 'assistant' : 'user',
        content: m.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join(''),
      }));
      results.languageModelRequests += 1;
      progress.report(new vscode.LanguageModelTextPart(await complete(chat, seed++)));
    },
    provideTokenCount(model, text) {
      return Math.ceil((typeof text === 'string' ? text.length : 400) / 4);
    },
  };
  context.subscriptions.push(lm.registerLanguageModelChatProvider(VENDOR, provider));
  return true;
}

async function runWatch(out, results, save, context) {
  const watched = WATCHES[process.env.CODEQUORUM_E2E_SCENARIO];
  const WATCHED = watched.name;
  const BODY = watched.body;
  const timeoutMs = Number(process.env.CODEQUORUM_E2E_TIMEOUT_MS || 240000);
  const check = (name, ok, detail) => {
    results.checks.push({ name, ok: Boolean(ok), detail });
    save();
  };
  results.remoteName = vscode.env.remoteName;
  results.interpreterAtStart = inspectInterpreter();
  const withModel = !watched.behaviour && registerLanguageModel(context, results);
  const folder = vscode.workspace.workspaceFolders && vscode.workspace.workspaceFolders[0];
  if (!folder) throw new Error('no workspace folder');
  const uri = vscode.Uri.joinPath(folder.uri, watched.file);
  const doc = await vscode.workspace.openTextDocument(uri);
  const editor = await vscode.window.showTextDocument(doc);
  const ext = await waitFor(() => {
    const e = vscode.extensions.getExtension(EXTENSION_ID);
    return e && e.isActive ? e : undefined;
  }, 60000);
  check('activation', ext, ext ? `${EXTENSION_ID} active` : 'not active within 60 s');
  // The server is up once its commands are registered (the client registers them after initialize).
  const up = await waitFor(async () => (await vscode.commands.getCommands(true)).includes('codequorum.showSample'), 120000);
  check('language server', up, up ? 'its commands are registered' : 'no codequorum.showSample within 120 s');
  await sleep(2000);

  // An assistant's inline completion: the body under the header and docstring, accepted.
  const end = doc.lineAt(doc.lineCount - 1).range.end;
  let asked = 0;
  context.subscriptions.push(
    vscode.languages.registerInlineCompletionItemProvider({ pattern: `**/${watched.file}` }, {
      provideInlineCompletionItems(document, position) {
        // What the user typed on the line is the start of the body (its indentation).
        const typed = document.lineAt(position.line).text.slice(0, position.character);
        if (document.uri.toString() !== uri.toString() || position.line !== end.line || !BODY.startsWith(typed)) return [];
        asked += 1;
        results.asked = asked; // the driver presses Tab once the suggestion is there
        save();
        return [new vscode.InlineCompletionItem(BODY, new vscode.Range(position.line, 0, position.line, position.character))];
      },
    }),
  );
  editor.selection = new vscode.Selection(end, end);
  const before = doc.getText();
  // The user accepts it in the page: the driver focuses the editor on the empty last line,
  // types the indentation (the editor asks for suggestions as one types; or this probe's
  // trigger when the driver writes `<out>.trigger`) and presses Tab.
  results.phase = 'complete';
  save();
  let triggered = false;
  const accepted = await waitFor(async () => {
    if (!triggered && fs.existsSync(`${out}.trigger`)) {
      triggered = true;
      await vscode.commands.executeCommand('editor.action.inlineSuggest.trigger');
    }
    return doc.getText() === before + BODY || doc.getText() === before + BODY.replace(/\n$/, '') ? doc.getText() : undefined;
  }, 90000, 200);
  check(
    'inline completion accepted',
    accepted,
    accepted
      ? `${BODY.split('\n').length - 1} lines written by the provider, accepted with Tab (asked ${asked} times${triggered ? ', triggered by the probe' : ''})`
      : `asked ${asked} times; the document ends ${JSON.stringify(doc.getText().slice(-120))}`,
  );
  if (!accepted) return;
  results.phase = 'offer';
  save();

  // The driver answers the offer in the page ("Check it"); versions come from the local model.
  const versions = await waitFor(async () => {
    const vs = await storedVersions(uri, WATCHED);
    return vs.some((v) => v.origin === 'regenerated') ? vs : undefined;
  }, timeoutMs, 1000);
  const all = versions || (await storedVersions(uri, WATCHED));
  const origins = all.map((v) => v.origin);
  check(
    'versions stored: the accepted text as assistant, the local model\'s as regenerated',
    versions && all[0].origin === 'assistant' && all[0].code.includes(watched.accepted) && all.slice(1).every((v) => v.origin === 'regenerated' && v.model === LLM_MODEL),
    { origins, models: all.map((v) => v.model) },
  );
  results.phase = 'sampled';
  save();

  // The versions run on arrival; the hover then rests on behaviour (no "not run yet").
  const header = watched.behaviour ? `export function ${WATCHED}(` : `def ${WATCHED}(`;
  const namePos = new vscode.Position(doc.getText().split('\n').findIndex((l) => l.startsWith(header)), header.length - 2);
  let lastHover = '';
  const hover = await waitFor(async () => {
    lastHover = hoverText(await vscode.commands.executeCommand('vscode.executeHoverProvider', uri, namePos));
    return /\bversions?\b/.test(lastHover) && !/not run yet|running the versions|comparing the versions/.test(lastHover) ? lastHover : undefined;
  }, timeoutMs, 1000);
  check('hover after the run on arrival', hover, hover ? hover.split('\n').filter((l) => l.trim()).slice(0, 6).join(' | ') : `last hover: ${JSON.stringify(lastHover)}`);
  const diagnostics = vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'codequorum');
  results.diagnostics = diagnostics.map((d) => `${diagnosticCode(d)}: ${d.message}`);
  save();
  if (watched.behaviour) {
    // The TypeScript versions ran in the Node sandbox: the hover keeps one on behaviour.
    const kept = await waitFor(async () => {
      lastHover = hoverText(await vscode.commands.executeCommand('vscode.executeHoverProvider', uri, namePos));
      return watched.behaviour.test(lastHover) ? lastHover : undefined;
    }, timeoutMs, 1000);
    check(
      'the hover recommends a version on behaviour (its JSDoc examples graded in the Node sandbox)',
      kept,
      kept ? kept.split('\n').find((l) => watched.behaviour.test(l)) : `last hover: ${JSON.stringify(lastHover)}`,
    );
    const parted = await waitFor(() => {
      const ds = vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'codequorum');
      results.diagnostics = ds.map((d) => `${diagnosticCode(d)}: ${d.message}`);
      return ds.some((d) => diagnosticCode(d) === 'divergent-outputs') ? true : undefined;
    }, 30000, 500);
    check('the version that throws on an empty basket parts from the others', parted, { diagnostics: results.diagnostics });
    results.interpreterAtEnd = inspectInterpreter();
    return;
  }

  if (!withModel) {
    results.skipped = `Regenerate with a VS Code Language Model: ${results.languageModel}`;
  } else {
    // "Regenerate with a VS Code Language Model", through the probe's language model.
    await vscode.window.showTextDocument(doc);
    editor.selection = new vscode.Selection(namePos, namePos);
    const relayedBefore = all.length;
    void vscode.commands.executeCommand('codequorum.regenerateWithLanguageModel');
    const relayed = await waitFor(async () => {
      const vs = await storedVersions(uri, WATCHED);
      return vs.some((v) => v.origin === 'relayed') ? vs : undefined;
    }, timeoutMs, 1000);
    const fromLm = (relayed || []).filter((v) => v.origin === 'relayed');
    check(
      'Regenerate with a VS Code Language Model (the probe\'s, backed by the local model)',
      fromLm.length > 0 && fromLm.every((v) => v.provider === 'vscode-lm' && v.model === 'smollm2-local'),
      { requests: results.languageModelRequests, relayed: fromLm.length, storedBefore: relayedBefore, providers: fromLm.map((v) => `${v.provider}/${v.model}`) },
    );
  }
  results.interpreterAtEnd = inspectInterpreter();
}

exports.deactivate = function deactivate() {};
