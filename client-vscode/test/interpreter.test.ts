import * as assert from 'assert/strict';
import * as os from 'os';
import * as path from 'path';
import { offerMessage } from '../src/bootstrap';
import {
  expandPath,
  explicitServerCommand,
  interpreterSettingNote,
  interpreterSettingPlace,
  interpreterSettingsCommand,
  packagesEnvironment,
  programOnPath,
  REMOTE_SETTINGS_COMMAND,
  resolveInterpreter,
  serverCommandFor,
} from '../src/interpreter';

describe('the python found on PATH', () => {
  const everywhere = () => true;

  it('is looked up in the absolute folders only, never the current one', () => {
    for (const variable of ['', ':', '.', 'bin', ':.:bin']) {
      assert.equal(programOnPath('python3', variable, 'linux', everywhere), undefined);
    }
    assert.equal(programOnPath('python3', ':/usr/bin:/bin', 'linux', everywhere), '/usr/bin/python3');
    const seen: string[] = [];
    programOnPath('python3', '.:/opt/py/bin', 'linux', (candidate) => {
      seen.push(candidate);
      return false;
    });
    assert.deepEqual(seen, ['/opt/py/bin/python3']);
  });

  it('reads Windows folders and endings on Windows', () => {
    const found = programOnPath('python', ';.\\tools;C:\\Python312', 'win32', (c) => c.endsWith('.exe'));
    assert.equal(found, 'C:\\Python312\\python.exe');
  });

  it('finds a real program of this machine by its absolute path', () => {
    const found = programOnPath(path.basename(process.execPath), `:${path.dirname(process.execPath)}`, 'linux');
    assert.equal(found, process.execPath);
  });
});

describe('interpreter resolution', () => {
  it('takes codequorum.interpreter first, without asking the Python extension', async () => {
    let asked = 0;
    const result = await resolveInterpreter({
      configured: '/opt/py/bin/python3.12',
      activeEnvironment: async () => {
        asked++;
        return '/env/bin/python';
      },
      workspaceFolder: '/ws',
    });
    assert.deepEqual(result, { path: '/opt/py/bin/python3.12', source: 'setting' });
    assert.equal(asked, 0);
  });

  it('expands ${workspaceFolder} and ~ in the setting', async () => {
    const result = await resolveInterpreter({
      configured: '${workspaceFolder}/.venv/bin/python',
      activeEnvironment: async () => undefined,
      workspaceFolder: '/ws',
    });
    assert.equal(result.path, '/ws/.venv/bin/python');
    assert.equal(expandPath('~/py/bin/python', undefined, '/home/u'), path.join('/home/u', 'py/bin/python'));
    assert.equal(expandPath('${userHome}/x', undefined, '/home/u'), '/home/u/x');
  });

  it('falls back to the Python extension when the setting is blank', async () => {
    const result = await resolveInterpreter({
      configured: '   ',
      activeEnvironment: async () => '/env/bin/python',
      workspaceFolder: undefined,
    });
    assert.deepEqual(result, { path: '/env/bin/python', source: 'python-extension' });
  });

  it('falls back to python3 when neither gives an interpreter', async () => {
    const none = await resolveInterpreter({ configured: '', activeEnvironment: async () => undefined, workspaceFolder: undefined });
    assert.deepEqual(none, { path: 'python3', source: 'default' });
    const failing = await resolveInterpreter({
      configured: undefined,
      activeEnvironment: async () => {
        throw new Error('Python extension is not installed or is disabled');
      },
      workspaceFolder: undefined,
    });
    assert.deepEqual(failing, { path: 'python3', source: 'default' });
  });

  it('builds `<python> -m codequorum lsp`', () => {
    assert.deepEqual(serverCommandFor('/env/bin/python'), { command: '/env/bin/python', args: ['-m', 'codequorum', 'lsp'] });
  });

  it('reads codequorum.server.command only when it is a non-empty list of strings', () => {
    assert.equal(explicitServerCommand([], '/ws'), undefined);
    assert.equal(explicitServerCommand('python -m codequorum lsp', '/ws'), undefined);
    assert.equal(explicitServerCommand(['', '  '], '/ws'), undefined);
    assert.deepEqual(explicitServerCommand(['${workspaceFolder}/py', '-m', 'codequorum', 'lsp'], '/ws'), {
      command: '/ws/py',
      args: ['-m', 'codequorum', 'lsp'],
    });
    assert.equal(expandPath('~', undefined, os.homedir()), os.homedir());
  });
});

describe('where codequorum.interpreter comes from', () => {
  it('names the settings level the value came from', () => {
    assert.equal(
      interpreterSettingNote({ workspaceFolderValue: '/f/python' }, undefined),
      "codequorum.interpreter is not set; set it in your User settings (the workspace settings' value is ignored: a workspace cannot name the program to run)",
    );
    assert.equal(
      interpreterSettingNote({ workspaceValue: '/w/python', globalValue: '/u/python' }, undefined),
      "codequorum.interpreter from the User settings (the workspace settings' value is ignored: a workspace cannot name the program to run)",
    );
    assert.equal(interpreterSettingNote({ globalValue: '/u/python' }, undefined), 'codequorum.interpreter from the User settings');
    assert.equal(
      interpreterSettingNote({ globalValue: '/r/python' }, 'ssh-remote'),
      'codequorum.interpreter from the Remote settings of this window (ssh-remote)',
    );
  });

  it('says where to set it when it is not set, and that a remote window ignores a value in User settings', () => {
    assert.equal(
      interpreterSettingNote({ globalValue: '  ' }, undefined),
      'codequorum.interpreter is not set; set it in your User settings',
    );
    assert.equal(
      interpreterSettingNote(undefined, '127.0.0.1:8080'),
      'codequorum.interpreter is not set; set it in the Remote settings ("Preferences: Open Remote Settings (JSON)", or the Remote tab of the Settings editor): in this remote window (127.0.0.1:8080) a value in User settings is ignored',
    );
    assert.equal(REMOTE_SETTINGS_COMMAND, 'Preferences: Open Remote Settings (JSON)');
  });

  it('puts the same advice in the offer of a private environment, after the answer that writes it', () => {
    assert.equal(
      offerMessage('python3', 'wsl'),
      'The codequorum language server is not installed for python3. Create a private Python environment for it? ' +
        'Its dependencies are downloaded from the package index. To use a Python of your own instead, answer Choose Interpreter, ' +
        `or set codequorum.interpreter in ${interpreterSettingPlace('wsl')}.`,
    );
    assert.ok(offerMessage('python3').endsWith('answer Choose Interpreter, or set codequorum.interpreter in your User settings.'));
  });

  it('shows the setting in the Remote tab of the Settings editor in a remote window', () => {
    assert.deepEqual(interpreterSettingsCommand('ssh-remote'), {
      command: 'workbench.action.openRemoteSettings',
      args: [{ query: 'codequorum.interpreter' }],
    });
    assert.deepEqual(interpreterSettingsCommand(undefined), { command: 'workbench.action.openSettings', args: ['codequorum.interpreter'] });
  });

  it('the setting is a machine setting: a remote window reads it from the remote machine, a workspace cannot set it', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const pkg = require(path.join(__dirname, '..', '..', 'package.json')) as {
      contributes: { configuration: { properties: Record<string, { scope?: string }> } };
    };
    assert.equal(pkg.contributes.configuration.properties['codequorum.interpreter'].scope, 'machine');
  });
});

describe('the environment whose packages the server reads', () => {
  it('is the active environment of a trusted workspace, by its absolute prefix', () => {
    assert.deepEqual(packagesEnvironment('/home/u/.cache/pypoetry/virtualenvs/app-py3.12', true), {
      VIRTUAL_ENV: '/home/u/.cache/pypoetry/virtualenvs/app-py3.12',
    });
    assert.deepEqual(packagesEnvironment('C:\\Users\\u\\envs\\app', true),
      path.isAbsolute('C:\\Users\\u\\envs\\app') ? { VIRTUAL_ENV: 'C:\\Users\\u\\envs\\app' } : {});
  });

  it('is none in an untrusted workspace, or without an absolute prefix', () => {
    assert.deepEqual(packagesEnvironment('/opt/envs/app', false), {});
    assert.deepEqual(packagesEnvironment(undefined, true), {});
    assert.deepEqual(packagesEnvironment('', true), {});
    assert.deepEqual(packagesEnvironment('envs/app', true), {});
  });
});
