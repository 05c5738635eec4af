/** Read-only documents (`codequorum-sample:` scheme) that show one version of a function. */
import * as vscode from 'vscode';
import { SAMPLE_SCHEME } from './constants';
import { errorText } from './json';
import type { FunctionTarget } from './serverApi';

const EXTENSIONS: Record<string, string> = {
  python: 'py',
  javascript: 'js',
  typescript: 'ts',
  java: 'java',
  go: 'go',
  rust: 'rs',
  c: 'c',
  cpp: 'cpp',
  sql: 'sql',
};

/** Which version a sample document shows: an index in the server's set, or the editor's current code. */
export type VersionRef = number | 'current';

export interface SampleRef {
  target: FunctionTarget;
  version: VersionRef;
}

/** `codequorum-sample:/<name> (<label>).<ext>?<json>`: the path gives the tab title and the language. */
export function sampleUri(ref: SampleRef, label: string, language: string): vscode.Uri {
  const name = (ref.target.qualifiedName || 'function').replace(/[/\\?#]/g, '_');
  const ext = EXTENSIONS[language] ?? 'txt';
  const query = JSON.stringify({ t: ref.target, v: ref.version });
  return vscode.Uri.from({ scheme: SAMPLE_SCHEME, path: `/${name} (${label}).${ext}`, query });
}

export function parseSampleUri(uri: vscode.Uri): SampleRef | undefined {
  try {
    const data = JSON.parse(uri.query) as { t?: FunctionTarget; v?: VersionRef };
    if (!data.t || typeof data.t.uri !== 'string') {
      return undefined;
    }
    if (data.v !== 'current' && typeof data.v !== 'number') {
      return undefined;
    }
    return { target: data.t, version: data.v };
  } catch {
    return undefined;
  }
}

export class SampleContentProvider implements vscode.TextDocumentContentProvider {
  constructor(private readonly fetch: (ref: SampleRef) => Promise<string>) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const ref = parseSampleUri(uri);
    if (!ref) {
      return '';
    }
    try {
      return await this.fetch(ref);
    } catch (err) {
      return `# codequorum: this version is not available (${errorText(err)})\n`;
    }
  }
}
