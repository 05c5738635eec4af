import * as assert from 'assert/strict';
import { PREPARE_TITLE, prepareArgs, preparePortable, type PrepareDeps } from '../src/portableSetup';
import { runProcess, type RunOptions, type RunResult } from '../src/processes';

const PREPARE = ['-m', 'codequorum', 'doctor', '--prepare'];

describe('portable sandbox: the default choice', () => {
  it('prepares on macOS and Windows with auto: the strict sandbox never exists there', () => {
    assert.deepEqual(prepareArgs('darwin', 'auto'), PREPARE);
    assert.deepEqual(prepareArgs('win32', 'auto'), PREPARE);
  });

  it('leaves the choice to the server on Linux with auto: only where its probe finds no strict sandbox', () => {
    assert.deepEqual(prepareArgs('linux', 'auto'), [...PREPARE, '--if-needed']);
    assert.deepEqual(prepareArgs('linux', undefined), [...PREPARE, '--if-needed']);
    assert.deepEqual(prepareArgs('linux', 42), [...PREPARE, '--if-needed']); // a bad value is auto
  });

  it('prepares wherever portable is asked by name, and never for strict or weak', () => {
    for (const platform of ['linux', 'darwin', 'win32'] as const) {
      assert.deepEqual(prepareArgs(platform, 'portable'), PREPARE);
      assert.equal(prepareArgs(platform, 'strict'), undefined);
      assert.equal(prepareArgs(platform, 'weak'), undefined);
    }
  });
});

/** A setup whose program answers as scripted, recording what ran and what was shown. */
function scripted(platform: NodeJS.Platform, sandbox: unknown, answer: RunResult) {
  const events: string[] = [];
  const deps: PrepareDeps = {
    platform,
    sandbox,
    run: async (command: string, args: string[], options: RunOptions) => {
      events.push(`run ${command} ${args.join(' ')} (cancellable: ${options.signal !== undefined})`);
      return answer;
    },
    withCancellableProgress: async (title, task) => {
      events.push(`progress ${title}`);
      return task(new AbortController().signal);
    },
    log: () => undefined,
  };
  return { deps, events };
}

const OK: RunResult = { code: 0, stdout: 'the portable sandbox is ready: /cache/x.cwasm\n', stderr: '' };

describe('portable sandbox: the setup step', () => {
  for (const [platform, python, args] of [
    ['darwin', '/Users/a/env/bin/python', PREPARE],
    ['win32', 'C:\\env\\Scripts\\python.exe', PREPARE],
    ['linux', '/home/a/env/bin/python', [...PREPARE, '--if-needed']],
  ] as const) {
    it(`on ${platform}, runs doctor --prepare with the server's python under a cancellable progress`, async () => {
      const { deps, events } = scripted(platform, 'auto', OK);
      assert.equal(await preparePortable(python, deps), 'ready');
      assert.deepEqual(events, [`progress ${PREPARE_TITLE}`, `run ${python} ${args.join(' ')} (cancellable: true)`]);
    });
  }

  it('runs nothing and shows nothing where the strict sandbox is chosen', async () => {
    const { deps, events } = scripted('darwin', 'strict', OK);
    assert.equal(await preparePortable('/env/bin/python', deps), 'not-needed');
    assert.deepEqual(events, []);
  });

  it('says the preparation failed, without failing anything else', async () => {
    const lines: string[] = [];
    const { deps } = scripted('win32', 'auto', {
      code: 1,
      stdout: '',
      stderr: 'codequorum: the portable sandbox cannot be prepared here: the package wasmtime is not installed\n',
    });
    assert.equal(await preparePortable('python', { ...deps, log: (line) => lines.push(line) }), 'failed');
    assert.match(lines.at(-1) ?? '', /not prepared \(exit 1\): .*wasmtime is not installed$/);
  });

  it('a cancel stops the running program (a real one that would run for a minute)', async () => {
    const results: RunResult[] = [];
    const deps: PrepareDeps = {
      platform: 'darwin',
      sandbox: 'auto',
      run: async (_command, _args, options) => {
        const result = await runProcess(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], options);
        results.push(result);
        return result;
      },
      withCancellableProgress: async (_title, task) => {
        const controller = new AbortController();
        setTimeout(() => controller.abort(), 200);
        return task(controller.signal);
      },
      log: () => undefined,
    };
    assert.equal(await preparePortable('python', deps), 'cancelled');
    assert.deepEqual(results.map((r) => [r.code, r.error]), [[null, 'cancelled']]);
  });
});
