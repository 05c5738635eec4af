import * as assert from 'assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import type { ServerCommandLine } from '../src/interpreter';
import {
  MCP_PROVIDER_ID,
  endpointFlags,
  mcpApi,
  mcpCommandLine,
  publishMcpServer,
  type McpServerDeps,
  type McpStdioDefinition,
  type UserProvider,
} from '../src/mcpServer';
import { EventEmitter } from './mock/vscode';

/** VS Code 1.101's `McpStdioServerDefinition`: positional arguments, `cwd` set after. */
class Definition implements McpStdioDefinition {
  cwd?: McpStdioDefinition['cwd'];
  constructor(
    readonly label: string,
    readonly command: string,
    readonly args: string[] = [],
    readonly env: Record<string, string | number | null> = {},
    readonly version?: string,
  ) {}
}

interface Registered {
  id: string;
  provider: {
    onDidChangeMcpServerDefinitions: (listener: () => void) => unknown;
    provideMcpServerDefinitions(): Promise<McpStdioDefinition[]>;
    resolveMcpServerDefinition(server: McpStdioDefinition): McpStdioDefinition | undefined;
  };
}

const PYTHON: ServerCommandLine = { command: '/home/me/.venv/bin/python', args: ['-m', 'codequorum', 'lsp'] };

function setup(overrides: Partial<McpServerDeps> = {}) {
  const registered: Registered[] = [];
  const trust = new EventEmitter<void>();
  const lines: string[] = [];
  const state = { trusted: true, line: PYTHON as ServerCommandLine | undefined, user: {} as UserProvider };
  const host = {
    lm: {
      registerMcpServerDefinitionProvider(id: string, provider: Registered['provider']) {
        registered.push({ id, provider });
        return { dispose: () => undefined };
      },
    },
    McpStdioServerDefinition: Definition,
  };
  const deps: McpServerDeps = {
    isTrusted: () => state.trusted,
    onDidGrantTrust: trust.event as unknown as McpServerDeps['onDidGrantTrust'],
    serverCommandLine: () => state.line,
    workspaceFolder: () => '/work/project',
    userProvider: () => state.user,
    version: '0.1.0',
    log: (line) => lines.push(line),
    ...overrides,
  };
  const published = publishMcpServer(mcpApi(host), deps);
  return { registered, trust, lines, state, published };
}

describe('codequorum mcp for the editor\'s agents', () => {
  it('declares the provider id in package.json, as VS Code requires before registering', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'));
    assert.deepEqual(pkg.contributes.mcpServerDefinitionProviders, [{ id: MCP_PROVIDER_ID, label: 'codequorum' }]);
  });

  it('offers nothing on a VS Code without the MCP API, and says so', () => {
    const lines: string[] = [];
    assert.equal(mcpApi({ lm: {} }), undefined);
    assert.equal(mcpApi({ lm: { registerMcpServerDefinitionProvider: () => undefined } }), undefined);
    assert.equal(mcpApi({}), undefined);
    const deps = { log: (line: string) => lines.push(line) } as unknown as McpServerDeps;
    assert.equal(publishMcpServer(undefined, deps), undefined);
    assert.match(lines[0], /no MCP server API \(1\.101 or later\)/);
  });

  it('starts `codequorum mcp` with the language server\'s interpreter in the workspace folder', async () => {
    const { registered } = setup();
    assert.equal(registered.length, 1);
    assert.equal(registered[0].id, MCP_PROVIDER_ID);
    const [definition] = (await registered[0].provider.provideMcpServerDefinitions()) as Definition[];
    assert.equal(definition.label, 'codequorum');
    assert.equal(definition.command, '/home/me/.venv/bin/python');
    assert.deepEqual(definition.args, ['-m', 'codequorum', 'mcp', '/work/project']);
    assert.deepEqual(definition.env, { PYTHONUNBUFFERED: '1', PYTHONSAFEPATH: '1' });
    assert.equal(definition.version, '0.1.0');
    assert.equal(definition.cwd?.fsPath, '/work/project');
    assert.equal(registered[0].provider.resolveMcpServerDefinition(definition), definition);
  });

  it('offers no server in an untrusted workspace, and offers it once trust is given', async () => {
    const { registered, trust, state } = setup();
    state.trusted = false;
    const provider = registered[0].provider;
    assert.deepEqual(await provider.provideMcpServerDefinitions(), []);
    const known = new Definition('codequorum', 'python', ['-m', 'codequorum', 'mcp']);
    assert.equal(provider.resolveMcpServerDefinition(known), undefined, 'an already listed server is not started');
    let changes = 0;
    provider.onDidChangeMcpServerDefinitions(() => changes++);
    state.trusted = true;
    trust.fire();
    assert.equal(changes, 1);
    assert.equal((await provider.provideMcpServerDefinitions()).length, 1);
  });

  it('waits for the language server\'s command line, and tells when it changes', async () => {
    const { registered, state, published } = setup();
    state.line = undefined;
    const provider = registered[0].provider;
    assert.deepEqual(await provider.provideMcpServerDefinitions(), []);
    let changes = 0;
    provider.onDidChangeMcpServerDefinitions(() => changes++);
    state.line = { command: '/opt/cq/bin/codequorum', args: ['lsp', '--log-level', 'DEBUG'] };
    published?.changed();
    assert.equal(changes, 1);
    const [definition] = await provider.provideMcpServerDefinitions();
    assert.equal(definition.command, '/opt/cq/bin/codequorum');
    assert.deepEqual(definition.args, ['mcp', '/work/project']);
  });

  it('offers nothing for a server command without an lsp subcommand, and logs why', async () => {
    const { registered, state, lines } = setup();
    state.line = { command: '/usr/bin/my-wrapper', args: ['--serve'] };
    assert.deepEqual(await registered[0].provider.provideMcpServerDefinitions(), []);
    assert.match(lines.join('\n'), /no "lsp" subcommand to start "mcp" with: \/usr\/bin\/my-wrapper --serve/);
  });

  it('passes the user\'s own endpoint settings as flags', async () => {
    const { registered, state } = setup();
    state.user = { baseUrl: ' http://localhost:11434/v1 ', model: 'qwen2.5-coder', apiKeyEnv: '' };
    const [definition] = await registered[0].provider.provideMcpServerDefinitions();
    assert.deepEqual(definition.args, [
      '-m', 'codequorum', 'mcp', '/work/project',
      '--base-url', 'http://localhost:11434/v1', '--model', 'qwen2.5-coder', '--api-key-env', '',
    ]);
  });

  it('swaps only the lsp subcommand', () => {
    assert.deepEqual(mcpCommandLine(PYTHON), { command: PYTHON.command, args: ['-m', 'codequorum', 'mcp'] });
    assert.equal(mcpCommandLine({ command: 'x', args: [] }), undefined);
    assert.deepEqual(endpointFlags({}), []);
    assert.deepEqual(endpointFlags({ baseUrl: '  ', model: 'm' }), ['--model', 'm']);
  });
});
