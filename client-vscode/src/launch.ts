/** From the settings to the server's command line: explicit command, or interpreter + bootstrap. */
import { Choices, ensureServerPython, type BootstrapDeps } from './bootstrap';
import { explicitServerCommand, programOnPath, resolveInterpreter, serverCommandFor, type ServerCommandLine } from './interpreter';

export interface LaunchInputs {
  /** codequorum.server.command */
  serverCommand: unknown;
  /** codequorum.interpreter */
  interpreter: string | undefined;
  /** Where codequorum.interpreter came from, or where to set it (for the log). */
  interpreterNote?: string;
  workspaceFolder: string | undefined;
  activeEnvironment(): Promise<string | undefined>;
  bootstrap: BootstrapDeps;
  showError(message: string): void;
}

/**
 * Remembers a "Not now" so that automatic restarts (settings changed...) do not ask again;
 * the restart command (interactive) asks again.
 */
export class LaunchState {
  declined = false;
}

/** The interpreter tried last: `python3`, or `python` on Windows where `python3` is rarely there. */
export function defaultPython(platform: NodeJS.Platform = process.platform): string {
  return platform === 'win32' ? 'python' : 'python3';
}

export async function serverCommandLine(
  inputs: LaunchInputs,
  state: LaunchState,
  interactive: boolean,
): Promise<ServerCommandLine | undefined> {
  const explicit = explicitServerCommand(inputs.serverCommand, inputs.workspaceFolder);
  if (explicit) {
    inputs.bootstrap.log(`server command from codequorum.server.command: ${[explicit.command, ...explicit.args].join(' ')}`);
    return explicit;
  }
  const interpreter = await resolveInterpreter({
    configured: inputs.interpreter,
    activeEnvironment: inputs.activeEnvironment,
    workspaceFolder: inputs.workspaceFolder,
    fallback: programOnPath(defaultPython()) ?? defaultPython(),
  });
  if (inputs.interpreterNote) {
    inputs.bootstrap.log(inputs.interpreterNote);
  }
  const quiet = state.declined && !interactive;
  const deps: BootstrapDeps = quiet
    ? { ...inputs.bootstrap, ask: async () => Choices.notNow }
    : inputs.bootstrap;
  const result = await ensureServerPython(interpreter, deps);
  switch (result.kind) {
    case 'ready':
      state.declined = false;
      return serverCommandFor(result.python);
    case 'declined':
      state.declined = true;
      inputs.bootstrap.log('the language server was not set up (declined); run "codequorum: Restart Language Server" to be asked again');
      return undefined;
    case 'failed':
      inputs.bootstrap.log(result.message);
      inputs.showError(`codequorum: ${result.message}`);
      return undefined;
  }
}
