/**
 * The Karyi language server process: started with vscode-languageclient, restarted on
 * demand, its log in an output channel; custom notifications re-emitted as events.
 * A server that cannot start, is too old or dies gets a clear message with a fix.
 */
import * as vscode from 'vscode';
import { LanguageClient, State } from 'vscode-languageclient/node';
import { Methods, type Params, type Results, type TaskRecord, type TerminalOutput, type TurnUpdate } from '../protocol';
import { type DiagnosticsParams, editorDiagnostics } from './diagnostics';
import { editorNavigate, type NavigateParams } from './navigation';
import type { Secrets } from './secrets';
import { clientOptions, findCommand, serverOptions, versionProblem } from './start';
import { unmask } from './syncMask';

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

  /** Start the server in named steps (start.ts); false, with the reason shown, when it cannot. */
  private async doStart(): Promise<boolean> {
    this.setState('starting');
    const cfg = vscode.workspace.getConfiguration('karyi');
    const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
    const resolved = await findCommand(this.context, this.output, cfg, folders);
    if (typeof resolved === 'string') return this.failed(resolved);
    this.output.appendLine(`Starting ${resolved.command} ${resolved.args.join(' ')} (from ${resolved.source})`);
    const onClosed = () => {
      if (!this.stopping) this.crashed();
    };
    const client = new LanguageClient('karyi', 'Karyi', await serverOptions(resolved, cfg, folders, this.secrets), clientOptions(cfg, this.output, onClosed));
    this.client = client;
    this.listen(client);
    try {
      await client.start();
    } catch (err) {
      this.client = undefined;
      const why = err instanceof Error ? err.message : String(err);
      return this.failed(`Karyi: the server (${resolved.command}) could not start: ${why}. Run \`make install\` in the Karyi repository or set \`karyi.server.command\`; the server log has details.`);
    }
    const info = client.initializeResult?.serverInfo;
    this.serverVersion = info?.version ?? '';
    const tooOld = versionProblem(info, resolved.command);
    if (tooOld) {
      await this.stop();
      this.setState('failed', tooOld);
      void this.offerFix(tooOld);
      return false;
    }
    this.output.appendLine(`Karyi server ${this.serverVersion} is running.`);
    this.setState('running');
    return true;
  }

  /** The server's notifications and requests to the editor, as this object's events. */
  private listen(client: LanguageClient): void {
    // The server's workspace/executeCommand tasks are this extension's own commands
    // (same ids, shown in the chat view): keep the client from registering them too.
    const exec = client.getFeature('workspace/executeCommand') as unknown as { initialize(): void; register(): void };
    exec.initialize = () => undefined;
    exec.register = () => undefined;
    client.onNotification(Methods.turnUpdate, (u: TurnUpdate) => this.turnUpdates.fire(u));
    client.onRequest(Methods.diagnostics, (p: DiagnosticsParams) => editorDiagnostics(p));
    client.onRequest(Methods.navigate, (p: NavigateParams) => editorNavigate(p));
    client.onNotification(Methods.taskUpdate, (t: TaskRecord) => this.taskUpdates.fire(t));
    client.onNotification(Methods.terminalOutput, (p: TerminalOutput) => this.terminalOutputs.fire(p));
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

  /** Bring the server up to `doc` after its changes were masked (server/syncMask.ts). */
  async resync(doc: vscode.TextDocument): Promise<void> {
    const change = unmask(doc.uri.toString(), doc.getText());
    if (!change || !this.running || doc.isClosed) return;
    await this.client?.sendNotification('textDocument/didChange', {
      textDocument: { uri: doc.uri.toString(), version: doc.version },
      contentChanges: [change],
    });
  }

  /** A custom request: its parameters checked against `Params`, resolving to what the
   * server answers it with (`Results`); both generated from the server's types. */
  async request<M extends keyof Results & keyof Params>(method: M, params: Params[M], token?: vscode.CancellationToken): Promise<Results[M]> {
    const client = this.client;
    if (!client || !this.running) throw new Error('the Karyi server is not running (Karyi: Restart Server)');
    // A trailing `undefined` would make vscode-jsonrpc send the params as an array.
    return token ? client.sendRequest<Results[M]>(method, params, token) : client.sendRequest<Results[M]>(method, params);
  }

  /** One of the server's `workspace/executeCommand` commands (docs/editors.md#commands),
   * for those the extension runs itself (`karyi.review`, `karyi.dismissFinding`). */
  async executeCommand<T>(command: string, args: unknown[]): Promise<T> {
    const client = this.client;
    if (!client || !this.running) throw new Error('the Karyi server is not running (Karyi: Restart Server)');
    return client.sendRequest<T>('workspace/executeCommand', { command, arguments: args });
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
