/**
 * New versions of a function from a VS Code language model (vscode.lm): one request per
 * version, the code taken from each answer's fenced block. Never runs the code.
 */
import { extractCode } from './extractCode';
import { errorText } from './json';
import type { Cancellation, NewSample, PromptMessage } from './serverApi';

export const LM_PROVIDER = 'vscode-lm';

/** The parts of vscode.LanguageModelChat used here. */
export interface ChatModel {
  id: string;
  name: string;
  vendor: string;
  family: string;
  sendRequest(
    messages: unknown[],
    options: { justification?: string },
    token: Cancellation,
  ): Thenable<{ text: AsyncIterable<string> }>;
}

export interface FunctionSource {
  language: string;
  qualifiedName: string;
  code: string;
}

/** The prompt for one new version of `fn`. */
export function buildPrompt(fn: FunctionSource): PromptMessage[] {
  const name = fn.qualifiedName.split('.').pop() || fn.qualifiedName;
  return [
    {
      role: 'user',
      content:
        `Write the ${fn.language} function \`${name}\` again from scratch: it must do the same job as the version below, ` +
        'with the same name and parameters. Reply with the complete function only, in one fenced code block.\n\n' +
        `\`\`\`${fn.language}\n${fn.code.replace(/\s+$/, '')}\n\`\`\``,
    },
  ];
}

export interface SamplingResult {
  samples: NewSample[];
  cancelled: boolean;
  /** Answers without code, and request errors, in words. */
  problems: string[];
}

export interface SamplingOptions {
  count: number;
  functionName: string;
  token: Cancellation;
  /** Turns our messages into vscode.LanguageModelChatMessage objects. */
  toChatMessage(message: PromptMessage): unknown;
  /** Called before request `index` (0-based) is sent. */
  onRequest?(index: number): void;
  justification?: string;
}

function isCancellation(err: unknown): boolean {
  return err instanceof Error && (err.name === 'Canceled' || err.message === 'Canceled');
}

/**
 * Sends `count` requests one after the other. Stops at cancellation, keeping the versions
 * already complete; a request that fails with a permission error stops the run (the user
 * declined), other failures are noted and the next request goes on.
 */
export async function sampleVersions(model: ChatModel, messages: PromptMessage[], options: SamplingOptions): Promise<SamplingResult> {
  const samples: NewSample[] = [];
  const problems: string[] = [];
  const chat = messages.map((m) => options.toChatMessage(m));
  for (let i = 0; i < options.count; i++) {
    if (options.token.isCancellationRequested) {
      return { samples, cancelled: true, problems };
    }
    options.onRequest?.(i);
    if (options.token.isCancellationRequested) {
      return { samples, cancelled: true, problems };
    }
    let answer = '';
    try {
      const response = await model.sendRequest(chat, { justification: options.justification }, options.token);
      for await (const fragment of response.text) {
        if (options.token.isCancellationRequested) {
          return { samples, cancelled: true, problems };
        }
        answer += fragment;
      }
    } catch (err) {
      if (options.token.isCancellationRequested || isCancellation(err)) {
        return { samples, cancelled: true, problems };
      }
      const code = (err as { code?: unknown }).code;
      const text = errorText(err);
      problems.push(`request ${i + 1}: ${text}`);
      if (code === 'NoPermissions' || code === 'Blocked' || code === 'NotFound') {
        return { samples, cancelled: false, problems };
      }
      continue;
    }
    const code = extractCode(answer, options.functionName);
    if (code === undefined) {
      problems.push(`request ${i + 1}: the answer held no code`);
      continue;
    }
    samples.push({ code, provider: LM_PROVIDER, model: model.id });
  }
  return { samples, cancelled: false, problems };
}
