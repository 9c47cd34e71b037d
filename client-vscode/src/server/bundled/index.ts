/**
 * The server the extension brings (docs/install.md): on first start, or after the
 * extension was updated, its environment is made from the bundled wheels under a
 * progress notification; later starts reuse it. Only used when `karyi.server.command`
 * is left at its default and the extension carries a bundle (a .vsix from `make vsix`).
 */
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { ServerCommand } from '../config';
import { createEnv, readBundle, readyEnv, run } from './environment';
import { type Candidate, choosePython, parseProbe, PROBE_CODE, pathCandidates, pythonNames } from './python';

export type BundledServer = { ok: true; command: ServerCommand } | { ok: false; message: string } | undefined;

/** True for a regular file this process may execute. */
export function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

interface PythonExtensionApi {
  ready?: Promise<void>;
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string };
    resolveEnvironment(env: { path: string } | string): Promise<{ executable: { uri?: vscode.Uri } } | undefined>;
  };
}

/** The interpreter the Python extension has chosen for the first folder, when it is installed. */
async function fromPythonExtension(output: vscode.OutputChannel): Promise<Candidate | undefined> {
  const ext = vscode.extensions.getExtension<PythonExtensionApi>('ms-python.python');
  if (!ext) return undefined;
  try {
    const api = await ext.activate();
    await api?.ready;
    const envs = api?.environments;
    if (!envs) return undefined;
    const active = envs.getActiveEnvironmentPath(vscode.workspace.workspaceFolders?.[0]?.uri);
    const file = (await envs.resolveEnvironment(active))?.executable.uri?.fsPath;
    return file ? { command: file, source: 'the Python extension' } : undefined;
  } catch (err) {
    output.appendLine(`The Python extension gave no interpreter: ${String(err)}`);
    return undefined;
  }
}

async function probe(command: string) {
  try {
    return parseProbe(await run(command, ['-c', PROBE_CODE]));
  } catch {
    return undefined;
  }
}

/** The server command from the bundled environment, made first when needed; undefined without a bundle. */
export async function bundledServer(context: vscode.ExtensionContext, output: vscode.OutputChannel, args: string[]): Promise<BundledServer> {
  const bundle = readBundle(context.extensionPath);
  if (!bundle) return undefined;
  const storage = context.globalStorageUri.fsPath;
  const version = String(context.extension.packageJSON.version);
  const command = (python: string): BundledServer => ({ ok: true, command: { command: python, args: ['-m', 'karyi', ...args], source: 'the bundled environment' } });
  const ready = readyEnv(storage, version);
  if (ready) {
    output.appendLine(`Reusing the server environment set up ${ready.marker.createdAt} with Python ${ready.marker.pythonVersion}.`);
    return command(ready.python);
  }
  const supported = bundle.manifest.pythons;
  const extension = await fromPythonExtension(output);
  const onPath = pathCandidates(pythonNames(supported, process.platform), process.env.PATH ?? '', isExecutable);
  const choice = await choosePython(extension ? [extension, ...onPath] : onPath, supported, probe);
  if (!choice.ok) return choice;
  output.appendLine(`Setting up the server environment in ${storage} with Python ${choice.version} (${choice.executable}, from ${choice.source}).`);
  const title = 'Karyi: setting up the server';
  try {
    const python = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title }, (progress) =>
      createEnv({
        bundle,
        storage,
        extensionVersion: version,
        python: choice.executable,
        pythonVersion: choice.version,
        report: (message) => progress.report({ message }),
        log: (line) => output.appendLine(line),
      }),
    );
    output.appendLine('The server environment is ready.');
    return command(python);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return { ok: false, message: `Karyi: setting up the server with Python ${choice.version} failed: ${why}` };
  }
}
