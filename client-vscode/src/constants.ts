/** Names shared across the extension: its own commands, the server's commands, schemes. */

/** Commands this extension contributes (what the user runs). */
export const Commands = {
  regenerate: 'codequorum.regenerateFunction',
  regenerateWithLanguageModel: 'codequorum.regenerateWithLanguageModel',
  compare: 'codequorum.compare',
  replace: 'codequorum.replaceWithVersion',
  clear: 'codequorum.clearVersions',
  showReport: 'codequorum.showReport',
  restart: 'codequorum.restartServer',
  showLog: 'codequorum.showLog',
} as const;

/** Commands the language server executes (workspace/executeCommand). */
export const ServerCommands = {
  analyze: 'codequorum.analyze',
  regenerate: 'codequorum.regenerate',
  addSamples: 'codequorum.addSamples',
  showSample: 'codequorum.showSample',
  clearSamples: 'codequorum.clearSamples',
} as const;

/** Scheme of the read-only documents that show one version of a function. */
export const SAMPLE_SCHEME = 'codequorum-sample';

/** Settings whose change needs a new server process (the others are sent to the running one). */
export const RESTART_SETTINGS = ['codequorum.interpreter', 'codequorum.server.command'] as const;

/** Languages the server understands (tree-sitter grammars it ships). */
export const LANGUAGES = [
  'python',
  'sql',
  'javascript',
  'typescript',
  'java',
  'go',
  'rust',
  'c',
  'cpp',
] as const;
