/**
 * A key goes only to an endpoint the user chose. `codequorum.provider.baseUrl` and
 * `codequorum.provider.apiKeyEnv` can come from a workspace's `.vscode/settings.json` (a
 * cloned repository): when either does, the user is asked once per (endpoint, key variable)
 * before the server is asked to regenerate, and the answer is kept in the extension's global
 * state, never in the workspace. The server is then told the user confirmed the endpoint, so
 * it does not ask again (it asks by itself in editors without this check).
 */
import { plainMessage } from './safeText';

/** What `WorkspaceConfiguration.inspect` answers (the scopes this check reads). */
export interface Inspected<T> {
  defaultValue?: T;
  globalValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
  defaultLanguageValue?: T;
  globalLanguageValue?: T;
  workspaceLanguageValue?: T;
  workspaceFolderLanguageValue?: T;
}

/** The `codequorum` configuration section, as far as this check reads it. */
export interface ProviderConfiguration {
  get<T>(key: string, fallback: T): T;
  inspect<T>(key: string): Inspected<T> | undefined;
}

/** Where approvals are kept (the extension's global state). */
export interface ApprovalMemory {
  get<T>(key: string, fallback: T): T;
  update(key: string, value: unknown): Thenable<void>;
}

export type Ask = (message: string, ...choices: string[]) => Thenable<string | undefined>;

export const APPROVALS_KEY = 'codequorum.approvedEndpoints';
export const SEND = 'Send the Key';
export const DONT_SEND = "Don't Send";

/** The endpoint as approvals name it: scheme, host, port and path, no user, password or query. */
export function endpointIdentity(baseUrl: string): string {
  try {
    const url = new URL(baseUrl.trim());
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`.toLowerCase();
  } catch {
    return baseUrl.trim().split('?')[0].split('@').pop()!.replace(/\/+$/, '');
  }
}

/** True when the effective value of `key` is set by the workspace (or a folder) and differs from the user's. */
export function chosenByWorkspace(config: ProviderConfiguration, key: string): boolean {
  const i = config.inspect<unknown>(key);
  if (!i) {
    return false;
  }
  const workspace = [i.workspaceFolderLanguageValue, i.workspaceLanguageValue, i.workspaceFolderValue, i.workspaceValue].find(
    (v) => v !== undefined,
  );
  if (workspace === undefined) {
    return false;
  }
  const user = [i.globalLanguageValue, i.globalValue, i.defaultLanguageValue, i.defaultValue].find((v) => v !== undefined);
  return JSON.stringify(workspace) !== JSON.stringify(user);
}

/**
 * True when regenerating may send the key: no key would be sent, the user chose the
 * endpoint and variable (user settings or defaults), or approved them now or before.
 */
export async function confirmEndpoint(
  config: ProviderConfiguration,
  memory: ApprovalMemory,
  ask: Ask,
  env: Record<string, string | undefined> = process.env,
): Promise<boolean> {
  const baseUrl = config.get('provider.baseUrl', 'https://api.openai.com/v1');
  const keyEnv = config.get('provider.apiKeyEnv', 'OPENAI_API_KEY');
  if (!keyEnv || !env[keyEnv]) {
    return true;
  }
  if (!chosenByWorkspace(config, 'provider.baseUrl') && !chosenByWorkspace(config, 'provider.apiKeyEnv')) {
    return true;
  }
  const entry = `${endpointIdentity(baseUrl)} ${keyEnv}`;
  const approved = memory.get<string[]>(APPROVALS_KEY, []);
  if (approved.includes(entry)) {
    return true;
  }
  const answer = await ask(
    `This workspace's settings choose where codequorum sends requests: ${plainMessage(endpointIdentity(baseUrl), 200)}, with the API key in $${plainMessage(keyEnv, 100)}. Send the key there? (asked once per endpoint and variable)`,
    DONT_SEND, // the safe answer first: the one a bare Enter picks
    SEND,
  );
  if (answer !== SEND) {
    return false;
  }
  await memory.update(APPROVALS_KEY, [...approved, entry]);
  return true;
}
