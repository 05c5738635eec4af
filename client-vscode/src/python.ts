/** The Python extension's active environment, when that extension is installed. */
import { PythonExtension, PVSC_EXTENSION_ID } from '@vscode/python-extension';
import * as vscode from 'vscode';

async function pythonApi(): Promise<PythonExtension | undefined> {
  if (!vscode.extensions.getExtension(PVSC_EXTENSION_ID)) {
    return undefined;
  }
  try {
    return await PythonExtension.api();
  } catch {
    return undefined;
  }
}

/** Path of the active environment's python executable, or undefined. */
export async function activeEnvironmentPython(resource?: vscode.Uri): Promise<string | undefined> {
  const api = await pythonApi();
  if (!api) {
    return undefined;
  }
  const envPath = api.environments.getActiveEnvironmentPath(resource);
  const resolved = await api.environments.resolveEnvironment(envPath);
  return resolved?.executable.uri?.fsPath ?? (envPath.path || undefined);
}

/** Calls `listener` when the user picks another environment in the Python extension. */
export async function onActiveEnvironmentChange(listener: () => void): Promise<vscode.Disposable | undefined> {
  const api = await pythonApi();
  return api?.environments.onDidChangeActiveEnvironmentPath(() => listener());
}

/** The prefix (`sys.prefix`) of the active environment, or undefined. */
export async function activeEnvironmentPrefix(resource?: vscode.Uri): Promise<string | undefined> {
  const api = await pythonApi();
  if (!api) {
    return undefined;
  }
  const resolved = await api.environments.resolveEnvironment(api.environments.getActiveEnvironmentPath(resource));
  return resolved?.executable.sysPrefix || undefined;
}
