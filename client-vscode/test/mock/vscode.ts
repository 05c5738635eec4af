/**
 * A small stand-in for the `vscode` module, enough for the extension's logic modules.
 * Tests script the user's answers through `mock.state` and read back what was shown.
 */

export class Position {
  constructor(
    public readonly line: number,
    public readonly character: number,
  ) {}
  isEqual(other: Position): boolean {
    return this.line === other.line && this.character === other.character;
  }
}

export class Range {
  public readonly start: Position;
  public readonly end: Position;
  constructor(start: Position | number, end: Position | number, endLine?: number, endChar?: number) {
    if (typeof start === 'number' && typeof end === 'number') {
      this.start = new Position(start, end);
      this.end = new Position(endLine ?? start, endChar ?? end);
    } else {
      this.start = start as Position;
      this.end = end as Position;
    }
  }
  get isEmpty(): boolean {
    return this.start.isEqual(this.end);
  }
}

export class Selection extends Range {
  constructor(
    public readonly anchor: Position,
    public readonly active: Position,
  ) {
    super(anchor, active);
  }
}

export class Uri {
  private constructor(
    public readonly scheme: string,
    public readonly authority: string,
    public readonly path: string,
    public readonly query: string,
    public readonly fragment: string,
  ) {}
  static parse(value: string): Uri {
    const m = /^([a-zA-Z][\w+.-]*):(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/.exec(value);
    if (!m) {
      throw new Error(`bad uri ${value}`);
    }
    return new Uri(m[1], m[2] ?? '', m[3] ?? '', m[4] ?? '', m[5] ?? '');
  }
  static file(path: string): Uri {
    return new Uri('file', '', path, '', '');
  }
  static from(c: { scheme: string; authority?: string; path?: string; query?: string; fragment?: string }): Uri {
    return new Uri(c.scheme, c.authority ?? '', c.path ?? '', c.query ?? '', c.fragment ?? '');
  }
  static joinPath(base: Uri, ...parts: string[]): Uri {
    return new Uri(base.scheme, base.authority, [base.path, ...parts].join('/'), base.query, base.fragment);
  }
  get fsPath(): string {
    return this.path;
  }
  with(c: { scheme?: string; path?: string; query?: string }): Uri {
    return new Uri(c.scheme ?? this.scheme, this.authority, c.path ?? this.path, c.query ?? this.query, this.fragment);
  }
  toString(): string {
    const auth = this.authority || this.scheme === 'file' ? `//${this.authority}` : '';
    return `${this.scheme}:${auth}${this.path}${this.query ? `?${this.query}` : ''}${this.fragment ? `#${this.fragment}` : ''}`;
  }
}

export class TextEdit {
  constructor(
    public readonly range: Range,
    public readonly newText: string,
  ) {}
}

export class WorkspaceEdit {
  readonly edits: { uri: Uri; range: Range; newText: string }[] = [];
  replace(uri: Uri, range: Range, newText: string): void {
    this.edits.push({ uri, range, newText });
  }
}

export class Disposable {
  constructor(private readonly fn: () => void = () => undefined) {}
  dispose(): void {
    this.fn();
  }
  static from(...items: { dispose(): unknown }[]): Disposable {
    return new Disposable(() => items.forEach((i) => i.dispose()));
  }
}

export class EventEmitter<T> {
  private listeners: ((e: T) => void)[] = [];
  readonly event = (listener: (e: T) => void): Disposable => {
    this.listeners.push(listener);
    return new Disposable(() => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    });
  };
  fire(e: T): void {
    this.listeners.forEach((l) => l(e));
  }
  dispose(): void {
    this.listeners = [];
  }
}

export class CancellationTokenSource {
  private readonly emitter = new EventEmitter<void>();
  readonly token = {
    isCancellationRequested: false,
    onCancellationRequested: this.emitter.event,
  };
  cancel(): void {
    if (!this.token.isCancellationRequested) {
      this.token.isCancellationRequested = true;
      this.emitter.fire();
    }
  }
  dispose(): void {
    this.emitter.dispose();
  }
}

export class ThemeColor {
  constructor(public readonly id: string) {}
}

export class MarkdownString {
  constructor(public value = '') {}
  appendMarkdown(s: string): MarkdownString {
    this.value += s;
    return this;
  }
}

export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
}

export enum ProgressLocation {
  SourceControl = 1,
  Window = 10,
  Notification = 15,
}

export enum ViewColumn {
  Active = -1,
  Beside = -2,
  One = 1,
}

export enum ConfigurationTarget {
  Global = 1,
  Workspace = 2,
  WorkspaceFolder = 3,
}

export enum QuickPickItemKind {
  Separator = -1,
  Default = 0,
}

export enum LanguageModelChatMessageRole {
  User = 1,
  Assistant = 2,
}

export class LanguageModelChatMessage {
  constructor(
    public readonly role: LanguageModelChatMessageRole,
    public readonly content: string,
  ) {}
  static User(content: string): LanguageModelChatMessage {
    return new LanguageModelChatMessage(LanguageModelChatMessageRole.User, content);
  }
  static Assistant(content: string): LanguageModelChatMessage {
    return new LanguageModelChatMessage(LanguageModelChatMessageRole.Assistant, content);
  }
}

export class LanguageModelError extends Error {
  constructor(
    message: string,
    public readonly code: string,
  ) {
    super(message);
  }
  static NoPermissions(message = 'no permissions'): LanguageModelError {
    return new LanguageModelError(message, 'NoPermissions');
  }
}

export class CancellationError extends Error {
  constructor() {
    super('Canceled');
    this.name = 'Canceled';
  }
}

/** What a test scripts and inspects. */
export interface MockState {
  config: Record<string, unknown>;
  messages: { level: 'info' | 'warning' | 'error'; text: string; items: string[]; modal: boolean }[];
  /** Answers for message boxes, consumed in order; undefined = dismissed. */
  messageAnswers: (string | undefined)[];
  /** Answers for quick picks: a function choosing among the items shown. */
  quickPickAnswer: (items: readonly unknown[]) => unknown;
  quickPicks: { items: readonly unknown[]; options: unknown }[];
  executed: { command: string; args: unknown[] }[];
  appliedEdits: WorkspaceEdit[];
  applyEditResult: boolean;
  progressTitles: string[];
  progressReports: { message?: string; increment?: number }[];
  /** When set, the progress token is cancelled after this many `report` calls. */
  cancelAfterReports: number | undefined;
  chatModels: unknown[];
  selectors: unknown[];
  activeTextEditor: unknown;
  registeredCommands: Map<string, (...args: unknown[]) => unknown>;
  listeners: Map<string, ((e: unknown) => void)[]>;
  outputLines: string[];
  statusItems: MockStatusBarItem[];
  workspaceFolders: { uri: Uri }[] | undefined;
  openDialogs: unknown[];
  openDialogAnswer: Uri[] | undefined;
  /** Every `WorkspaceConfiguration.update`, with its target. */
  configUpdates: { key: string; value: unknown; target: unknown }[];
  /** Text of the documents `workspace.openTextDocument` opens, by URI. */
  documents: Map<string, string>;
  contentProviders: Map<string, unknown>;
  openedDocuments: unknown[];
  /** `workspace.isTrusted`. */
  trusted: boolean;
  /** What the fake command context's endpoint check answers. */
  endpointApproved: boolean;
}

function freshState(): MockState {
  return {
    config: {},
    messages: [],
    messageAnswers: [],
    quickPickAnswer: () => undefined,
    quickPicks: [],
    executed: [],
    appliedEdits: [],
    applyEditResult: true,
    progressTitles: [],
    progressReports: [],
    cancelAfterReports: undefined,
    chatModels: [],
    selectors: [],
    activeTextEditor: undefined,
    registeredCommands: new Map(),
    listeners: new Map(),
    outputLines: [],
    statusItems: [],
    workspaceFolders: undefined,
    documents: new Map(),
    openDialogs: [],
    openDialogAnswer: undefined,
    configUpdates: [],
    contentProviders: new Map(),
    openedDocuments: [],
    trusted: true,
    endpointApproved: true,
  };
}

export const mock: { state: MockState; reset(): void } = {
  state: freshState(),
  reset(): void {
    mock.state = freshState();
  },
};

function showMessage(level: 'info' | 'warning' | 'error') {
  return async (text: string, ...rest: unknown[]): Promise<string | undefined> => {
    let modal = false;
    const items: string[] = [];
    for (const r of rest) {
      if (typeof r === 'string') {
        items.push(r);
      } else if (r && typeof r === 'object' && 'modal' in r) {
        modal = Boolean((r as { modal?: boolean }).modal);
      }
    }
    mock.state.messages.push({ level, text, items, modal });
    return items.length ? mock.state.messageAnswers.shift() : undefined;
  };
}

function eventOf(name: string) {
  return (listener: (e: unknown) => void): Disposable => {
    const list = mock.state.listeners.get(name) ?? [];
    list.push(listener);
    mock.state.listeners.set(name, list);
    return new Disposable(() => undefined);
  };
}

/** Fires a VS Code event the extension listens to (e.g. 'onDidChangeConfiguration'). */
export function fire(name: string, e: unknown): void {
  (mock.state.listeners.get(name) ?? []).forEach((l) => l(e));
}

function logChannel(name: string) {
  const line = (level: string) => (text: string) => mock.state.outputLines.push(`[${level}] ${text}`);
  return {
    name,
    info: line('info'),
    warn: line('warn'),
    error: line('error'),
    debug: line('debug'),
    trace: line('trace'),
    append: line('raw'),
    appendLine: line('raw'),
    show: () => undefined,
    clear: () => undefined,
    dispose: () => undefined,
  };
}

export const window = {
  onDidChangeTextEditorSelection: eventOf('onDidChangeTextEditorSelection'),
  onDidChangeActiveTextEditor: eventOf('onDidChangeActiveTextEditor'),
  createOutputChannel: (name: string) => logChannel(name),
  showInformationMessage: showMessage('info'),
  showWarningMessage: showMessage('warning'),
  showErrorMessage: showMessage('error'),
  async showQuickPick(items: readonly unknown[] | Promise<readonly unknown[]>, options?: unknown): Promise<unknown> {
    const resolved = await items;
    mock.state.quickPicks.push({ items: resolved, options });
    return mock.state.quickPickAnswer(resolved);
  },
  async withProgress<R>(
    options: { title?: string },
    task: (
      progress: { report(v: { message?: string; increment?: number }): void },
      token: CancellationTokenSource['token'],
    ) => Thenable<R>,
  ): Promise<R> {
    mock.state.progressTitles.push(options.title ?? '');
    const source = new CancellationTokenSource();
    const progress = {
      report(v: { message?: string; increment?: number }): void {
        mock.state.progressReports.push(v);
        const limit = mock.state.cancelAfterReports;
        if (limit !== undefined && mock.state.progressReports.length >= limit) {
          source.cancel();
        }
      },
    };
    return task(progress, source.token);
  },
  get activeTextEditor(): unknown {
    return mock.state.activeTextEditor;
  },
  async showOpenDialog(options: unknown): Promise<Uri[] | undefined> {
    mock.state.openDialogs.push(options);
    return mock.state.openDialogAnswer;
  },
  async showTextDocument(doc: unknown): Promise<unknown> {
    mock.state.openedDocuments.push(doc);
    return doc;
  },
  createStatusBarItem(): MockStatusBarItem {
    const item = new MockStatusBarItem();
    mock.state.statusItems.push(item);
    return item;
  },
};

export class MockStatusBarItem {
  name = '';
  text = '';
  tooltip: string | MarkdownString | undefined;
  command: string | undefined;
  backgroundColor: ThemeColor | undefined;
  visible = false;
  show(): void {
    this.visible = true;
  }
  hide(): void {
    this.visible = false;
  }
  dispose(): void {
    this.visible = false;
  }
}

export const workspace = {
  onDidChangeConfiguration: eventOf('onDidChangeConfiguration'),
  onDidGrantWorkspaceTrust: eventOf('onDidGrantWorkspaceTrust'),
  onDidChangeTextDocument: eventOf('onDidChangeTextDocument'),
  get isTrusted(): boolean {
    return mock.state.trusted;
  },
  get workspaceFolders(): { uri: Uri }[] | undefined {
    return mock.state.workspaceFolders;
  },
  textDocuments: [] as unknown[],
  getConfiguration(section?: string) {
    const prefix = section ? `${section}.` : '';
    return {
      get<T>(key: string, fallback?: T): T | undefined {
        const full = prefix + key;
        return full in mock.state.config ? (mock.state.config[full] as T) : fallback;
      },
      async update(key: string, value: unknown, target?: unknown): Promise<void> {
        mock.state.configUpdates.push({ key: prefix + key, value, target });
        mock.state.config[prefix + key] = value;
      },
      inspect(key: string): { globalValue?: unknown } | undefined {
        const full = prefix + key;
        return full in mock.state.config ? { globalValue: mock.state.config[full] } : {};
      },
    };
  },
  async applyEdit(edit: WorkspaceEdit): Promise<boolean> {
    mock.state.appliedEdits.push(edit);
    return mock.state.applyEditResult;
  },
  registerTextDocumentContentProvider(scheme: string, provider: unknown): Disposable {
    mock.state.contentProviders.set(scheme, provider);
    return new Disposable(() => mock.state.contentProviders.delete(scheme));
  },
  async openTextDocument(uri: Uri): Promise<unknown> {
    const text = mock.state.documents.get(uri.toString());
    if (text === undefined) {
      throw new Error(`cannot open ${uri.toString()}`);
    }
    const lines = text.split('\n');
    return {
      uri,
      getText(range?: Range): string {
        if (!range) {
          return text;
        }
        const out: string[] = [];
        for (let l = range.start.line; l <= range.end.line; l++) {
          const line = lines[l] ?? '';
          out.push(line.slice(l === range.start.line ? range.start.character : 0, l === range.end.line ? range.end.character : line.length));
        }
        return out.join('\n');
      },
    };
  },
};

export const commands = {
  async executeCommand(command: string, ...args: unknown[]): Promise<unknown> {
    mock.state.executed.push({ command, args });
    return undefined;
  },
  registerCommand(command: string, handler: (...args: unknown[]) => unknown): Disposable {
    mock.state.registeredCommands.set(command, handler);
    return new Disposable(() => mock.state.registeredCommands.delete(command));
  },
};

export const lm = {
  async selectChatModels(selector?: unknown): Promise<unknown[]> {
    mock.state.selectors.push(selector);
    return mock.state.chatModels;
  },
};

export const extensions = {
  getExtension(): undefined {
    return undefined;
  },
};

export const env: { language: string; remoteName: string | undefined } = {
  language: 'en',
  remoteName: undefined,
};
