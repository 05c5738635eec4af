/** Fakes shared by the tests: a scripted server, an editor, a command context. */
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { CommandContext } from '../src/commands/context';
import type { LspRange } from '../src/report';
import { ServerCommands } from '../src/constants';
import { ServerApi, type Cancellation } from '../src/serverApi';
import { mock } from './mock/vscode';

export function fixture(name: string): Record<string, unknown> {
  // Tests run from out/test; the fixtures stay in test/fixtures.
  const file = path.join(__dirname, '..', '..', 'test', 'fixtures', name);
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
}

export interface ServerCall {
  command: string;
  args: unknown[];
  token?: Cancellation;
}

/**
 * A whole result of each command that stores, shows or runs versions, as the server writes it
 * (every field, null included): a test's answer names only the fields it is about.
 */
const WHOLE_RESULTS: Record<string, Record<string, unknown>> = {
  [ServerCommands.analyze]: {
    uri: '', qualifiedName: '', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, stored: 0,
    compared: '0 versions', currentIndex: null, consensus: null, mostDifferent: null, fastest: null, stable: null,
    stability: null, versions: [], message: null, report: null, evidence: null,
  },
  [ServerCommands.regenerate]: {
    uri: '', qualifiedName: '', status: 'ok', requested: 0, accepted: 0, stored: 0, rejected: [], errors: [],
    message: null, n: null, language: null, messages: null,
  },
  [ServerCommands.addVersions]: { uri: '', qualifiedName: '', added: 0, total: 0, path: null },
  [ServerCommands.importVersionFile]: { uri: '', qualifiedName: '', added: 0, total: 0, path: null },
  [ServerCommands.deleteVersions]: { uri: '', qualifiedName: null, removed: 0 },
  [ServerCommands.showVersion]: {
    uri: '', qualifiedName: '', index: 0, version: 1, label: 'v1', origin: 'relayed', provider: null, model: null,
    language: 'python', code: '', indented: '',
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, replacement: '',
  },
  [ServerCommands.runDynamic]: { uri: '', qualifiedName: '', started: false, refused: false, message: null, token: null },
};

/** A language server that answers each command from a table (a value or a function of the arguments). */
export class FakeServer {
  readonly calls: ServerCall[] = [];
  constructor(public answers: Record<string, unknown>) {}

  readonly api = new ServerApi(async (command, args, token) => {
    this.calls.push({ command, args, token });
    const answer = this.answers[command];
    if (answer instanceof Error) {
      throw answer;
    }
    const value: unknown = typeof answer === 'function' ? await (answer as (a: unknown[]) => unknown)(args) : answer;
    const whole = WHOLE_RESULTS[command];
    return whole && typeof value === 'object' && value !== null ? { ...whole, ...value } : value;
  });

  callsOf(command: string): ServerCall[] {
    return this.calls.filter((c) => c.command === command);
  }
}

/** A document whose text is `lines`, open in the active editor with the cursor at `cursor`. */
export function openEditor(uri: string, lines: string[], cursor: { line: number; character: number }, languageId = 'python'): void {
  const document = {
    uri: vscode.Uri.parse(uri),
    languageId,
    getText(range?: vscode.Range): string {
      return range ? textOf(lines, range) : lines.join('\n');
    },
  };
  const active = new vscode.Position(cursor.line, cursor.character);
  mock.state.activeTextEditor = { document, selection: new vscode.Selection(active, active) };
}

export function textOf(lines: string[], range: LspRange): string {
  const out: string[] = [];
  for (let l = range.start.line; l <= range.end.line; l++) {
    const line = lines[l] ?? '';
    const from = l === range.start.line ? range.start.character : 0;
    const to = l === range.end.line ? range.end.character : line.length;
    out.push(line.slice(from, to));
  }
  return out.join('\n');
}

export function makeContext(server: FakeServer | undefined, lines: string[] = [], settings: Record<string, unknown> = {}) {
  const logged: string[] = [];
  let refreshes = 0;
  let endpointQuestions = 0;
  const ctx: CommandContext = {
    api: () => server?.api,
    log: (line) => logged.push(line),
    refreshStatus: () => {
      refreshes++;
    },
    documentText: async (_uri, range) => textOf(lines, range),
    languageOf: () => 'python',
    setting: <T>(key: string, fallback: T): T => (key in settings ? (settings[key] as T) : fallback),
    trusted: () => mock.state.trusted,
    confirmEndpoint: async () => {
      endpointQuestions++;
      return mock.state.endpointApproved;
    },
  };
  return { ctx, logged, refreshes: () => refreshes, endpointQuestions: () => endpointQuestions };
}

/** The lines of calc.py in the analyze-add.json fixture (function `add` at lines 4..8, indented). */
export const CALC_LINES = [
  'import math',
  '',
  '',
  'class Calc:',
  '    def add(a, b):',
  '        total = 0',
  '        for v in (a, b):',
  '            total += v',
  '        return total',
  '',
];
