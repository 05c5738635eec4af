/**
 * Loaded by mocha before the tests: makes `require('vscode')` (and the language client,
 * which extends VS Code's classes) return the mock modules.
 */
import Module = require('module');
import * as path from 'path';

const mocks: Record<string, string> = {
  vscode: path.join(__dirname, 'mock', 'vscode.js'),
  'vscode-languageclient/node': path.join(__dirname, 'mock', 'languageclient.js'),
};
type Resolver = (request: string, ...rest: unknown[]) => string;
const moduleWithResolver = Module as unknown as { _resolveFilename: Resolver };
const original = moduleWithResolver._resolveFilename;
moduleWithResolver._resolveFilename = function (request: string, ...rest: unknown[]): string {
  if (request in mocks) {
    return mocks[request];
  }
  return original.call(this, request, ...rest);
};
