/** The language client: starts `<python> -m codequorum lsp` over stdio, stops and restarts it. */
import * as vscode from 'vscode';
import {
  ExecuteCommandRequest,
  LanguageClient,
  RevealOutputChannelOn,
  State,
  TransportKind,
  WorkDoneProgress,
  WorkDoneProgressCancelNotification,
  WorkDoneProgressCreateRequest,
  type ClientCapabilities,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';
import { shownCodeActions } from './codeActions';
import { LANGUAGES } from './constants';
import { SERVER_ENV, type ServerCommandLine } from './interpreter';
import { errorText } from './json';
import { ServerApi, type Cancellation } from './serverApi';
import type { ProgressToken, ProgressValue } from './serverJobs';
import { serverSettings, withTrust } from './serverSettings';

export interface ServerControllerDeps {
  output: vscode.LogOutputChannel;
  /** The command line to start, or undefined when the server cannot or should not start. */
  commandLine(interactive: boolean): Promise<ServerCommandLine | undefined>;
  onStateChange?(running: boolean): void;
  /** Serves a command the server's code lenses run (its one argument), or undefined to let the server do it. */
  lensCommand?(command: string, args: unknown[]): Thenable<unknown> | undefined;
  /** The server's work-done progress, shown and stopped by the extension (see serverJobs.ts). */
  jobs?: {
    created(token: ProgressToken): void;
    progress(token: ProgressToken, value: ProgressValue): void;
    clear(): void;
  };
  /** The watch asks the editor for versions (`codequorum/relay`, with provider.kind "client"). */
  onRelay?(params: unknown): void;
  /** Variables added to the server's environment (`packagesEnvironment`). */
  environment?(): Promise<Record<string, string>>;
}

/** The notification by which the server's watch asks this editor to write versions. */
export const RELAY = 'codequorum/relay';

/** Tells the server this editor writes versions when the watch asks (`experimental.codequorumRelay`). */
export const relayFeature = {
  fillClientCapabilities(capabilities: ClientCapabilities): void {
    capabilities.experimental = { ...(capabilities.experimental as object | undefined), codequorumRelay: true };
  },
  initialize(): void {},
  getState(): { kind: 'static' } {
    return { kind: 'static' };
  },
  clear(): void {},
};

export function documentSelector(): { scheme: string; language: string }[] {
  return LANGUAGES.flatMap((language) => [
    { scheme: 'file', language },
    { scheme: 'untitled', language },
  ]);
}

export class ServerController implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private apiInstance: ServerApi | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: ServerControllerDeps) {}

  api(): ServerApi | undefined {
    return this.client?.state === State.Running ? this.apiInstance : undefined;
  }

  /** Send a notification to the running server (nothing when none runs). */
  notify(method: string, params: unknown): void {
    if (this.client?.state === State.Running) {
      void this.client.sendNotification(method, params).catch((err: unknown) => this.deps.output.warn(`${method}: ${errorText(err)}`));
    }
  }

  /** Stop one of the server's jobs (its work-done progress token). */
  cancelJob(token: ProgressToken): void {
    if (this.client?.state === State.Running) {
      void this.client.sendNotification(WorkDoneProgressCancelNotification.type, { token });
    }
  }

  /** Start (or restart) the server; calls are queued so two restarts never overlap. */
  restart(interactive: boolean): Promise<void> {
    const next = this.queue.then(() => this.doRestart(interactive));
    this.queue = next.catch(() => undefined);
    return next;
  }

  stop(): Promise<void> {
    const next = this.queue.then(() => this.doStop());
    this.queue = next.catch(() => undefined);
    return next;
  }

  dispose(): void {
    void this.stop();
  }

  private async doStop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.apiInstance = undefined;
    if (client) {
      try {
        await client.stop(5000);
      } catch (err) {
        this.deps.output.warn(`stopping the server: ${errorText(err)}`);
      }
      await client.dispose();
    }
    this.deps.onStateChange?.(false);
  }

  /** What `deps.environment` adds; nothing when it fails (the server starts without it). */
  private async serverEnvironment(): Promise<Record<string, string>> {
    try {
      return (await this.deps.environment?.()) ?? {};
    } catch (err) {
      this.deps.output.warn(`the active Python environment could not be read: ${errorText(err)}`);
      return {};
    }
  }

  /** The server's progress goes to the extension's job item (in place of the client's own window progress, which cannot be stopped). */
  private followJobs(client: LanguageClient): void {
    const jobs = this.deps.jobs;
    if (!jobs) {
      return;
    }
    client.onRequest(WorkDoneProgressCreateRequest.type, ({ token }) => {
      jobs.created(token);
      const listener = client.onProgress(WorkDoneProgress.type, token, (value) => {
        jobs.progress(token, value as ProgressValue);
        if (value.kind === 'end') {
          listener.dispose();
        }
      });
      return null;
    });
  }

  private async doRestart(interactive: boolean): Promise<void> {
    await this.doStop();
    const line = await this.deps.commandLine(interactive);
    if (!line) {
      this.deps.output.info('the language server is not started');
      return;
    }
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const serverOptions: ServerOptions = {
      command: line.command,
      args: line.args,
      transport: TransportKind.stdio,
      options: { cwd: folder, env: { ...process.env, ...(await this.serverEnvironment()), ...SERVER_ENV } },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: documentSelector(),
      outputChannel: this.deps.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      synchronize: { configurationSection: 'codequorum' },
      initializationOptions: withTrust(serverSettings(vscode.workspace.getConfiguration('codequorum')), vscode.workspace.isTrusted),
      middleware: {
        executeCommand: (command, args, next) => this.deps.lensCommand?.(command, args) ?? next(command, args),
        provideCodeActions: async (document, range, context, token, next) =>
          shownCodeActions(
            await next(document, range, context, token),
            vscode.workspace.getConfiguration('codequorum', document.uri).get('codeAction.commands', 'auto'),
          ),
        workspace: {
          configuration: async (params, token, next) => {
            const result = await next(params, token);
            if (!Array.isArray(result)) {
              return result;
            }
            return result.map((value, i) =>
              params.items[i]?.section === 'codequorum' ? withTrust(serverSettings(value), vscode.workspace.isTrusted) : value,
            );
          },
        },
      },
    };
    const client = new LanguageClient('codequorum', 'codequorum language server', serverOptions, clientOptions);
    // Running is announced below, once the API is in place; a stop (a crash too) at once.
    client.onDidChangeState((e) => {
      if (e.newState === State.Stopped) {
        this.deps.jobs?.clear();
        this.deps.onStateChange?.(false);
      }
    });
    client.registerFeature(relayFeature);
    this.deps.output.info(`starting: ${[line.command, ...line.args].join(' ')}`);
    try {
      await client.start();
    } catch (err) {
      this.deps.output.error(`the language server did not start: ${errorText(err)}`);
      void vscode.window.showErrorMessage('codequorum: the language server did not start. See the codequorum log.');
      await client.dispose().catch(() => undefined);
      return;
    }
    this.followJobs(client);
    client.onNotification(RELAY, (params: unknown) => this.deps.onRelay?.(params));
    this.client = client;
    this.apiInstance = new ServerApi((command, args, token) =>
      client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args }, token as vscode.CancellationToken | undefined),
    );
    this.deps.onStateChange?.(true);
  }
}

export type { Cancellation };
