/**
 * `codequorum/relay`: the server's watch asks this editor for versions of a function that
 * arrived in one edit (provider.kind "client"); the versions then come from a VS Code language
 * model, as with "Regenerate with a VS Code Language Model". The server is the only sender,
 * but its message is checked like any input.
 */
import { isObject } from './json';
import { parseMessages, type FunctionTarget, type PromptMessage } from './serverApi';

export interface Relayed {
  target: FunctionTarget;
  messages: PromptMessage[];
  count: number;
}

/** The function, the prompt and how many versions a relay asks for; undefined when it is not one. */
export function relayTarget(params: unknown): Relayed | undefined {
  if (!isObject(params) || typeof params.uri !== 'string' || typeof params.qualifiedName !== 'string') {
    return undefined;
  }
  const messages = parseMessages(params.messages);
  if (!messages) {
    return undefined;
  }
  const n = typeof params.n === 'number' && Number.isFinite(params.n) ? Math.floor(params.n) : 5;
  return { target: { uri: params.uri, qualifiedName: params.qualifiedName }, messages, count: Math.max(1, Math.min(50, n)) };
}
