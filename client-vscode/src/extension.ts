/** Entry point: wires the server, the status bar, the commands and the sample documents together. */
import * as path from 'path';
import * as vscode from 'vscode';
import type { BootstrapDeps } from './bootstrap';
import { preparePortable } from './portableSetup';
import { clearVersions } from './commands/clear';
import { compareVersions } from './commands/compare';
import type { CommandContext } from './commands/context';
import { regenerateWithLanguageModel, regenerateWithServer } from './commands/regenerate';
import { atColumnZero, replaceWithVersion, toVscodeRange } from './commands/replace';
import { importVersions } from './commands/importVersions';
import { runVersions } from './commands/runVersions';
import { showReport } from './commands/showReport';
import { Commands, LENS_COMMANDS, RESTART_SETTINGS, SAMPLE_SCHEME } from './constants';
import { confirmEndpoint } from './endpointConsent';
import { interpreterSettingNote, interpreterSettingsCommand, packagesEnvironment } from './interpreter';
import { LaunchState, serverCommandLine } from './launch';
import type { ServerCommandLine } from './interpreter';
import { ServerCommands } from './generated/commands';
import { mcpApi, publishMcpServer, type UserProvider } from './mcpServer';
import { runProcess } from './processes';
import { activeEnvironmentPrefix, activeEnvironmentPython, onActiveEnvironmentChange } from './python';
import {
  canImportCodequorum,
  createVenv,
  findBundledWheel,
  installWheel,
  privateEnvironment,
  pythonVersionOk,
} from './pythonEnv';
import { SampleContentProvider } from './sampleDocuments';
import { ServerController } from './serverClient';
import { NO_SERVER, StabilityStatus } from './statusBar';
import { changeListener, servedDocument } from './editReason';
import { ServerJobs } from './serverJobs';
import { relayTarget } from './relay';
import { functionArgument } from './serverApi';

const STATUS_DELAY_MS = 350;

let running: ServerController | undefined;

function setting<T>(key: string, fallback: T): T {
  return vscode.workspace.getConfiguration('codequorum').get<T>(key, fallback);
}

function workspaceFolder(): string | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
}

function bootstrapDeps(context: vscode.ExtensionContext, output: vscode.LogOutputChannel): BootstrapDeps {
  const envDir = path.join(context.globalStorageUri.fsPath, 'server-env');
  const log = (text: string): void => output.info(text.trimEnd());
  return {
    canImport: (python) => canImportCodequorum(runProcess, python),
    versionOk: (python) => pythonVersionOk(runProcess, python),
    privateEnv: privateEnvironment(envDir),
    bundledWheel: () => findBundledWheel(context.extensionPath),
    ask: (message, choices) => Promise.resolve(vscode.window.showInformationMessage(message, ...choices)),
    createEnv: (basePython) => createVenv(runProcess, basePython, envDir, log),
    installWheel: (envPython, wheel) => installWheel(runProcess, envPython, wheel, log),
    withProgress: (title, task) =>
      Promise.resolve(
        vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title }, (progress) =>
          task((message) => progress.report({ message })),
        ),
      ),
    prepareSandbox: (python) =>
      preparePortable(python, {
        platform: process.platform,
        sandbox: setting<unknown>('dynamic.sandbox', 'auto'),
        run: runProcess,
        withCancellableProgress: (title, task) =>
          Promise.resolve(
            vscode.window.withProgress(
              { location: vscode.ProgressLocation.Notification, title, cancellable: true },
              (_progress, token) => {
                const controller = new AbortController();
                token.onCancellationRequested(() => controller.abort());
                return task(controller.signal);
              },
            ),
          ),
        log,
      }),
    openInterpreterSetting: async () => {
      // A file picked here is written as a User setting: VS Code puts a machine setting in a
      // remote window's Remote settings, where it applies. Without a file, the Settings editor
      // shows the setting (in its Remote tab in a remote window: the User tab does not list it).
      const picked = await vscode.window.showOpenDialog({
        canSelectFiles: true,
        canSelectFolders: false,
        canSelectMany: false,
        title: 'Python interpreter for the codequorum language server (3.11 or newer)',
        openLabel: 'Use This Python',
      });
      if (picked?.[0]) {
        await vscode.workspace
          .getConfiguration('codequorum')
          .update('interpreter', picked[0].fsPath, vscode.ConfigurationTarget.Global);
        return;
      }
      const show = interpreterSettingsCommand(vscode.env.remoteName);
      await vscode.commands.executeCommand(show.command, ...show.args);
    },
    log,
    remoteName: vscode.env.remoteName,
  };
}

/** The user's own endpoint settings (never a workspace's), for the agents' server. */
function userProvider(config: vscode.WorkspaceConfiguration): UserProvider {
  const user = (key: string): string | undefined => {
    const value = config.inspect<unknown>(`provider.${key}`)?.globalValue;
    return typeof value === 'string' ? value : undefined;
  };
  return { baseUrl: user('baseUrl'), model: user('model'), apiKeyEnv: user('apiKeyEnv') };
}

function isServed(document: vscode.TextDocument): boolean {
  return servedDocument(document.languageId, document.uri.scheme);
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel('codequorum', { log: true });
  context.subscriptions.push(output);
  const launchState = new LaunchState();
  const bootstrap = bootstrapDeps(context, output);
  let lastLine: ServerCommandLine | undefined;

  const item = vscode.window.createStatusBarItem('codequorum.stability', vscode.StatusBarAlignment.Right, 100);
  item.name = 'codequorum stability';
  context.subscriptions.push(item);
  const jobItem = vscode.window.createStatusBarItem('codequorum.jobs', vscode.StatusBarAlignment.Right, 99);
  jobItem.name = 'codequorum jobs';
  context.subscriptions.push(jobItem);
  const jobs = new ServerJobs(jobItem, (token) => server.cancelJob(token), Commands.stopJob);

  const server = new ServerController({
    output,
    jobs,
    onRelay: (params) => {
      const relayed = relayTarget(params);
      if (!relayed) {
        output.warn('codequorum/relay: not a function and a prompt; ignored');
        return;
      }
      void regenerateWithLanguageModel(ctx, relayed.target, { messages: relayed.messages, count: relayed.count });
    },
    commandLine: async (interactive) => {
      const line = await serverCommandLine(
        {
          serverCommand: setting<unknown>('server.command', []),
          interpreter: setting('interpreter', ''),
          interpreterNote: interpreterSettingNote(
            vscode.workspace.getConfiguration('codequorum').inspect('interpreter'),
            vscode.env.remoteName,
          ),
          workspaceFolder: workspaceFolder(),
          activeEnvironment: () => activeEnvironmentPython(vscode.workspace.workspaceFolders?.[0]?.uri),
          bootstrap,
          showError: (message) => void vscode.window.showErrorMessage(message),
        },
        launchState,
        interactive,
      );
      if (line) {
        lastLine = line;
        agents?.changed();
      }
      return line;
    },
    environment: async () =>
      packagesEnvironment(
        await activeEnvironmentPrefix(vscode.workspace.workspaceFolders?.[0]?.uri),
        vscode.workspace.isTrusted,
      ),
    lensCommand: (command, args) => {
      const own = LENS_COMMANDS[command];
      return own ? vscode.commands.executeCommand(own, ...args) : undefined;
    },
    onStateChange: () => status.refresh(),
  });
  running = server;
  context.subscriptions.push(server);

  // Agents get `codequorum mcp`, started with the language server's interpreter.
  const agents = publishMcpServer(mcpApi(vscode as unknown as { lm?: unknown; McpStdioServerDefinition?: unknown }), {
    isTrusted: () => vscode.workspace.isTrusted,
    onDidGrantTrust: vscode.workspace.onDidGrantWorkspaceTrust,
    serverCommandLine: () => lastLine,
    workspaceFolder,
    userProvider: () => userProvider(vscode.workspace.getConfiguration('codequorum')),
    version: (context.extension?.packageJSON as { version?: string } | undefined)?.version ?? '',
    log: (line) => output.info(line),
  });
  context.subscriptions.push(...(agents?.disposables ?? []));

  const status = new StabilityStatus(
    item,
    async (uri, position) => {
      const api = server.api();
      return api ? api.analyze({ uri, position }) : NO_SERVER;
    },
    {
      delayMs: STATUS_DELAY_MS,
      command: Commands.compare,
      regenerateCommand: Commands.regenerate,
      restartCommand: Commands.restart,
      warningColor: new vscode.ThemeColor('statusBarItem.warningBackground'),
      log: (line) => output.debug(line),
    },
  );
  status.setEnabled(setting('statusBar.enable', true));
  context.subscriptions.push(status);

  const ctx: CommandContext = {
    api: () => server.api(),
    log: (line) => output.info(line),
    refreshStatus: () => status.refresh(),
    documentText: async (uri, range) => {
      const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(uri));
      return document.getText(toVscodeRange(range));
    },
    languageOf: (uri) => vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri)?.languageId,
    setting,
    trusted: () => vscode.workspace.isTrusted,
    confirmEndpoint: () =>
      confirmEndpoint(vscode.workspace.getConfiguration('codequorum'), context.globalState, (message, ...choices) =>
        vscode.window.showWarningMessage(message, { modal: true }, ...choices),
      ),
  };

  const samples = new SampleContentProvider(async (ref) => {
    const api = server.api();
    if (!api) {
      throw new Error('the language server is not running');
    }
    if (ref.version === 'current') {
      const report = await api.analyze(ref.target);
      if (!report?.range) {
        throw new Error('the function is no longer there');
      }
      const start = report.range.start;
      const head = await ctx.documentText(ref.target.uri, { start: { line: start.line, character: 0 }, end: start });
      return atColumnZero(head, await ctx.documentText(ref.target.uri, report.range));
    }
    const version = await api.call(ServerCommands.showVersion, functionArgument(ref.target, { index: ref.version }));
    return version.code;
  });

  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(SAMPLE_SCHEME, samples),
    vscode.commands.registerCommand(Commands.regenerate, (arg?: unknown) => regenerateWithServer(ctx, arg)),
    vscode.commands.registerCommand(Commands.regenerateWithLanguageModel, (arg?: unknown) =>
      regenerateWithLanguageModel(ctx, arg),
    ),
    vscode.commands.registerCommand(Commands.compare, (arg?: unknown) => compareVersions(ctx, arg)),
    vscode.commands.registerCommand(Commands.replace, (arg?: unknown, version?: number) =>
      replaceWithVersion(ctx, arg, version),
    ),
    vscode.commands.registerCommand(Commands.clear, (arg?: unknown) => clearVersions(ctx, arg)),
    vscode.commands.registerCommand(Commands.showReport, (arg?: unknown) => showReport(ctx, arg)),
    vscode.commands.registerCommand(Commands.runVersions, (arg?: unknown) => runVersions(ctx, arg)),
    vscode.commands.registerCommand(Commands.importVersions, (arg?: unknown) => importVersions(ctx, arg)),
    vscode.commands.registerCommand(Commands.restart, () => server.restart(true)),
    vscode.commands.registerCommand(Commands.showLog, () => output.show(true)),
    vscode.commands.registerCommand(Commands.stopJob, () => {
      if (!jobs.stopNewest()) {
        void vscode.window.showInformationMessage('codequorum: nothing is running that can be stopped.');
      }
    }),
  );

  const follow = (editor: vscode.TextEditor | undefined): void => {
    if (editor && isServed(editor.document)) {
      const p = editor.selection.active;
      status.cursorMoved(editor.document.uri.toString(), { line: p.line, character: p.character });
    } else {
      status.clear();
    }
  };
  // The server's watch reads every change; VS Code alone knows which were an undo or a redo.
  context.subscriptions.push(vscode.workspace.onDidChangeTextDocument(changeListener((method, params) => server.notify(method, params))));

  context.subscriptions.push(
    vscode.window.onDidChangeTextEditorSelection((e) => follow(e.textEditor)),
    vscode.window.onDidChangeActiveTextEditor((editor) => follow(editor)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (RESTART_SETTINGS.some((key) => e.affectsConfiguration(key))) {
        output.info('settings changed: restarting the language server');
        void server.restart(false);
      }
      if (e.affectsConfiguration('codequorum.provider')) {
        agents?.changed();
      }
      if (e.affectsConfiguration('codequorum.statusBar.enable')) {
        status.setEnabled(setting('statusBar.enable', true));
      }
    }),
  );

  // The server learns of the trust at start (initializationOptions): start it again once granted.
  context.subscriptions.push(
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      output.info('the workspace is now trusted: restarting the language server');
      void server.restart(false);
    }),
  );

  const pythonChange = await onActiveEnvironmentChange(() => {
    const explicit = setting<unknown>('server.command', []);
    if (!setting('interpreter', '').trim() && !(Array.isArray(explicit) && explicit.length)) {
      output.info('the Python environment changed: restarting the language server');
      void server.restart(false);
    }
  });
  if (pythonChange) {
    context.subscriptions.push(pythonChange);
  }

  void server.restart(false).then(() => follow(vscode.window.activeTextEditor));
}

export function deactivate(): Promise<void> | undefined {
  const server = running;
  running = undefined;
  return server?.stop();
}
