import * as assert from 'assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { runProcess, type Runner } from '../src/processes';
import {
  canImportCodequorum,
  createVenv,
  findBundledWheel,
  installWheel,
  privateEnvironment,
  pythonVersionOk,
  venvPython,
} from '../src/pythonEnv';

function recordingRunner(codes: number[] = []) {
  const calls: string[][] = [];
  const run: Runner = async (command, args) => {
    calls.push([command, ...args]);
    const code = codes.length ? codes.shift()! : 0;
    return { code, stdout: '', stderr: code ? 'line 1\nERROR: No matching distribution found for numpy==2.4.6' : '' };
  };
  return { run, calls };
}

describe('python environment', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cq-env-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('runs a program and collects its output and exit code', async () => {
    const seen: string[] = [];
    const ok = await runProcess(process.execPath, ['-e', 'process.stdout.write("out"); process.stderr.write("err"); process.exit(3)'], {
      onOutput: (t) => seen.push(t),
    });
    assert.equal(ok.code, 3);
    assert.equal(ok.stdout, 'out');
    assert.equal(ok.stderr, 'err');
    assert.deepEqual(seen.sort(), ['err', 'out']);
    const missing = await runProcess(path.join(dir, 'no-such-python'), ['-c', 'pass']);
    assert.equal(missing.code, null);
    assert.match(missing.error!, /ENOENT/);
    const slow = await runProcess(process.execPath, ['-e', 'setTimeout(() => {}, 5000)'], { timeoutMs: 100 });
    assert.equal(slow.error, 'timed out after 100 ms');
  });

  it('checks importability by running `python -c "import codequorum"`', async () => {
    const { run, calls } = recordingRunner([0, 1]);
    assert.equal(await canImportCodequorum(run, '/env/bin/python'), true);
    assert.equal(await canImportCodequorum(run, '/usr/bin/python3'), false);
    assert.deepEqual(calls, [
      ['/env/bin/python', '-c', 'import codequorum'],
      ['/usr/bin/python3', '-c', 'import codequorum'],
    ]);
  });

  it('says false for a python that does not exist, and checks the version with a real one', async () => {
    assert.equal(await canImportCodequorum(runProcess, path.join(dir, 'python')), false);
    assert.equal(await pythonVersionOk(runProcess, path.join(dir, 'python')), false);
    const venv = path.join(__dirname, '..', '..', '..', '.venv', 'bin', 'python');
    if (fs.existsSync(venv)) {
      assert.equal(await pythonVersionOk(runProcess, venv), true);
      assert.equal(await canImportCodequorum(runProcess, venv), true);
    }
  });

  it('installs the wheel with its dependencies, then the bundled build itself', async () => {
    const { run, calls } = recordingRunner();
    await installWheel(run, '/s/env/bin/python', '/ext/server-wheel/codequorum-0.1.0-py3-none-any.whl', () => undefined);
    assert.deepEqual(calls, [
      ['/s/env/bin/python', '-m', 'pip', 'install', '--disable-pip-version-check', '/ext/server-wheel/codequorum-0.1.0-py3-none-any.whl'],
      [
        '/s/env/bin/python',
        '-m',
        'pip',
        'install',
        '--disable-pip-version-check',
        '--force-reinstall',
        '--no-deps',
        '/ext/server-wheel/codequorum-0.1.0-py3-none-any.whl',
      ],
    ]);
  });

  it('reports a failed pip with the end of its output', async () => {
    const { run } = recordingRunner([1]);
    await assert.rejects(
      installWheel(run, '/s/env/bin/python', '/w.whl', () => undefined),
      /pip install failed: line 1 ERROR: No matching distribution found for numpy==2\.4\.6/,
    );
  });

  it('creates the environment with `python -m venv`', async () => {
    const { run, calls } = recordingRunner();
    await createVenv(run, '/usr/bin/python3', path.join(dir, 'storage', 'server-env'), () => undefined);
    assert.deepEqual(calls, [['/usr/bin/python3', '-m', 'venv', path.join(dir, 'storage', 'server-env')]]);
    assert.ok(fs.existsSync(path.join(dir, 'storage')), 'the storage folder is made first');
  });

  it('knows where a venv keeps python on each platform, and remembers the installed wheel', async () => {
    assert.equal(venvPython('/e', 'linux'), path.join('/e', 'bin', 'python'));
    assert.equal(venvPython('/e', 'win32'), path.join('/e', 'Scripts', 'python.exe'));
    const env = privateEnvironment(dir, 'linux');
    assert.equal(await env.exists(), false);
    assert.equal(await env.installedWheel(), undefined);
    await env.rememberWheel('codequorum-0.1.0-py3-none-any.whl');
    assert.equal(await env.installedWheel(), 'codequorum-0.1.0-py3-none-any.whl');
    fs.mkdirSync(path.join(dir, 'bin'));
    fs.writeFileSync(path.join(dir, 'bin', 'python'), '');
    assert.equal(await env.exists(), true);
  });

  it('finds the wheel shipped in the extension', async () => {
    assert.equal(await findBundledWheel(dir), undefined);
    fs.mkdirSync(path.join(dir, 'server-wheel'));
    assert.equal(await findBundledWheel(dir), undefined);
    fs.writeFileSync(path.join(dir, 'server-wheel', 'codequorum-0.1.0-py3-none-any.whl'), '');
    fs.writeFileSync(path.join(dir, 'server-wheel', 'codequorum-0.2.0-py3-none-any.whl'), '');
    fs.writeFileSync(path.join(dir, 'server-wheel', 'other-9.0-py3-none-any.whl'), '');
    assert.equal(await findBundledWheel(dir), path.join(dir, 'server-wheel', 'codequorum-0.2.0-py3-none-any.whl'));
  });
});
