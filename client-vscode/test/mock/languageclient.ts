/** A stand-in for `vscode-languageclient/node`: records how the client is made and answers requests. */

export enum State {
  Stopped = 1,
  Running = 2,
  Starting = 3,
}

export enum TransportKind {
  stdio = 0,
}

export enum RevealOutputChannelOn {
  Never = 4,
}

export const ExecuteCommandRequest = { type: { method: 'workspace/executeCommand' } };
export const WorkDoneProgress = { type: { method: '$/progress' } };
export const WorkDoneProgressCreateRequest = { type: { method: 'window/workDoneProgress/create' } };
export const WorkDoneProgressCancelNotification = { type: { method: 'window/workDoneProgress/cancel' } };

type Handler = (method: string, params: unknown) => unknown;

export class LanguageClient {
  static instances: LanguageClient[] = [];
  static handler: Handler = () => null;
  static failStart: Error | undefined;

  state = State.Stopped;
  stopped = false;
  private listeners: ((e: { oldState: State; newState: State }) => void)[] = [];

  constructor(
    public readonly id: string,
    public readonly name: string,
    public readonly serverOptions: { command: string; args: string[] },
    public readonly clientOptions: {
      middleware?: { executeCommand?: (command: string, args: unknown[], next: (c: string, a: unknown[]) => unknown) => unknown };
      documentSelector?: unknown[];
      synchronize?: unknown;
    },
  ) {
    LanguageClient.instances.push(this);
  }

  onDidChangeState(listener: (e: { oldState: State; newState: State }) => void): { dispose(): void } {
    this.listeners.push(listener);
    return { dispose: () => undefined };
  }

  private setState(newState: State): void {
    const oldState = this.state;
    this.state = newState;
    this.listeners.forEach((l) => l({ oldState, newState }));
  }

  async start(): Promise<void> {
    if (LanguageClient.failStart) {
      throw LanguageClient.failStart;
    }
    this.setState(State.Running);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.setState(State.Stopped);
  }

  async dispose(): Promise<void> {
    return undefined;
  }

  async sendRequest(type: { method: string }, params: unknown): Promise<unknown> {
    return LanguageClient.handler(type.method, params);
  }

  /** Notifications the extension sent: (method, params). */
  notifications: { method: string; params: unknown }[] = [];
  /** Features registered before start. */
  features: unknown[] = [];
  /** Handlers of what the server sends: requests and notifications by method, progress by token. */
  requestHandlers = new Map<string, (params: unknown) => unknown>();
  notificationHandlers = new Map<string, (params: unknown) => void>();
  progressHandlers = new Map<string | number, (value: unknown) => void>();

  async sendNotification(type: string | { method: string }, params: unknown): Promise<void> {
    this.notifications.push({ method: typeof type === 'string' ? type : type.method, params });
  }

  registerFeature(feature: unknown): void {
    this.features.push(feature);
  }

  onRequest(type: { method: string }, handler: (params: unknown) => unknown): { dispose(): void } {
    this.requestHandlers.set(type.method, handler);
    return { dispose: () => this.requestHandlers.delete(type.method) };
  }

  onNotification(method: string, handler: (params: unknown) => void): { dispose(): void } {
    this.notificationHandlers.set(method, handler);
    return { dispose: () => this.notificationHandlers.delete(method) };
  }

  onProgress(_type: unknown, token: string | number, handler: (value: unknown) => void): { dispose(): void } {
    this.progressHandlers.set(token, handler);
    return { dispose: () => this.progressHandlers.delete(token) };
  }
}
