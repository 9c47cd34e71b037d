/**
 * The steps of starting the server (index.ts `doStart` runs them in order): find its
 * command, the process's options (the API key in its environment), the language
 * client's options (initialization, error handling, the masked documents' changes,
 * the settings it pulls), then, once it runs, whether it is a Karyi new enough.
 */
import * as os from 'node:os';
import * as vscode from 'vscode';
import { ErrorAction, CloseAction, type LanguageClientOptions, type ServerOptions, TransportKind } from 'vscode-languageclient/node';
import { bundledServer, isExecutable } from './bundled';
import { compareVersions, isDefaultCommand, MIN_SERVER_VERSION, resolveServerCommand, type ServerCommand, serverSettings } from './config';
import type { Secrets } from './secrets';
import { isMasked } from './syncMask';

/** The server's command: the extension's own environment (docs/install.md) unless the
 * setting names a server; a string is why there is none. */
export async function findCommand(
  context: vscode.ExtensionContext,
  output: vscode.OutputChannel,
  cfg: vscode.WorkspaceConfiguration,
  folders: string[],
): Promise<ServerCommand | string> {
  const setting = cfg.get<string>('server.command', 'karyi');
  const args = cfg.get<string[]>('server.args', ['lsp', '--stdio']);
  const bundled = isDefaultCommand(setting) ? await bundledServer(context, output, args) : undefined;
  if (bundled && !bundled.ok) return bundled.message;
  const resolved =
    bundled?.command ??
    resolveServerCommand({ setting, args, extensionPath: context.extensionPath, workspaceFolders: folders, home: os.homedir(), pathEnv: process.env.PATH ?? '', isExecutable });
  return (
    resolved ??
    `Karyi: the server "${cfg.get('server.command') || 'karyi'}" was not found. ` +
      'Install the Karyi extension built for your platform (it brings its server), or `pipx install` the wheel of `make dist`, or set `karyi.server.command` to its path (docs/install.md).'
  );
}

/** The server process: its command in the first folder, `karyi.server.env` and the API key in its environment. */
export async function serverOptions(resolved: ServerCommand, cfg: vscode.WorkspaceConfiguration, folders: string[], secrets: Secrets): Promise<ServerOptions> {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), ...cfg.get<Record<string, string>>('server.env', {}) };
  const key = await secrets.apiKey();
  if (key) env.KARYI_API_KEY = key;
  return {
    run: { command: resolved.command, args: resolved.args, transport: TransportKind.stdio, options: { env, cwd: folders[0] } },
    debug: { command: resolved.command, args: resolved.args, transport: TransportKind.stdio, options: { env, cwd: folders[0] } },
  };
}

/** The language client: `onClosed` runs when the connection closes (never restarted by the client itself). */
export function clientOptions(cfg: vscode.WorkspaceConfiguration, output: vscode.OutputChannel, onClosed: () => void): LanguageClientOptions {
  const inspect = (k: string) => cfg.inspect(k);
  return {
    documentSelector: [{ scheme: 'file' }],
    outputChannel: output,
    initializationOptions: { karyi: { ui: true, diagnostics: true, navigation: true }, settings: serverSettings(inspect) },
    errorHandler: {
      error: () => ({ action: ErrorAction.Continue }),
      closed: () => {
        onClosed();
        return { action: CloseAction.DoNotRestart, handled: true };
      },
    },
    initializationFailedHandler: (error) => {
      output.appendLine(`initialize failed: ${String(error)}`);
      return false;
    },
    middleware: {
      // A document showing an edit still being written keeps its changes from the
      // server until the draft is out again (server/syncMask.ts, `resync`).
      didChange: (event, next) => (isMasked(event.document.uri.toString()) ? Promise.resolve() : next(event)),
      workspace: {
        configuration: (params) => {
          const fresh = vscode.workspace.getConfiguration('karyi');
          return params.items.map((item) => (item.section === 'karyi' ? serverSettings((k) => fresh.inspect(k)) : null));
        },
      },
    },
  };
}

/** Why the server that answered `initialize` will not do (not Karyi, or too old), or undefined. */
export function versionProblem(info: { name: string; version?: string } | undefined, command: string): string | undefined {
  const version = info?.version ?? '';
  if (info?.name === 'karyi' && compareVersions(version || '0', MIN_SERVER_VERSION) >= 0) return undefined;
  return `Karyi: the server at ${command} is ${info?.name ?? 'unknown'} ${version || '(no version)'}; this extension needs karyi ≥ ${MIN_SERVER_VERSION}. Update it (\`pipx upgrade karyi-agent\` or \`make install\`) or point \`karyi.server.command\` at a newer one.`;
}
