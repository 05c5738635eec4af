// Drives a real VS Code (code-server, already running) in headless Chromium with playwright-core,
// together with the probe extension (probe/extension.js), and checks what the user sees.
// Started by scripts/e2e-vscode.sh; configured by environment variables:
//   E2E_TOOLS    folder whose node_modules holds playwright-core
//   E2E_URL      the code-server page with the workspace folder
//   E2E_OUT      the probe's results file (CODEQUORUM_E2E_OUT of code-server)
//   E2E_MODE     "interpreter" (codequorum.interpreter is set) or "private-env" (answer the
//                offer to create the private environment with "Create Environment")
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

/** Exit status that scripts/e2e-vscode.sh reports as "skipped" (the browser could not start). */
const SKIP = 3;

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

    let clicked = mode !== 'private-env';
    let statusDone = false;
    while (Date.now() < deadline) {
      if (!clicked) {
        const button = page.locator('.notifications-toasts .monaco-button', { hasText: 'Create Environment' }).first();
        if (await button.isVisible().catch(() => false)) {
          await button.click();
          clicked = true;
          check('private environment offered and accepted', true, 'clicked "Create Environment"');
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
    if (!clicked) check('private environment offered and accepted', false, 'no "Create Environment" button appeared');
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
