/** The concrete checks and installs behind bootstrap.ts, over a process runner. */
import { promises as fs } from 'fs';
import * as path from 'path';
import type { PrivateEnvironment } from './bootstrap';
import type { Runner } from './processes';

const CHECK_TIMEOUT_MS = 30_000;
const INSTALL_TIMEOUT_MS = 15 * 60_000;

export async function canImportCodequorum(run: Runner, python: string): Promise<boolean> {
  const result = await run(python, ['-c', 'import codequorum'], { timeoutMs: CHECK_TIMEOUT_MS });
  return result.code === 0;
}

export async function pythonVersionOk(run: Runner, python: string): Promise<boolean> {
  const result = await run(python, ['-c', 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'], {
    timeoutMs: CHECK_TIMEOUT_MS,
  });
  return result.code === 0;
}

export function venvPython(envDir: string, platform: NodeJS.Platform = process.platform): string {
  return platform === 'win32' ? path.join(envDir, 'Scripts', 'python.exe') : path.join(envDir, 'bin', 'python');
}

const MARKER = 'codequorum-wheel.txt';

export function privateEnvironment(envDir: string, platform: NodeJS.Platform = process.platform): PrivateEnvironment {
  const python = venvPython(envDir, platform);
  return {
    python,
    async exists() {
      return fileExists(python);
    },
    async installedWheel() {
      try {
        return (await fs.readFile(path.join(envDir, MARKER), 'utf8')).trim() || undefined;
      } catch {
        return undefined;
      }
    },
    async rememberWheel(name: string) {
      await fs.writeFile(path.join(envDir, MARKER), `${name}\n`);
    },
  };
}

function check(result: Awaited<ReturnType<Runner>>, what: string): void {
  if (result.code !== 0) {
    const tail = (result.stderr || result.stdout).trim().split('\n').slice(-3).join(' ');
    throw new Error(`${what} failed${result.error ? ` (${result.error})` : ''}: ${tail}`);
  }
}

export async function createVenv(run: Runner, basePython: string, envDir: string, log: (s: string) => void): Promise<void> {
  await fs.mkdir(path.dirname(envDir), { recursive: true });
  check(await run(basePython, ['-m', 'venv', envDir], { timeoutMs: INSTALL_TIMEOUT_MS, onOutput: log }), 'python -m venv');
}

export async function installWheel(run: Runner, envPython: string, wheel: string, log: (s: string) => void): Promise<void> {
  const pip = [envPython, '-m', 'pip', 'install', '--disable-pip-version-check'];
  // First the wheel with its dependencies, then the bundled build itself even if the same
  // version number is already there.
  check(await run(pip[0], [...pip.slice(1), wheel], { timeoutMs: INSTALL_TIMEOUT_MS, onOutput: log }), 'pip install');
  check(
    await run(pip[0], [...pip.slice(1), '--force-reinstall', '--no-deps', wheel], {
      timeoutMs: INSTALL_TIMEOUT_MS,
      onOutput: log,
    }),
    'pip install --force-reinstall',
  );
}

/** The newest codequorum-*.whl in the extension's server-wheel folder. */
export async function findBundledWheel(extensionPath: string): Promise<string | undefined> {
  const dir = path.join(extensionPath, 'server-wheel');
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return undefined;
  }
  const wheels = names.filter((n) => /^codequorum-.+\.whl$/.test(n)).sort();
  return wheels.length ? path.join(dir, wheels[wheels.length - 1]) : undefined;
}

async function fileExists(p: string): Promise<boolean> {
  try {
    await fs.access(p);
    return true;
  } catch {
    return false;
  }
}
