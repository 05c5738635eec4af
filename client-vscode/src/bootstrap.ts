/**
 * Makes sure the language server can start: codequorum importable by the chosen interpreter,
 * or (with the user's consent) a private virtual environment in the extension's global storage
 * with the server wheel shipped inside the extension.
 */
import * as path from 'path';
import { interpreterSettingPlace, type Interpreter } from './interpreter';
import { errorText } from './json';

export const Choices = {
  create: 'Create Environment',
  choose: 'Choose Interpreter',
  notNow: 'Not Now',
} as const;

export type BootstrapResult =
  | { kind: 'ready'; python: string; via: 'interpreter' | 'private-env' | 'installed' }
  | { kind: 'declined' }
  | { kind: 'failed'; message: string };

export interface PrivateEnvironment {
  /** The environment's python executable. */
  python: string;
  exists(): Promise<boolean>;
  /** File name of the wheel last installed there, if known. */
  installedWheel(): Promise<string | undefined>;
  rememberWheel(wheelName: string): Promise<void>;
}

export interface BootstrapDeps {
  canImport(python: string): Promise<boolean>;
  /** True when the interpreter is recent enough to run the server (3.11+). */
  versionOk(python: string): Promise<boolean>;
  privateEnv: PrivateEnvironment;
  /** Absolute path of the server wheel inside the extension, if there is one. */
  bundledWheel(): Promise<string | undefined>;
  ask(message: string, choices: string[]): Promise<string | undefined>;
  createEnv(basePython: string): Promise<void>;
  installWheel(envPython: string, wheel: string): Promise<void>;
  withProgress<T>(title: string, task: (report: (message: string) => void) => Promise<T>): Promise<T>;
  openInterpreterSetting(): Promise<void>;
  log(line: string): void;
  /** `vscode.env.remoteName` (ssh-remote, wsl, ...) in a remote window. */
  remoteName?: string;
  /**
   * The setup's last step once the server is installed: the portable sandbox prepared where
   * versions will run in it (portableSetup.ts). Its outcome never fails the setup.
   */
  prepareSandbox?(python: string): Promise<unknown>;
}

export function offerMessage(python: string, remoteName?: string): string {
  return (
    `The codequorum language server is not installed for ${python}. ` +
    'Create a private Python environment for it? Its dependencies are downloaded from the package index. ' +
    `To use a Python of your own instead, answer ${Choices.choose}, or set codequorum.interpreter in ${interpreterSettingPlace(remoteName)}.`
  );
}

export async function ensureServerPython(interpreter: Interpreter, deps: BootstrapDeps): Promise<BootstrapResult> {
  deps.log(`interpreter: ${interpreter.path} (from ${interpreter.source})`);
  if (await deps.canImport(interpreter.path)) {
    return { kind: 'ready', python: interpreter.path, via: 'interpreter' };
  }
  deps.log(`codequorum is not importable by ${interpreter.path}`);
  const wheel = await deps.bundledWheel();
  const env = deps.privateEnv;
  if ((await env.exists()) && (await deps.canImport(env.python))) {
    const installed = await env.installedWheel();
    if (wheel === undefined || installed === path.basename(wheel)) {
      deps.log(`using the private environment ${env.python}`);
      return { kind: 'ready', python: env.python, via: 'private-env' };
    }
    // The extension was updated: the user already agreed to this environment, so refresh it.
    return install(interpreter.path, wheel, deps, false);
  }
  if (wheel === undefined) {
    return {
      kind: 'failed',
      message: `codequorum is not installed for ${interpreter.path}, and this extension carries no server wheel. Install it with \`${interpreter.path} -m pip install codequorum\` or set codequorum.interpreter.`,
    };
  }
  const answer = await deps.ask(offerMessage(interpreter.path, deps.remoteName), [Choices.create, Choices.choose, Choices.notNow]);
  if (answer === Choices.choose) {
    await deps.openInterpreterSetting();
    return { kind: 'declined' };
  }
  if (answer !== Choices.create) {
    return { kind: 'declined' };
  }
  if (!(await deps.versionOk(interpreter.path))) {
    return {
      kind: 'failed',
      message: `${interpreter.path} is not Python 3.11 or newer: set codequorum.interpreter to a newer Python to create the environment.`,
    };
  }
  return install(interpreter.path, wheel, deps, true);
}

async function install(basePython: string, wheel: string, deps: BootstrapDeps, create: boolean): Promise<BootstrapResult> {
  const env = deps.privateEnv;
  try {
    await deps.withProgress('codequorum: setting up the language server', async (report) => {
      if (create && !(await env.exists())) {
        report('creating the environment');
        deps.log(`creating a virtual environment with ${basePython}`);
        await deps.createEnv(basePython);
      }
      report('installing codequorum and its dependencies');
      deps.log(`installing ${path.basename(wheel)}`);
      await deps.installWheel(env.python, wheel);
      await env.rememberWheel(path.basename(wheel));
    });
  } catch (err) {
    return { kind: 'failed', message: `Could not set up the language server: ${errorText(err)}` };
  }
  if (!(await deps.canImport(env.python))) {
    return { kind: 'failed', message: `codequorum is still not importable by ${env.python}; see the codequorum log.` };
  }
  await deps.prepareSandbox?.(env.python);
  return { kind: 'ready', python: env.python, via: 'installed' };
}
