/** Names shared across the extension: its own commands, the server's commands, schemes. */
import { ServerCommands } from './generated/commands';

/** Commands this extension contributes (what the user runs). */
export const Commands = {
  regenerate: 'codequorum.regenerateFunction',
  regenerateWithLanguageModel: 'codequorum.regenerateWithLanguageModel',
  compare: 'codequorum.compareVersions',
  replace: 'codequorum.replaceWithVersion',
  clear: 'codequorum.clearVersions',
  showReport: 'codequorum.showReport',
  runVersions: 'codequorum.runVersions',
  importVersions: 'codequorum.importVersions',
  restart: 'codequorum.restartServer',
  showLog: 'codequorum.showLog',
  stopJob: 'codequorum.stopJob',
} as const;

/** Commands the language server executes (workspace/executeCommand): generated from shared/commands.schema.json. */
export { ServerCommands };

/**
 * Server commands that the server's code lenses run, and the extension command that serves
 * each instead (so a click opens a view rather than returning JSON nobody shows).
 */
export const LENS_COMMANDS: Record<string, string> = {
  [ServerCommands.analyze]: Commands.showReport,
  [ServerCommands.compare]: Commands.compare,
  [ServerCommands.regenerate]: Commands.regenerate,
};

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
