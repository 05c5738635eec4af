/**
 * Typed calls to the language server's commands (workspace/executeCommand). The names, the
 * types of every command's argument object and result, and the check of each result are
 * generated from shared/commands.schema.json (src/generated/commands.ts); every command takes
 * one object naming the function, `{uri, position}` and/or `{uri, qualifiedName}` (what the
 * server's code lenses pass), plus the command's own fields. `ServerApi.call` runs any
 * command; `analyze` and `regenerate` add what their answers mean to the extension.
 */
import { ResultChecks, ServerCommands, type CommandTypes, type ServerCommand } from './generated/commands';
import { isObject } from './json';
import { parseAnalyzeResult, type FunctionReport, type LspPosition } from './report';

/** Abort signal for a request: the server is told to stop when it fires. */
export interface Cancellation {
  isCancellationRequested: boolean;
  onCancellationRequested(listener: () => void): { dispose(): unknown };
}

export type ExecuteCommand = (command: string, args: unknown[], token?: Cancellation) => Promise<unknown>;

/** Where a function is: a document and a position inside the function, or its qualified name. */
export interface FunctionTarget {
  uri: string;
  position?: LspPosition;
  qualifiedName?: string;
}

export interface NewSample {
  code: string;
  provider: string;
  model: string;
}

export interface PromptMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface RegenerateAnswer {
  /** Versions the server generated and stored itself. */
  stored: number;
  /** ok, failed, cancelled, or relay (the client is to generate). */
  status: string | undefined;
  /** How many versions the server would ask for (its provider.versions). */
  count: number | undefined;
  /** With provider.kind "client": the messages the client should send to its model. */
  messages: PromptMessage[] | undefined;
  message: string | undefined;
}

/** The argument object naming a function, with a command's own fields. */
export function functionArgument<T extends object>(target: FunctionTarget, extra: T = {} as T): FunctionTarget & T {
  const arg: FunctionTarget = { uri: target.uri };
  if (target.position) {
    arg.position = target.position;
  }
  if (target.qualifiedName) {
    arg.qualifiedName = target.qualifiedName;
  }
  return { ...arg, ...extra };
}

export function parseMessages(v: unknown): PromptMessage[] | undefined {
  if (!Array.isArray(v)) {
    return undefined;
  }
  const out: PromptMessage[] = [];
  for (const m of v) {
    if (isObject(m) && typeof m.content === 'string') {
      const role = m.role === 'system' || m.role === 'assistant' ? m.role : 'user';
      out.push({ role, content: m.content });
    }
  }
  return out.length ? out : undefined;
}

/** The server's answer for a place with no function, or a document it does not have. */
export function isNoFunctionError(err: unknown): boolean {
  const message = err instanceof Error ? err.message : typeof err === 'string' ? err : '';
  return /: no function |is not open|does not know the language/.test(message);
}

/** The server answered a command with something that is not the command's result. */
export class BadAnswerError extends Error {
  constructor(readonly command: ServerCommand) {
    super(`the language server's answer to ${command} does not have the expected fields`);
  }
}

export class ServerApi {
  constructor(private readonly execute: ExecuteCommand) {}

  /** Runs one command with its typed argument object; the answer, checked, has the command's result type. */
  async call<C extends ServerCommand>(
    command: C,
    args: CommandTypes[C]['args'],
    token?: Cancellation,
  ): Promise<CommandTypes[C]['result']> {
    const raw = await this.execute(command, [args], token);
    const fits: (v: unknown) => v is CommandTypes[C]['result'] = ResultChecks[command];
    if (!fits(raw)) {
      throw new BadAnswerError(command);
    }
    return raw;
  }

  /**
   * The report of the function at `target`; undefined when there is no function there (the
   * server answers null at a position outside every function) or the server does not have
   * the document. `matrices` asks for the pair matrices too.
   */
  async analyze(target: FunctionTarget, options: { matrices?: boolean } = {}, token?: Cancellation): Promise<FunctionReport | undefined> {
    const extra = options.matrices ? { matrices: true } : {};
    let raw: unknown;
    try {
      raw = await this.call(ServerCommands.analyze, functionArgument(target, extra), token);
    } catch (err) {
      if (isNoFunctionError(err)) {
        return undefined;
      }
      throw err;
    }
    return raw === null ? undefined : parseAnalyzeResult(raw);
  }

  /** `endpointConfirmed`: the user chose or approved the endpoint and key variable (the server does not ask again). */
  async regenerate(
    target: FunctionTarget,
    count: number | undefined,
    token?: Cancellation,
    options: { endpointConfirmed?: boolean } = {},
  ): Promise<RegenerateAnswer> {
    const extra: { n?: number; endpointConfirmed?: boolean } = count !== undefined ? { n: count } : {};
    if (options.endpointConfirmed) {
      extra.endpointConfirmed = true;
    }
    const answer = await this.call(ServerCommands.regenerate, functionArgument(target, extra), token);
    return {
      stored: answer.stored,
      status: answer.status,
      count: answer.n ?? undefined,
      messages: answer.status === 'relay' || answer.messages ? parseMessages(answer.messages) : undefined,
      message: answer.message ?? undefined,
    };
  }
}
