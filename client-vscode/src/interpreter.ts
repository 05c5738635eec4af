/**
 * Which command starts the language server: the codequorum.server.command setting, else
 * `<python> -m codequorum lsp` with the python from codequorum.interpreter, else the Python
 * extension's active environment, else python3.
 */
import * as os from 'os';
import * as path from 'path';

export type InterpreterSource = 'setting' | 'python-extension' | 'default';

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

export interface ServerCommandLine {
  command: string;
  args: string[];
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
