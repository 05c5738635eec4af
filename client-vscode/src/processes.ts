/** Running a program (never generated code: only python, venv and pip) and collecting its output. */
import { spawn } from 'child_process';

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Set when the program could not be started (ENOENT...) or timed out. */
  error?: string;
}

export interface RunOptions {
  timeoutMs?: number;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Called with each chunk of output as it arrives (for a log channel). */
  onOutput?: (text: string) => void;
  /** Aborting it kills the program (a cancelled progress). */
  signal?: AbortSignal;
}

export type Runner = (command: string, args: string[], options?: RunOptions) => Promise<RunResult>;

export const runProcess: Runner = (command, args, options = {}) =>
  new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let settled = false;
    const finish = (result: RunResult): void => {
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        resolve(result);
      }
    };
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      shell: false,
      windowsHide: true,
    });
    const timer = setTimeout(() => {
      child.kill();
      finish({ code: null, stdout, stderr, error: `timed out after ${options.timeoutMs} ms` });
    }, options.timeoutMs ?? 120_000);
    child.stdout.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      stdout += text;
      options.onOutput?.(text);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      stderr += text;
      options.onOutput?.(text);
    });
    const abort = (): void => {
      child.kill();
      finish({ code: null, stdout, stderr, error: 'cancelled' });
    };
    if (options.signal?.aborted) {
      abort();
    }
    options.signal?.addEventListener('abort', abort, { once: true });
    child.on('error', (err) => finish({ code: null, stdout, stderr, error: err.message }));
    child.on('close', (code) => finish({ code, stdout, stderr }));
  });
