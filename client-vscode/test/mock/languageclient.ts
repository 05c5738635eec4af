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
}
