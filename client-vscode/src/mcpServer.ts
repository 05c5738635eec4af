/**
 * Publishes `codequorum mcp` to the editor's agents through VS Code's MCP server definition
 * API (VS Code 1.101 and later; older versions lack it and get nothing). The server runs with
 * the same interpreter the language server runs with, in the first workspace folder, and
 * never in an untrusted workspace: there the provider offers no server until trust is given.
 */
import * as vscode from 'vscode';
import { SERVER_ENV, type ServerCommandLine } from './interpreter';

/** The provider's id, as `contributes.mcpServerDefinitionProviders` in package.json declares it. */
export const MCP_PROVIDER_ID = 'codequorum.mcp';
export const MCP_SERVER_LABEL = 'codequorum';

/** What VS Code's `McpStdioServerDefinition` holds (the parts set here). */
export interface McpStdioDefinition {
  readonly label: string;
  readonly command: string;
  readonly args: readonly string[];
  cwd?: vscode.Uri;
}

type DefinitionClass = new (
  label: string,
  command: string,
  args?: string[],
  env?: Record<string, string | number | null>,
  version?: string,
) => McpStdioDefinition;

interface McpProvider {
  onDidChangeMcpServerDefinitions: vscode.Event<void>;
  provideMcpServerDefinitions(): Promise<McpStdioDefinition[]>;
  resolveMcpServerDefinition(server: McpStdioDefinition): McpStdioDefinition | undefined;
}

/** The MCP part of the `vscode` module, when this VS Code has it. */
export interface McpApi {
  register(id: string, provider: McpProvider): vscode.Disposable;
  Definition: DefinitionClass;
}

/** The API from the `vscode` module (or a stand-in), or undefined on a VS Code without it. */
export function mcpApi(host: { lm?: unknown; McpStdioServerDefinition?: unknown }): McpApi | undefined {
  const lm = host.lm as { registerMcpServerDefinitionProvider?: unknown } | undefined;
  const register = lm?.registerMcpServerDefinitionProvider;
  const Definition = host.McpStdioServerDefinition;
  if (typeof register !== 'function' || typeof Definition !== 'function') {
    return undefined;
  }
  return {
    register: (id, provider) => register.call(lm, id, provider) as vscode.Disposable,
    Definition: Definition as DefinitionClass,
  };
}

/**
 * The MCP server's command line from the language server's: the part before the `lsp`
 * subcommand, then `mcp` (`python -m codequorum lsp` -> `python -m codequorum mcp`); undefined
 * when the line has no `lsp` subcommand to swap.
 */
export function mcpCommandLine(line: ServerCommandLine): ServerCommandLine | undefined {
  const at = line.args.indexOf('lsp');
  if (at < 0) {
    return undefined;
  }
  return { command: line.command, args: [...line.args.slice(0, at), 'mcp'] };
}

/** `codequorum.provider.*` settings of the user's own (never a workspace's): endpoint flags. */
export interface UserProvider {
  baseUrl?: string;
  model?: string;
  apiKeyEnv?: string;
}

export function endpointFlags(user: UserProvider): string[] {
  const flags: string[] = [];
  const add = (flag: string, value: string | undefined, emptyAllowed = false): void => {
    if (typeof value === 'string' && (value.trim() || emptyAllowed)) {
      flags.push(flag, value.trim());
    }
  };
  add('--base-url', user.baseUrl);
  add('--model', user.model);
  add('--api-key-env', user.apiKeyEnv, true);
  return flags;
}

export interface McpServerDeps {
  isTrusted(): boolean;
  onDidGrantTrust: vscode.Event<void>;
  /** The command line the language server was started with last (undefined before it started). */
  serverCommandLine(): ServerCommandLine | undefined;
  workspaceFolder(): string | undefined;
  userProvider(): UserProvider;
  version: string;
  log(line: string): void;
}

/**
 * Registers the provider; returns its disposables and `changed()`, to call when the
 * language server's command line or the user's endpoint settings change. Undefined (and a
 * log line) when this VS Code has no MCP API.
 */
export function publishMcpServer(
  api: McpApi | undefined,
  deps: McpServerDeps,
): { disposables: vscode.Disposable[]; changed(): void } | undefined {
  if (!api) {
    deps.log('this VS Code has no MCP server API (1.101 or later): `codequorum mcp` is not offered to agents here; docs/agents.md shows how to add it by hand');
    return undefined;
  }
  const emitter = new vscode.EventEmitter<void>();
  const provider: McpProvider = {
    onDidChangeMcpServerDefinitions: emitter.event,
    provideMcpServerDefinitions: async () => {
      const definition = definitionFor(api, deps);
      return definition ? [definition] : [];
    },
    resolveMcpServerDefinition: (server) => (deps.isTrusted() ? server : undefined),
  };
  const registration = api.register(MCP_PROVIDER_ID, provider);
  const trust = deps.onDidGrantTrust(() => emitter.fire());
  return { disposables: [registration, trust, emitter], changed: () => emitter.fire() };
}

function definitionFor(api: McpApi, deps: McpServerDeps): McpStdioDefinition | undefined {
  if (!deps.isTrusted()) {
    return undefined;
  }
  const folder = deps.workspaceFolder();
  const server = deps.serverCommandLine();
  const line = server && mcpCommandLine(server);
  if (!folder || !line) {
    if (server && !line) {
      deps.log(`codequorum.server.command has no "lsp" subcommand to start "mcp" with: ${[server.command, ...server.args].join(' ')}`);
    }
    return undefined;
  }
  const args = [...line.args, folder, ...endpointFlags(deps.userProvider())];
  const definition = new api.Definition(MCP_SERVER_LABEL, line.command, args, { ...SERVER_ENV }, deps.version);
  definition.cwd = vscode.Uri.file(folder);
  return definition;
}
