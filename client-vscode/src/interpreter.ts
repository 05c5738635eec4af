/**
 * Which command starts the language server: the codequorum.server.command setting, else
 * `<python> -m codequorum lsp` with the python from codequorum.interpreter, else the Python
 * extension's active environment, else python3.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export type InterpreterSource = 'setting' | 'python-extension' | 'default';

function isExecutableFile(candidate: string): boolean {
  try {
    fs.accessSync(candidate, fs.constants.X_OK);
    return fs.statSync(candidate).isFile();
  } catch {
    return false;
  }
}

/**
 * The absolute path of the program `name` in the absolute folders of PATH, or undefined.
 * An empty entry (`PATH=:/usr/bin`, what `$EXTRA:$PATH` gives with EXTRA unset) or a
 * relative one names the current folder, and the server starts in the workspace folder:
 * a repository's own `python3` would run there. So the program is looked up here, in
 * the absolute folders only, as the server looks up its own programs.
 */
export function programOnPath(
  name: string,
  pathVariable: string = process.env.PATH ?? '',
  platform: NodeJS.Platform = process.platform,
  isFile: (candidate: string) => boolean = isExecutableFile,
): string | undefined {
  const paths = platform === 'win32' ? path.win32 : path.posix;
  const endings = platform === 'win32' ? ['', '.exe', '.cmd', '.bat'] : [''];
  for (const folder of pathVariable.split(platform === 'win32' ? ';' : ':')) {
    if (!folder || !paths.isAbsolute(folder)) {
      continue;
    }
    for (const ending of endings) {
      const candidate = paths.join(folder, name + ending);
      if (isFile(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}

export interface Interpreter {
  path: string;
  source: InterpreterSource;
}

export interface InterpreterInputs {
  /** Value of codequorum.interpreter ("" or undefined: not set). */
  configured: string | undefined;
  /** The Python extension's active environment, if that extension is there. */
  activeEnvironment: () => Promise<string | undefined>;
  /** Folder that `${workspaceFolder}` stands for. */
  workspaceFolder: string | undefined;
  fallback?: string;
}

/** Expands `~` and `${workspaceFolder}` / `${userHome}` in a configured path. */
export function expandPath(value: string, workspaceFolder: string | undefined, home = os.homedir()): string {
  let out = value.trim();
  out = out.replace(/\$\{userHome\}/g, home);
  if (workspaceFolder !== undefined) {
    out = out.replace(/\$\{workspaceFolder\}/g, workspaceFolder);
  }
  if (out === '~') {
    out = home;
  } else if (out.startsWith('~/')) {
    out = path.join(home, out.slice(2));
  }
  return out;
}

export async function resolveInterpreter(inputs: InterpreterInputs): Promise<Interpreter> {
  const configured = inputs.configured?.trim();
  if (configured) {
    return { path: expandPath(configured, inputs.workspaceFolder), source: 'setting' };
  }
  let active: string | undefined;
  try {
    active = await inputs.activeEnvironment();
  } catch {
    active = undefined;
  }
  if (active && active.trim()) {
    return { path: active, source: 'python-extension' };
  }
  return { path: inputs.fallback ?? 'python3', source: 'default' };
}

/** What `getConfiguration('codequorum').inspect('interpreter')` answers (the parts read here). */
export interface SettingInspection {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/** The command palette entry that opens the settings file codequorum.interpreter belongs in, in a remote window. */
export const REMOTE_SETTINGS_COMMAND = 'Preferences: Open Remote Settings (JSON)';

/**
 * Where to set codequorum.interpreter. It is a machine setting (`machine`), yours alone: a
 * workspace's settings cannot name the program the extension starts. In a remote window
 * (Remote-SSH, WSL, Dev Containers, Codespaces, code-server) VS Code reads it from the Remote
 * settings of the machine the extension runs on; a value in User settings is ignored there
 * (the User tab of the Settings editor does not even list the setting).
 */
export function interpreterSettingPlace(remoteName: string | undefined): string {
  return remoteName
    ? `the Remote settings ("${REMOTE_SETTINGS_COMMAND}", or the Remote tab of the Settings editor): in this remote window (${remoteName}) a value in User settings is ignored`
    : 'your User settings';
}

/**
 * The command (and its argument) that shows codequorum.interpreter in the Settings editor: the
 * Remote tab in a remote window, where the User tab does not list it.
 */
export function interpreterSettingsCommand(remoteName: string | undefined): { command: string; args: unknown[] } {
  return remoteName
    ? { command: 'workbench.action.openRemoteSettings', args: [{ query: 'codequorum.interpreter' }] }
    : { command: 'workbench.action.openSettings', args: ['codequorum.interpreter'] };
}

function isSet(value: unknown): boolean {
  return typeof value === 'string' && value.trim() !== '';
}

/** Which settings level codequorum.interpreter came from, or where to set it when it is not set. */
export function interpreterSettingNote(inspected: SettingInspection | undefined, remoteName: string | undefined): string {
  const ignored = isSet(inspected?.workspaceFolderValue) || isSet(inspected?.workspaceValue)
    ? ' (the workspace settings\' value is ignored: a workspace cannot name the program to run)'
    : '';
  if (isSet(inspected?.globalValue)) {
    return remoteName
      ? `codequorum.interpreter from the Remote settings of this window (${remoteName})`
      : `codequorum.interpreter from the User settings${ignored}`;
  }
  return `codequorum.interpreter is not set; set it in ${interpreterSettingPlace(remoteName)}${ignored}`;
}

export interface ServerCommandLine {
  command: string;
  args: string[];
}

/**
 * What the server's (and the MCP server's) environment adds: unbuffered output, and
 * `PYTHONSAFEPATH` so that `-m` does not put the workspace folder (the current folder) first
 * on `sys.path`, where a repository's `numpy.py` or `codequorum/` would be imported instead.
 */
export const SERVER_ENV: Readonly<Record<string, string>> = { PYTHONUNBUFFERED: '1', PYTHONSAFEPATH: '1' };

/**
 * What tells the server which environment's packages a module's versions may import when the
 * workspace has no `.venv` of its own: `VIRTUAL_ENV` set to the prefix of the environment the
 * Python extension has active (a Poetry, Pipenv, Hatch or conda one outside the workspace; the
 * server reads its pure-Python packages only, and only when it is a virtual or conda
 * environment). Nothing in an untrusted workspace, whose settings may choose that environment.
 */
export function packagesEnvironment(prefix: string | undefined, trusted: boolean): Record<string, string> {
  return trusted && prefix && path.isAbsolute(prefix) ? { VIRTUAL_ENV: prefix } : {};
}

/** The server's command line for an interpreter: `<python> -m codequorum lsp`. */
export function serverCommandFor(python: string): ServerCommandLine {
  return { command: python, args: ['-m', 'codequorum', 'lsp'] };
}

/** codequorum.server.command, when set and usable, as a command line. */
export function explicitServerCommand(
  value: unknown,
  workspaceFolder: string | undefined,
): ServerCommandLine | undefined {
  if (!Array.isArray(value) || value.length === 0) {
    return undefined;
  }
  const parts = value.filter((v): v is string => typeof v === 'string' && v.trim() !== '');
  if (parts.length === 0) {
    return undefined;
  }
  const [command, ...args] = parts.map((p) => expandPath(p, workspaceFolder));
  return { command, args };
}
