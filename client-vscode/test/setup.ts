/**
 * Loaded by mocha before the tests: makes `require('vscode')` return the mock module.
 */
import Module = require('module');
import * as path from 'path';

const mockPath = path.join(__dirname, 'mock', 'vscode.js');
type Resolver = (request: string, ...rest: unknown[]) => string;
const moduleWithResolver = Module as unknown as { _resolveFilename: Resolver };
const original = moduleWithResolver._resolveFilename;
moduleWithResolver._resolveFilename = function (request: string, ...rest: unknown[]): string {
  if (request === 'vscode') {
    return mockPath;
  }
  return original.call(this, request, ...rest);
};
