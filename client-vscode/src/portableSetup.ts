/**
 * The portable sandbox prepared at setup: where versions will run in it (macOS, Windows,
 * Linux without user namespaces, or `codequorum.dynamic.sandbox` set to `portable`), the
 * setup runs `codequorum doctor --prepare` once (its interpreter compiled into the user's
 * cache, tens of seconds) with a progress notification the user can cancel, so no hover
 * waits for it. A cancel or a failure costs nothing but the wait: the server prepares it
 * before its first portable run (lsp/prepare.py).
 */
import type { RunOptions, RunResult } from './processes';

export const PREPARE_TITLE = 'codequorum: preparing the portable sandbox (once; tens of seconds)';
/** A compile on a slow, loaded machine takes minutes; longer than this is stuck. */
export const PREPARE_TIMEOUT_MS = 15 * 60_000;
const DOCTOR = ['-m', 'codequorum', 'doctor', '--prepare'];

export type PrepareOutcome = 'not-needed' | 'ready' | 'cancelled' | 'failed';

/**
 * What the setup runs for a sandbox setting on a platform, or undefined when versions never
 * run in the portable sandbox there. With `auto`: on macOS and Windows the strict sandbox
 * never exists, so prepare; on Linux the server decides (`--if-needed`: only where its
 * probe finds no strict sandbox).
 */
export function prepareArgs(platform: NodeJS.Platform, sandbox: unknown): string[] | undefined {
  if (sandbox === 'strict' || sandbox === 'weak') {
    return undefined;
  }
  if (sandbox === 'portable' || platform === 'darwin' || platform === 'win32') {
    return [...DOCTOR];
  }
  return [...DOCTOR, '--if-needed'];
}

export interface PrepareDeps {
  platform: NodeJS.Platform;
  /** codequorum.dynamic.sandbox as read (anything else counts as `auto`). */
  sandbox: unknown;
  run(command: string, args: string[], options: RunOptions): Promise<RunResult>;
  /** A cancellable progress: the signal aborts when the user cancels. */
  withCancellableProgress<T>(title: string, task: (signal: AbortSignal) => Promise<T>): Promise<T>;
  log(line: string): void;
}

/** Runs the preparation with `python` (the server's) when this machine needs it. */
export async function preparePortable(python: string, deps: PrepareDeps): Promise<PrepareOutcome> {
  const args = prepareArgs(deps.platform, deps.sandbox);
  if (args === undefined) {
    deps.log(`the portable sandbox needs no preparing: codequorum.dynamic.sandbox is ${String(deps.sandbox)}`);
    return 'not-needed';
  }
  deps.log(`preparing the portable sandbox: ${python} ${args.join(' ')}`);
  let cancelled = false;
  const result = await deps.withCancellableProgress(PREPARE_TITLE, (signal) => {
    signal.addEventListener('abort', () => {
      cancelled = true;
    });
    return deps.run(python, args, { timeoutMs: PREPARE_TIMEOUT_MS, onOutput: deps.log, signal });
  });
  if (cancelled) {
    deps.log('preparing the portable sandbox was cancelled; the server prepares it before its first portable run');
    return 'cancelled';
  }
  if (result.code === 0) {
    return 'ready';
  }
  deps.log(`the portable sandbox was not prepared (${result.error ?? `exit ${result.code}`}): ${result.stderr.trim().slice(-500)}`);
  return 'failed';
}
