/**
 * The Karyi language server process: started with vscode-languageclient, restarted on
 * demand, its log in an output channel; custom notifications re-emitted as events.
 * A server that cannot start, is too old or dies gets a clear message with a fix.
 */
import * as os from 'node:os';
import * as vscode from 'vscode';
import {
  CloseAction,
  ErrorAction,
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
  State,
  TransportKind,
} from 'vscode-languageclient/node';
import { bundledServer, isExecutable } from './bundled';
import { compareVersions, isDefaultCommand, MIN_SERVER_VERSION, resolveServerCommand, serverSettings } from './config';
import { type DiagnosticsParams, editorDiagnostics } from './diagnostics';
import { Methods, type Results, type TaskRecord, type TerminalOutput, type TurnUpdate } from '../protocol';
import type { Secrets } from './secrets';
import { isMasked, unmask } from './syncMask';

export type ServerState = 'stopped' | 'starting' | 'running' | 'failed';

export class KaryiServer implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private stopping = false;
  private _state: ServerState = 'stopped';
  readonly output: vscode.OutputChannel;
  private readonly turnUpdates = new vscode.EventEmitter<TurnUpdate>();
  private readonly terminalOutputs = new vscode.EventEmitter<{ sessionId: string; data: string }>();
  private readonly states = new vscode.EventEmitter<{ state: ServerState; message?: string }>();
  readonly onTurnUpdate = this.turnUpdates.event;
  readonly onTerminalOutput = this.terminalOutputs.event;
  readonly onState = this.states.event;
  private readonly taskUpdates = new vscode.EventEmitter<TaskRecord>();
  /** `karyi/taskUpdate`: a background task's record, whole, on every change. */
  readonly onTaskUpdate = this.taskUpdates.event;
  serverVersion = '';

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly secrets: Secrets,
  ) {
    this.output = vscode.window.createOutputChannel('Karyi Server');
  }

  get state(): ServerState {
    return this._state;
  }

  get running(): boolean {
    return this._state === 'running';
  }

  private setState(state: ServerState, message?: string): void {
    this._state = state;
    this.states.fire({ state, message });
  }

  private starting: Promise<boolean> | undefined;

  /** Start the server (or wait for the start under way); on failure the user sees why and how to fix it. */
  start(): Promise<boolean> {
    if (this.client && !this.starting) return Promise.resolve(this.running);
    this.starting ??= this.doStart().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async doStart(): Promise<boolean> {
    this.setState('starting');
    const cfg = vscode.workspace.getConfiguration('karyi');
    const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
    const setting = cfg.get<string>('server.command', 'karyi');
    const args = cfg.get<string[]>('server.args', ['lsp', '--stdio']);
    // The extension's own environment (docs/install.md) unless the setting names a server.
    const bundled = isDefaultCommand(setting) ? await bundledServer(this.context, this.output, args) : undefined;
    if (bundled && !bundled.ok) return this.failed(bundled.message);
    const resolved =
      bundled?.command ??
      resolveServerCommand({ setting, args, extensionPath: this.context.extensionPath, workspaceFolders: folders, home: os.homedir(), pathEnv: process.env.PATH ?? '', isExecutable });
    if (!resolved) {
      const msg =
        `Karyi: the server "${cfg.get('server.command') || 'karyi'}" was not found. ` +
        'Install the Karyi extension built for your platform (it brings its server), or `pipx install` the wheel of `make dist`, or set `karyi.server.command` to its path (docs/install.md).';
      this.output.appendLine(msg);
      this.setState('failed', msg);
      void this.offerFix(msg);
      return false;
    }
    this.output.appendLine(`Starting ${resolved.command} ${resolved.args.join(' ')} (from ${resolved.source})`);
    const env: Record<string, string> = { ...(process.env as Record<string, string>), ...cfg.get<Record<string, string>>('server.env', {}) };
    const key = await this.secrets.apiKey();
    if (key) env.KARYI_API_KEY = key;
    const serverOptions: ServerOptions = {
      run: { command: resolved.command, args: resolved.args, transport: TransportKind.stdio, options: { env, cwd: folders[0] } },
      debug: { command: resolved.command, args: resolved.args, transport: TransportKind.stdio, options: { env, cwd: folders[0] } },
    };
    const inspect = (k: string) => cfg.inspect(k);
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file' }],
      outputChannel: this.output,
      initializationOptions: { karyi: { ui: true, diagnostics: true }, settings: serverSettings(inspect) },
      errorHandler: {
        error: () => ({ action: ErrorAction.Continue }),
        closed: () => {
          if (!this.stopping) this.crashed();
          return { action: CloseAction.DoNotRestart, handled: true };
        },
      },
      initializationFailedHandler: (error) => {
        this.output.appendLine(`initialize failed: ${String(error)}`);
        return false;
      },
      middleware: {
        // A document showing an edit still being written keeps its changes from the
        // server until the draft is out again (server/syncMask.ts, `resync`).
        didChange: (event, next) => (isMasked(event.document.uri.toString()) ? Promise.resolve() : next(event)),
        workspace: {
          configuration: (params, token, next) => {
            const fresh = vscode.workspace.getConfiguration('karyi');
            return params.items.map((item) =>
              item.section === 'karyi' ? serverSettings((k) => fresh.inspect(k)) : null,
            );
          },
        },
      },
    };
    const client = new LanguageClient('karyi', 'Karyi', serverOptions, clientOptions);
    this.client = client;
    // The server's workspace/executeCommand tasks are this extension's own commands
    // (same ids, shown in the chat view): keep the client from registering them too.
    const exec = client.getFeature('workspace/executeCommand') as unknown as { initialize(): void; register(): void };
    exec.initialize = () => undefined;
    exec.register = () => undefined;
    client.onNotification(Methods.turnUpdate, (u: TurnUpdate) => this.turnUpdates.fire(u));
    client.onRequest(Methods.diagnostics, (p: DiagnosticsParams) => editorDiagnostics(p));
    client.onNotification(Methods.taskUpdate, (t: TaskRecord) => this.taskUpdates.fire(t));
    client.onNotification(Methods.terminalOutput, (p: TerminalOutput) => this.terminalOutputs.fire(p));
    try {
      await client.start();
    } catch (err) {
      this.client = undefined;
      const why = err instanceof Error ? err.message : String(err);
      const msg = `Karyi: the server (${resolved.command}) could not start: ${why}. Run \`make install\` in the Karyi repository or set \`karyi.server.command\`; the server log has details.`;
      this.output.appendLine(msg);
      this.setState('failed', msg);
      void this.offerFix(msg);
      return false;
    }
    const info = client.initializeResult?.serverInfo;
    this.serverVersion = info?.version ?? '';
    if (info?.name !== 'karyi' || compareVersions(this.serverVersion || '0', MIN_SERVER_VERSION) < 0) {
      const msg = `Karyi: the server at ${resolved.command} is ${info?.name ?? 'unknown'} ${this.serverVersion || '(no version)'}; this extension needs karyi ≥ ${MIN_SERVER_VERSION}. Update it (\`pipx upgrade karyi-agent\` or \`make install\`) or point \`karyi.server.command\` at a newer one.`;
      await this.stop();
      this.setState('failed', msg);
      void this.offerFix(msg);
      return false;
    }
    this.output.appendLine(`Karyi server ${this.serverVersion} is running.`);
    this.setState('running');
    return true;
  }

  /** A start that cannot go on: the message in the log, the state and a notification. */
  private failed(msg: string): false {
    this.output.appendLine(msg);
    this.setState('failed', msg);
    void this.offerFix(msg);
    return false;
  }

  private crashed(): void {
    const client = this.client;
    this.client = undefined;
    const msg = 'The Karyi server stopped unexpectedly. Your chat is kept; restart the server to go on.';
    this.output.appendLine(msg);
    this.setState('failed', msg);
    void client?.dispose().catch(() => undefined);
  }

  private async offerFix(message: string): Promise<void> {
    const choice = await vscode.window.showErrorMessage(message, 'Open Settings', 'Show Server Log');
    if (choice === 'Open Settings') await vscode.commands.executeCommand('workbench.action.openSettings', 'karyi.server');
    if (choice === 'Show Server Log') this.output.show(true);
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    this.stopping = true;
    try {
      if (client.state === State.Running) await client.stop(5000);
    } catch (err) {
      this.output.appendLine(`stop: ${String(err)}`);
    } finally {
      this.stopping = false;
      this.setState('stopped');
    }
  }

  async restart(): Promise<boolean> {
    await this.stop();
    return this.start();
  }

  /** Send a request; a clear error when the server is not running. */
  /** Bring the server up to `doc` after its changes were masked (server/syncMask.ts). */
  async resync(doc: vscode.TextDocument): Promise<void> {
    const change = unmask(doc.uri.toString(), doc.getText());
    if (!change || !this.running || doc.isClosed) return;
    await this.client?.sendNotification('textDocument/didChange', {
      textDocument: { uri: doc.uri.toString(), version: doc.version },
      contentChanges: [change],
    });
  }

  /** A custom request, resolving to what the server answers it with (`Results`, generated from the server's types). */
  async request<M extends keyof Results>(method: M, params: unknown, token?: vscode.CancellationToken): Promise<Results[M]> {
    const client = this.client;
    if (!client || !this.running) throw new Error('the Karyi server is not running (Karyi: Restart Server)');
    // A trailing `undefined` would make vscode-jsonrpc send the params as an array.
    return token ? client.sendRequest<Results[M]>(method, params, token) : client.sendRequest<Results[M]>(method, params);
  }

  /** Tell the server the `karyi.*` settings changed (it pulls them again). */
  notifyConfigurationChanged(): void {
    if (this.running) void this.client?.sendNotification('workspace/didChangeConfiguration', { settings: null });
  }

  dispose(): void {
    void this.stop();
    this.turnUpdates.dispose();
    this.terminalOutputs.dispose();
    this.states.dispose();
    this.taskUpdates.dispose();
    this.output.dispose();
  }
}
