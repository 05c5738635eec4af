import * as assert from 'assert/strict';
import { Choices, ensureServerPython, type BootstrapDeps } from '../src/bootstrap';
import { defaultPython, LaunchState, serverCommandLine } from '../src/launch';

interface World {
  importable: Set<string>;
  envExists: boolean;
  installedWheel: string | undefined;
  wheel: string | undefined;
  versionOk: boolean;
  answer: string | undefined;
  failInstall?: string;
}

/** A scripted machine: which pythons can import codequorum, what the user answers. */
function fakeDeps(world: World) {
  const events: string[] = [];
  const deps: BootstrapDeps = {
    canImport: async (python) => {
      events.push(`import? ${python}`);
      return world.importable.has(python);
    },
    versionOk: async () => world.versionOk,
    privateEnv: {
      python: '/storage/server-env/bin/python',
      exists: async () => world.envExists,
      installedWheel: async () => world.installedWheel,
      rememberWheel: async (name) => {
        world.installedWheel = name;
        events.push(`remember ${name}`);
      },
    },
    bundledWheel: async () => world.wheel,
    ask: async (message, choices) => {
      events.push(`ask: ${choices.join('|')}`);
      assert.match(message, /not installed/);
      return world.answer;
    },
    createEnv: async (base) => {
      events.push(`venv ${base}`);
      world.envExists = true;
    },
    installWheel: async (envPython, wheel) => {
      if (world.failInstall) {
        throw new Error(world.failInstall);
      }
      events.push(`install ${wheel} into ${envPython}`);
      world.importable.add(envPython);
    },
    withProgress: async (title, task) => {
      events.push(`progress ${title}`);
      return task(() => undefined);
    },
    openInterpreterSetting: async () => {
      events.push('open settings');
    },
    prepareSandbox: async (python) => {
      events.push(`prepare the portable sandbox with ${python}`);
    },
    log: () => undefined,
  };
  return { deps, events };
}

const WHEEL = '/ext/server-wheel/codequorum-0.1.0-py3-none-any.whl';
const interp = { path: '/usr/bin/python3', source: 'default' as const };

function world(over: Partial<World> = {}): World {
  return { importable: new Set(), envExists: false, installedWheel: undefined, wheel: WHEEL, versionOk: true, answer: undefined, ...over };
}

describe('bootstrap decision', () => {
  it('uses the interpreter when codequorum is importable there, asking nothing', async () => {
    const { deps, events } = fakeDeps(world({ importable: new Set(['/usr/bin/python3']) }));
    const result = await ensureServerPython(interp, deps);
    assert.deepEqual(result, { kind: 'ready', python: '/usr/bin/python3', via: 'interpreter' });
    assert.deepEqual(events, ['import? /usr/bin/python3']);
  });

  it('offers a private environment and, on consent, creates it and installs the bundled wheel', async () => {
    const { deps, events } = fakeDeps(world({ answer: Choices.create }));
    const result = await ensureServerPython(interp, deps);
    assert.deepEqual(result, { kind: 'ready', python: '/storage/server-env/bin/python', via: 'installed' });
    assert.deepEqual(events.filter((e) => !e.startsWith('import?')), [
      `ask: ${Choices.create}|${Choices.choose}|${Choices.notNow}`,
      'progress codequorum: setting up the language server',
      'venv /usr/bin/python3',
      `install ${WHEEL} into /storage/server-env/bin/python`,
      'remember codequorum-0.1.0-py3-none-any.whl',
      'prepare the portable sandbox with /storage/server-env/bin/python', // the setup's last step
    ]);
  });

  it('does nothing when the user declines', async () => {
    const { deps, events } = fakeDeps(world({ answer: Choices.notNow }));
    assert.deepEqual(await ensureServerPython(interp, deps), { kind: 'declined' });
    assert.ok(!events.some((e) => e.startsWith('venv') || e.startsWith('install')));
  });

  it('treats a dismissed question as declining', async () => {
    const { deps, events } = fakeDeps(world({ answer: undefined }));
    assert.deepEqual(await ensureServerPython(interp, deps), { kind: 'declined' });
    assert.ok(!events.some((e) => e.startsWith('venv')));
  });

  it('opens the interpreter setting on "Choose Interpreter"', async () => {
    const { deps, events } = fakeDeps(world({ answer: Choices.choose }));
    assert.deepEqual(await ensureServerPython(interp, deps), { kind: 'declined' });
    assert.ok(events.includes('open settings'));
  });

  it('reuses an existing private environment silently when it holds the bundled wheel', async () => {
    const { deps, events } = fakeDeps(
      world({
        envExists: true,
        importable: new Set(['/storage/server-env/bin/python']),
        installedWheel: 'codequorum-0.1.0-py3-none-any.whl',
      }),
    );
    const result = await ensureServerPython(interp, deps);
    assert.deepEqual(result, { kind: 'ready', python: '/storage/server-env/bin/python', via: 'private-env' });
    assert.ok(!events.some((e) => e.startsWith('ask')));
  });

  it('refreshes the private environment without asking when the bundled wheel changed', async () => {
    const { deps, events } = fakeDeps(
      world({
        envExists: true,
        importable: new Set(['/storage/server-env/bin/python']),
        installedWheel: 'codequorum-0.0.9-py3-none-any.whl',
      }),
    );
    const result = await ensureServerPython(interp, deps);
    assert.equal(result.kind, 'ready');
    assert.ok(!events.some((e) => e.startsWith('ask') || e.startsWith('venv')));
    assert.ok(events.includes(`install ${WHEEL} into /storage/server-env/bin/python`));
  });

  it('fails with a message when there is no wheel to install', async () => {
    const { deps } = fakeDeps(world({ wheel: undefined }));
    const result = await ensureServerPython(interp, deps);
    assert.equal(result.kind, 'failed');
    assert.match((result as { message: string }).message, /pip install codequorum/);
  });

  it('refuses a Python older than 3.11 for the environment', async () => {
    const { deps, events } = fakeDeps(world({ answer: Choices.create, versionOk: false }));
    const result = await ensureServerPython(interp, deps);
    assert.equal(result.kind, 'failed');
    assert.match((result as { message: string }).message, /3\.11/);
    assert.ok(!events.some((e) => e.startsWith('venv')));
  });

  it('reports a failed install', async () => {
    const { deps } = fakeDeps(world({ answer: Choices.create, failInstall: 'pip install failed: no network' }));
    const result = await ensureServerPython(interp, deps);
    assert.deepEqual(result, { kind: 'failed', message: 'Could not set up the language server: pip install failed: no network' });
  });
});

describe('server command line', () => {
  const base = (w: World, extra: Partial<Parameters<typeof serverCommandLine>[0]> = {}) => {
    const { deps, events } = fakeDeps(w);
    const errors: string[] = [];
    return {
      events,
      errors,
      inputs: {
        serverCommand: [],
        interpreter: '',
        workspaceFolder: '/ws',
        activeEnvironment: async () => '/env/bin/python',
        bootstrap: deps,
        showError: (m: string) => errors.push(m),
        ...extra,
      },
    };
  };

  it('uses codequorum.server.command as given, without checks', async () => {
    const { inputs, events } = base(world(), { serverCommand: ['codequorum', 'lsp'] });
    assert.deepEqual(await serverCommandLine(inputs, new LaunchState(), false), { command: 'codequorum', args: ['lsp'] });
    assert.deepEqual(events, []);
  });

  it('starts the Python extension environment when codequorum is importable there', async () => {
    const { inputs } = base(world({ importable: new Set(['/env/bin/python']) }));
    assert.deepEqual(await serverCommandLine(inputs, new LaunchState(), false), {
      command: '/env/bin/python',
      args: ['-m', 'codequorum', 'lsp'],
    });
  });

  it('asks once: after "Not now" automatic restarts stay quiet, the restart command asks again', async () => {
    const { inputs, events } = base(world({ answer: Choices.notNow }));
    const state = new LaunchState();
    assert.equal(await serverCommandLine(inputs, state, false), undefined);
    assert.equal(state.declined, true);
    assert.equal(events.filter((e) => e.startsWith('ask')).length, 1);
    assert.equal(await serverCommandLine(inputs, state, false), undefined);
    assert.equal(events.filter((e) => e.startsWith('ask')).length, 1);
    await serverCommandLine(inputs, state, true);
    assert.equal(events.filter((e) => e.startsWith('ask')).length, 2);
  });

  it('tries python3 last (python on Windows)', () => {
    assert.equal(defaultPython('linux'), 'python3');
    assert.equal(defaultPython('darwin'), 'python3');
    assert.equal(defaultPython('win32'), 'python');
  });

  it('shows an error when the set-up fails', async () => {
    const { inputs, errors } = base(world({ wheel: undefined }));
    assert.equal(await serverCommandLine(inputs, new LaunchState(), false), undefined);
    assert.equal(errors.length, 1);
    assert.match(errors[0], /^codequorum: codequorum is not installed for \/env\/bin\/python/);
  });
});
