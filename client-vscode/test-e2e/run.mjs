// Drives a real VS Code (code-server, already running) in headless Chromium with playwright-core,
// together with the probe extension (probe/extension.js), and checks what the user sees.
// Started by scripts/e2e-vscode.sh; configured by environment variables:
//   E2E_TOOLS    folder whose node_modules holds playwright-core
//   E2E_URL      the code-server page with the workspace folder
//   E2E_OUT      the probe's results file (CODEQUORUM_E2E_OUT of code-server)
//   E2E_MODE     "interpreter" (codequorum.interpreter is set in the Machine settings),
//                "private-env" (answer the offer to create the private environment with "Create
//                Environment"), "remote-settings" (codequorum.interpreter is set in the User
//                settings only: answer the offer with "Choose Interpreter" and pick E2E_PICK) or
//                "watch" (the probe accepts an assistant's inline completion; answer the watch's
//                offer with "Check it" and see the job in the status bar; see watchScenario) or
//                "ts-watch" (the same for a TypeScript function; the hover keeps a version on
//                behaviour)
//   E2E_MACHINE_VALUE codequorum.interpreter in code-server's Machine settings ("" for none)
//   E2E_USER_VALUE    codequorum.interpreter in code-server's User settings ("" for none)
//   E2E_PICK     the file to pick in the file dialog (remote-settings)
//   E2E_ARTIFACTS folder for a screenshot of the end
//   E2E_TIMEOUT_S overall limit (default 420)
// Prints one line per check and exits 1 when any fails, 3 when the browser does not start.
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const env = (name, fallback) => {
  const v = process.env[name] ?? fallback;
  if (v === undefined) throw new Error(`${name} is not set`);
  return v;
};
const tools = env('E2E_TOOLS');
const url = env('E2E_URL');
const out = env('E2E_OUT');
const mode = env('E2E_MODE', 'interpreter');
const artifacts = env('E2E_ARTIFACTS', '.');
const deadline = Date.now() + Number(env('E2E_TIMEOUT_S', '420')) * 1000;
const chromiumPath = env('E2E_CHROMIUM', '/usr/bin/chromium');
const machineValue = env('E2E_MACHINE_VALUE', '');
const userValue = env('E2E_USER_VALUE', '');
const pick = env('E2E_PICK', '');
/** The button that answers the offer of a private environment in this mode, if any. */
const answer = { 'private-env': 'Create Environment', 'remote-settings': 'Choose Interpreter' }[mode];
/** The command the offer names for a remote window's settings, as the command palette lists it. */
const REMOTE_SETTINGS_COMMAND = 'Preferences: Open Remote Settings (JSON)';

const require = createRequire(join(tools, 'package.json'));
const { chromium } = require('playwright-core');

const checks = [];
const check = (name, ok, detail) => {
  checks.push({ name, ok: Boolean(ok), detail });
  console.log(`e2e-vscode [${mode}]: ${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? `: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}` : ''}`);
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const readResults = () => {
  try {
    return JSON.parse(readFileSync(out, 'utf8'));
  } catch {
    return undefined;
  }
};

async function launch() {
  const options = {
    executablePath: chromiumPath,
    headless: true,
    timeout: 60000,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-dev-shm-usage'],
  };
  try {
    return await chromium.launch(options);
  } catch (err) {
    console.log(`e2e-vscode: the browser did not start (${String(err).split('\n')[0]}); trying once more`);
    await sleep(2000);
    return chromium.launch(options);
  }
}

/** Text of the status-bar entries, as the page shows them. */
const statusTexts = (page) =>
  page.evaluate(() => Array.from(document.querySelectorAll('.statusbar-item')).map((e) => (e.textContent || '').trim()));

/** The notification that offers the private environment, once it shows: its text and its button. */
async function findOffer(page) {
  const item = page
    .locator('.notifications-toasts .notification-list-item')
    .filter({ has: page.locator('.monaco-button', { hasText: answer }) })
    .first();
  if (!(await item.isVisible().catch(() => false))) return undefined;
  const text = ((await item.locator('.notification-list-item-message').textContent().catch(() => '')) || '').trim();
  return { text, button: item.locator('.monaco-button', { hasText: answer }).first() };
}

/** The offer's wording in a remote window: where codequorum.interpreter goes, and where it is ignored. */
function checkOfferWording(text) {
  const wanted = [
    // the default python3 as found in PATH's absolute folders, named by its path
    'The codequorum language server is not installed for /',
    'python3.',
    'Choose Interpreter',
    'Remote settings',
    REMOTE_SETTINGS_COMMAND,
    'a value in User settings is ignored',
  ];
  const missing = wanted.filter((w) => !text.includes(w));
  check('offer names the Remote settings', missing.length === 0, missing.length ? { missing, text } : `"${text}"`);
}

/**
 * Picks `file` in VS Code's own file dialog (a quick input with a path box, as in every remote
 * window), or cancels it when `file` is undefined; returns the dialog's title, or undefined when
 * no dialog showed.
 */
async function pickInFileDialog(page, file) {
  const widget = page.locator('.quick-input-widget');
  const end = Date.now() + 30000;
  while (Date.now() < end && !(await widget.isVisible().catch(() => false))) await sleep(250);
  if (!(await widget.isVisible().catch(() => false))) return undefined;
  const title = ((await widget.locator('.quick-input-title').textContent().catch(() => '')) || '').trim();
  const input = widget.locator('.quick-input-box input');
  if (file === undefined) {
    await input.press('Escape');
    await sleep(1000);
    return title;
  }
  // The dialog fills its path box with the folder it opens in once it has read it, which
  // can come after the box is shown and overwrite a path typed too early: the path is typed
  // again until the box holds it, before each Enter.
  const typed = async () => {
    for (let i = 0; i < 10; i++) {
      if ((await input.inputValue().catch(() => '')) === file) return;
      await input.fill(file).catch(() => {});
      await sleep(500);
    }
  };
  await sleep(500);
  for (let i = 0; i < 5 && (await widget.isVisible().catch(() => false)); i++) {
    await typed();
    await input.press('Enter').catch(() => {});
    await sleep(1000);
  }
  return title;
}

/** Types `query` in the command palette; returns its entries, and runs the first when `run`.
 * The palette is opened again when it does not take the text: a widget still closing from
 * the previous use can swallow F1 (its input goes inert, then hidden). */
async function palette(page, query, run = false) {
  const widget = page.locator('.quick-input-widget');
  const input = widget.locator('.quick-input-box input');
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('Escape');
    await widget.waitFor({ state: 'hidden', timeout: 3000 }).catch(() => {});
    await page.keyboard.press('F1');
    try {
      await input.fill(`>${query}`, { timeout: 10000 });
      break;
    } catch (err) {
      if (attempt >= 3) throw err;
    }
  }
  await sleep(1500);
  const labels = await page
    .locator('.quick-input-widget .quick-input-list .monaco-list-row')
    .evaluateAll((rows) => rows.map((r) => (r.getAttribute('aria-label') || r.textContent || '').trim()));
  await page.keyboard.press(run ? 'Enter' : 'Escape');
  return labels;
}

const SETTING = 'codequorum.interpreter';

/** What the Settings editor shows: the selected tab, and the row of codequorum.interpreter. */
async function settingsEditor(page) {
  const editor = page.locator('.settings-editor').first();
  const end = Date.now() + 15000;
  while (Date.now() < end && !(await editor.isVisible().catch(() => false))) await sleep(250);
  if (!(await editor.isVisible().catch(() => false))) return { open: false };
  await sleep(1500);
  const tab = ((await editor.locator('.settings-tabs-widget .action-label.checked').first().textContent().catch(() => '')) || '').trim();
  const row = editor.locator(`.setting-item-contents[data-key="${SETTING}"]`);
  const listed = (await row.count()) > 0;
  const value = listed ? await row.locator('input').first().inputValue().catch(() => undefined) : undefined;
  const indicator = listed ? ((await row.locator('.setting-indicators-container').textContent().catch(() => '')) || '').trim() : '';
  return { open: true, tab, listed, value, indicator };
}

/** Closes the Settings editor (and nothing else: app.py stays open for the probe). */
async function closeSettings(page) {
  const editor = page.locator('.settings-editor').first();
  for (let attempt = 0; attempt < 3 && (await editor.isVisible().catch(() => false)); attempt++) {
    if (attempt === 0) await page.keyboard.press('Escape');
    else await palette(page, 'View: Close Editor', true).catch(() => []);
    await sleep(1000);
  }
}

/** Exit status that scripts/e2e-vscode.sh reports as "skipped" (the browser could not start). */
const SKIP = 3;
/** Exit status for a run whose scenario could not be set up as meant (see remote-settings). */
const NOT_APPLICABLE = 4;

/** The watch's offer, once it shows: its text and its "Check it" button. */
async function findWatchOffer(page) {
  const item = page
    .locator('.notifications-toasts .notification-list-item')
    .filter({ hasText: 'arrived in one edit' })
    .filter({ has: page.locator('.monaco-button', { hasText: 'Check it' }) })
    .first();
  if (!(await item.isVisible().catch(() => false))) return undefined;
  const text = ((await item.locator('.notification-list-item-message').textContent().catch(() => '')) || '').trim();
  const buttons = await item.locator('.monaco-button').allTextContents().catch(() => []);
  return { text, buttons: buttons.map((b) => b.trim()), button: item.locator('.monaco-button', { hasText: 'Check it' }).first() };
}

/**
 * The watch: the probe accepts an inline completion (phase "offer"); the offer appears as a
 * notification with its four answers, the driver clicks "Check it", and the status bar shows
 * the job while the local model writes the versions. The probe checks the rest.
 */
/** Accepts the probe's inline completion as a user does: the editor focused on the empty last
 * line, the indentation typed (the editor asks for a suggestion; else the probe triggers
 * it), Tab. */
/** What each watch scenario watches: the function, what the driver types before the
 * suggestion (a prefix of what the assistant writes) and the endpoint's model name. */
const WATCHED = {
  watch: { name: 'parse_duration', typed: '    ', model: 'SmolLM2-135M-Instruct' },
  'ts-watch': { name: 'total', typed: 'export ', model: 'fixed-typescript' },
}[mode];

async function acceptCompletion(page) {
  const ghosts = page.locator('.monaco-editor .ghost-text-decoration, .monaco-editor .ghost-text');
  const lines = page.locator('.monaco-editor .view-lines .view-line');
  await lines.last().click({ position: { x: 5, y: 5 } }).catch(() => {});
  await page.keyboard.press('Control+End');
  await page.keyboard.type(WATCHED.typed, { delay: 120 });
  const offered = async (ms) => {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      if (((readResults() || {}).asked || 0) > 0 && (await ghosts.count()) > 0) return true;
      await sleep(200);
    }
    return false;
  };
  let how = 'typing the indentation';
  let shown = await offered(8000);
  if (!shown) {
    writeFileSync(`${out}.trigger`, 'go\n');
    how = "the probe's trigger";
    shown = await offered(15000);
  }
  check('the inline completion shows as ghost text', shown, shown ? `asked with ${how}` : 'no ghost text within 23 s');
  if (shown) {
    await sleep(500);
    await page.keyboard.press('Tab');
  }
}

async function watchScenario(page) {
  let offered = false;
  let completed = false;
  const jobs = new Set();
  while (Date.now() < deadline) {
    const results = readResults();
    if (results && results.phase === 'complete' && !completed) {
      completed = true;
      await acceptCompletion(page);
    }
    if (results && results.phase === 'offer' && !offered) {
      let offer;
      const end = Date.now() + 60000;
      while (Date.now() < end && !(offer = await findWatchOffer(page))) await sleep(250);
      offered = true;
      const wanted = ["Not now", "Check it", "Always in this workspace", "Never in this workspace"];
      check(
        'the watch offers to check the function, one click, not modal',
        offer && new RegExp(`'${WATCHED.name}' arrived in one edit \\(\\d+ lines\\)\\. Ask ${WATCHED.model} at http://127\\.0\\.0\\.1:\\d+/v1 for \\d+ more versions to check it\\?`).test(offer.text) &&
          wanted.every((w) => offer.buttons.includes(w)) && !(await page.locator('.monaco-dialog-box').isVisible().catch(() => false)),
        offer ? { text: offer.text, buttons: offer.buttons } : 'no offer within 60 s',
      );
      if (offer) await offer.button.click();
    }
    if (offered) {
      for (const t of await statusTexts(page)) if (t.includes(WATCHED.name)) jobs.add(t);
    }
    if (results && results.done) break;
    await sleep(300);
  }
  // the job's first phase (asking the model) can pass between two looks when the model answers at
  // once; either phase in the status bar shows the job there
  check('the job in the status bar', [...jobs].some((t) => t.includes(`checking ${WATCHED.name}`) ||
    t.includes(`running ${WATCHED.name} versions`)), { seen: [...jobs] });
  const results = readResults();
  if (results && results.diagnostics) console.log(`e2e-vscode [${mode}]: diagnostics: ${JSON.stringify(results.diagnostics)}`);
  if (results && results.skipped) console.log(`e2e-vscode [${mode}]: skipped: ${results.skipped}`);
  return results;
}

async function main() {
  mkdirSync(artifacts, { recursive: true });
  let browser;
  try {
    browser = await launch();
  } catch (err) {
    console.log(`e2e-vscode [${mode}]: skipped: Chromium (${chromiumPath}) did not start: ${String(err).split('\n')[0]}`);
    process.exit(SKIP);
  }
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  try {
    await page.goto(url, { timeout: 120000, waitUntil: 'domcontentloaded' });
    await page.waitForSelector('.monaco-workbench', { timeout: 120000 });
    check('workbench loaded', true, url);

    if (WATCHED) {
      const results = await watchScenario(page);
      if (!results || !results.done) {
        check('probe finished', false, results ? `stopped at phase ${results.phase}` : 'the probe wrote nothing (did it activate?)');
      }
      for (const c of (results && results.checks) || []) check(c.name, c.ok, c.detail);
      if (results && results.error) check('probe', false, results.error);
      return;
    }
    let clicked = answer === undefined;
    // remote-settings: the first offer is answered Choose Interpreter and the dialog cancelled
    // (the extension then shows the setting in the Settings editor), the second, asked again by
    // Restart Language Server, Choose Interpreter with a file.
    let offers = 0;
    let statusDone = false;
    while (Date.now() < deadline) {
      const offer = clicked ? undefined : await findOffer(page);
      if (offer) {
        offers += 1;
        if (mode === 'remote-settings' && offers === 1) checkOfferWording(offer.text);
        await offer.button.click();
        check(`private environment offered${offers > 1 ? ' again' : ''}`, true, `clicked "${answer}"`);
        if (mode !== 'remote-settings') {
          clicked = true;
        } else if (offers === 1) {
          const title = await pickInFileDialog(page, undefined);
          check('file dialog (cancelled)', title !== undefined, title === undefined ? 'no file dialog within 30 s' : `"${title}"`);
          const shown = await settingsEditor(page);
          check(
            'without a file, the Settings editor shows the setting in its Remote tab',
            shown.open && /^Remote \[/.test(shown.tab) && shown.listed && shown.value === '',
            shown,
          );
          await closeSettings(page);
          await palette(page, 'codequorum: Restart Language Server', true);
        } else {
          clicked = true;
          const title = await pickInFileDialog(page, pick);
          check('file dialog', title !== undefined, title === undefined ? 'no file dialog within 30 s' : `"${title}": picked ${pick}`);
        }
      }
      const results = readResults();
      if (results && results.phase === 'statusbar' && !statusDone) {
        statusDone = true;
        let texts = [];
        const pattern = /^0\.\d\d (stable|unstable)$|^\d\.\d\d (stable|unstable)$/;
        const end = Date.now() + 30000;
        while (Date.now() < end) {
          texts = await statusTexts(page);
          if (texts.some((t) => pattern.test(t))) break;
          await sleep(500);
        }
        const hit = texts.find((t) => pattern.test(t));
        check('status bar', hit, hit ? `"${hit}"` : `no stability item; status bar: ${JSON.stringify(texts)}`);
        writeFileSync(`${out}.continue`, 'go\n');
      }
      if (results && results.done) break;
      await sleep(500);
    }
    const results = readResults();
    const startValue = ((results && results.interpreterAtStart) || {}).globalValue;
    if (mode === 'remote-settings' && userValue && startValue === userValue) {
      // code-server sometimes hands the User value to the extension host while the window
      // starts and drops it once the remote settings are read: what this scenario checks
      // (a User value ignored) cannot be seen in such a run.
      console.log(`e2e-vscode [${mode}]: not applicable this time: code-server applied the User value while the window started`);
      process.exit(NOT_APPLICABLE);
    }
    if (!clicked) check('private environment offered', false, `no "${answer}" button appeared`);
    if (results) {
      // What VS Code applies of codequorum.interpreter: the Machine settings, never the User settings.
      check('remote window', results.remoteName, `vscode.env.remoteName = ${JSON.stringify(results.remoteName)}`);
      const atStart = results.interpreterAtStart || {};
      check(
        'interpreter applied at start',
        atStart.globalValue === (machineValue || undefined) && atStart.workspaceValue === undefined,
        { machineSettings: machineValue || null, userSettings: userValue || null, applied: atStart },
      );
    }
    if (!results || !results.done) {
      check('probe finished', false, results ? `stopped at phase ${results.phase}` : 'the probe wrote nothing (did it activate?)');
    }
    for (const c of (results && results.checks) || []) check(c.name, c.ok, c.detail);
    if (results && results.error) check('probe', false, results.error);
    if (results && results.done) {
      const frame = await page.waitForSelector('iframe.webview', { state: 'attached', timeout: 30000 }).catch(() => null);
      check('report webview in the page', frame, frame ? 'iframe.webview present' : 'no webview frame in the page');
      // What the report shows: the page lives in a frame inside the webview's frame.
      let seen = '';
      const end = Date.now() + 30000;
      while (frame && Date.now() < end && !seen) {
        for (const f of page.frames()) {
          const body = await f
            .evaluate(() => {
              const h1 = document.querySelector('h1');
              const cells = document.querySelectorAll('rect.cell').length;
              return h1 ? `${h1.textContent} · ${cells} heatmap cells · ${document.querySelectorAll('h2').length} sections` : '';
            })
            .catch(() => '');
          if (/^total · [1-9]\d* heatmap cells/.test(body)) seen = body;
        }
        if (!seen) await sleep(500);
      }
      check('report content', seen, seen || 'no report page with the heading and a heatmap in any frame');
      const atEnd = results.interpreterAtEnd || {};
      check('interpreter applied at the end', atEnd.globalValue === (pick || machineValue || undefined), { applied: atEnd });
      if (mode === 'remote-settings') {
        const entries = await palette(page, REMOTE_SETTINGS_COMMAND).catch((err) => [`(${String(err).split('\n')[0]})`]);
        const hit = entries.find((e) => e.startsWith(REMOTE_SETTINGS_COMMAND));
        check('command palette has the command the offer names', hit, hit ? `"${hit}"` : { entries });
        // The Settings editor of this remote window: the User tab does not list the setting
        // (its value in the User settings file is ignored); the Remote tab has the value written.
        await palette(page, 'Preferences: Open User Settings', true);
        await page.keyboard.type(SETTING);
        const user = await settingsEditor(page);
        check('Settings editor, User tab: the setting is not listed', user.open && user.tab === 'User' && user.listed === false, user);
        await page.locator('.settings-editor .settings-tabs-widget .action-label', { hasText: /^Remote \[/ }).first().click().catch(() => {});
        const remote = await settingsEditor(page);
        check(
          'Settings editor, Remote tab: the value Choose Interpreter wrote',
          remote.open && /^Remote \[/.test(remote.tab) && remote.value === pick,
          remote,
        );
        await closeSettings(page);
      }
    }
  } finally {
    await page.screenshot({ path: join(artifacts, `vscode-${mode}.png`) }).catch(() => {});
    await browser.close().catch(() => {});
  }
}

try {
  await main();
} catch (err) {
  check('driver', false, String((err && err.stack) || err));
}
const failed = checks.filter((c) => !c.ok);
console.log(`e2e-vscode [${mode}]: ${checks.length - failed.length} passed, ${failed.length} failed`);
process.exit(failed.length ? 1 : 0);
