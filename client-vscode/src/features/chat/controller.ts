/**
 * The chat's state and what the user does with it: sending messages (with the
 * selection and @files as context), stopping, permissions, sessions and checkpoints
 * (secure values: values.ts; the chat panel's messages: handlers.ts). The transcript
 * lives here, so it survives a reloaded view and a restarted server (and is kept in
 * the workspace state across windows).
 */
import * as vscode from 'vscode';
import {
  type ChatContext,
  type ChatResult,
  type ImageData,
  type ModelList,
  type CheckpointInfo,
  type ConfirmParams,
  Methods,
  type Mode,
  type SessionInfo,
  type SlashCommand,
  type TaskRecord,
  type TurnUpdate,
} from '../../protocol';
import type { KaryiServer } from '../../server';
import type { PermissionChoice, ToWebview } from '../../shared/chat/messages';
import { type Action, type ChatState, emptyState, reduce, storable, type ToolCard, valueCallId } from '../../shared/chat/state';
import { memoryNote, startedNote, TASK_COMMAND } from '../../shared/fromChat';
import { imageParam } from '../../shared/images';
import { askValue } from './values';

export interface EditDecider {
  acceptAll(callId?: string): Promise<void>;
  rejectAll(callId?: string, feedback?: string): Promise<void>;
  reveal(callId: string, path?: string): Promise<void>;
  forget(callId: string): void;
  /** Take the call's preview lines out of the editor before the server runs the tool. */
  handBack(callId: string): Promise<void>;
  open(sessionId: string, update: TurnUpdate): void;
}

const STATE_KEY = 'karyi.chatState';

/** What a palette task sends, with its context. */
export interface SendOptions {
  context?: ChatContext;
  contextLabel?: string;
  /** What the transcript shows for the message (a task's name instead of its instructions). */
  display?: string;
  /** The plan as the user edited it, for an act turn after a plan (docs/workflow.md). */
  plan?: string;
  /** Pictures pasted, dropped or attached (docs/images.md). */
  images?: ImageData[];
}

export class ChatController implements vscode.Disposable {
  state: ChatState;
  private post: (m: ToWebview) => void = () => undefined;
  private readonly changed = new vscode.EventEmitter<ChatState>();
  readonly onDidChange = this.changed.event;
  private waitingNewSession = false;
  private request: vscode.CancellationTokenSource | undefined;
  private saveTimer: NodeJS.Timeout | undefined;
  edits: EditDecider | undefined;
  /** Edits still being written (features/preview/writing.ts): sees every update of the session. */
  writing: { onUpdate(u: TurnUpdate): void } | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    readonly server: KaryiServer,
    private readonly memento: vscode.Memento,
  ) {
    const saved = memento.get<ChatState>(STATE_KEY);
    this.state = saved ? { ...emptyState(), ...saved, busy: false } : emptyState();
    if (saved?.busy) this.state = reduce(this.state, { kind: 'turnEnded', error: 'The window was reloaded while Karyi was working; that turn was interrupted.' });
    this.disposables.push(
      server.onTurnUpdate((u) => this.onUpdate(u)),
      server.onState(({ state, message }) => {
        this.post({ type: 'server', running: state === 'running' });
        if (state === 'running') void this.refreshModel();
        if (state === 'failed' && message) this.dispatch({ kind: 'serverStopped', message });
      }),
    );
  }

  attach(post: (m: ToWebview) => void): void {
    this.post = post;
  }

  /** The whole state (a new or reloaded webview). */
  sync(): void {
    this.post({ type: 'state', state: this.state, serverRunning: this.server.running });
  }

  dispatch(action: Action): void {
    this.state = reduce(this.state, action);
    this.post({ type: 'action', action });
    this.changed.fire(this.state);
    if (!this.saveTimer) {
      this.saveTimer = setTimeout(() => {
        this.saveTimer = undefined;
        void this.memento.update(STATE_KEY, storable(this.state));
      }, 500);
    }
  }

  private onUpdate(u: TurnUpdate): void {
    const mine = u.sessionId === this.state.sessionId || (this.waitingNewSession && u.event.type === 'turnStarted');
    if (!mine) return;
    if (u.event.type === 'turnStarted') this.waitingNewSession = false;
    this.dispatch({ kind: 'update', update: u });
    this.writing?.onUpdate(u);
    if (u.event.type === 'toolAwaitingPermission' && u.event.confirmation?.files?.length) this.edits?.open(u.sessionId, u);
    if (u.event.type === 'valueRequested') void askValue(this, valueCallId(u.event), false);
    if (u.event.type === 'toolDone') this.edits?.forget(u.event.call.id);
  }

  card(callId: string): ToolCard | undefined {
    return this.state.tools[callId];
  }

  /** Send a message; resolves when the turn ends. While a turn runs the message is
   * queued instead (docs/vscode.md#while-karyi-works), and sent when the turn ends. */
  async send(text: string, options: SendOptions = {}): Promise<ChatResult | undefined> {
    if (this.state.busy) {
      const { context, contextLabel, display, images } = options;
      this.dispatch({ kind: 'queue', message: { text, context, contextLabel, display, images } });
      // Said where it shows from anywhere (a palette task or inline chat with the chat hidden).
      vscode.window.setStatusBarMessage('$(watch) Karyi: queued, sent when the current turn ends', 5000);
      return undefined;
    }
    if (!this.server.running && !(await this.server.start())) {
      this.dispatch({ kind: 'notice', level: 'error', text: 'The Karyi server is not running: your message is back in the input.', action: 'restart' });
      this.post({ type: 'prefill', text });
      return undefined;
    }
    this.dispatch({ kind: 'user', text: options.display ?? text, context: options.contextLabel, images: options.images });
    this.waitingNewSession = !this.state.sessionId;
    const cts = new vscode.CancellationTokenSource();
    this.request = cts;
    try {
      const result = await this.server.request(
        Methods.chat,
        {
          sessionId: this.state.sessionId ?? undefined,
          message: text,
          context: options.context,
          mode: this.state.mode,
          plan: this.state.mode === 'act' && this.state.plan ? (options.plan ?? this.state.plan) : undefined,
          images: options.images?.length ? options.images.map(imageParam) : undefined,
        },
        cts.token,
      );
      this.dispatch({ kind: 'turnEnded', result });
      void this.showRules();
      void this.refreshModel();
      // A turn the user stopped leaves the queue waiting (each queued message has Send).
      if (result.stopReason !== 'cancelled') setTimeout(() => void this.sendQueued(), 0);
      return result;
    } catch (err) {
      if (this.state.busy) {
        const message = err instanceof Error ? err.message : String(err);
        const stopped = !this.server.running;
        this.dispatch({ kind: 'turnEnded', error: stopped ? undefined : `Karyi: ${message}` });
      }
      return undefined;
    } finally {
      this.waitingNewSession = false;
      this.request = undefined;
      cts.dispose();
    }
  }

  /** Send a queued message (the first when none is named) as the next turn. */
  async sendQueued(id?: string): Promise<void> {
    const next = id ? this.state.queue.find((q) => q.id === id) : this.state.queue[0];
    if (!next || this.state.busy) return;
    this.dispatch({ kind: 'queueRemove', id: next.id });
    await this.send(next.text, { context: next.context, contextLabel: next.contextLabel, display: next.display, images: next.images });
  }

  /** *Send now*: the message goes into the running turn, read at its next tool boundary
   * (`karyi/steer`); when no turn runs (it may just have ended), it is sent as a message. */
  async steer(text: string, options: SendOptions = {}): Promise<void> {
    const sessionId = this.state.sessionId;
    if (!this.state.busy || !sessionId || !this.server.running) {
      await this.send(text, options);
      return;
    }
    this.dispatch({ kind: 'steering', text });
    try {
      await this.server.request(Methods.steer, { sessionId, message: text });
    } catch {
      this.dispatch({ kind: 'steering', text, drop: true });
      await this.send(text, options);
    }
  }

  /** Put text in the chat input (a rewound message, a message that could not be sent). */
  prefill(text: string): void {
    this.post({ type: 'prefill', text });
  }

  /** Tell the webview which rule files are in force for this session (nearer AGENTS.md
   * files join as the agent works in their folders). */
  async showRules(): Promise<void> {
    if (!this.server.running) return;
    try {
      const { rules } = await this.server.request(Methods.rules, { sessionId: this.state.sessionId ?? undefined });
      this.post({ type: 'rules', rules });
    } catch {
      // an older server without karyi/rules: nothing to show
    }
  }

  async stop(): Promise<void> {
    if (!this.state.busy) return;
    if (this.state.sessionId && this.server.running) {
      try {
        await this.server.request(Methods.cancel, { sessionId: this.state.sessionId });
        return;
      } catch {
        /* fall back to cancelling the request */
      }
    }
    this.request?.cancel();
  }

  /** Switch between plan and act (the sidebar toggle, the palette); the server is told
   * at once when there is a session, else with the next message. */
  async setMode(mode: Mode): Promise<void> {
    if (this.state.busy) {
      void vscode.window.showWarningMessage('Karyi is working: switch modes when the turn ends.');
      return;
    }
    this.dispatch({ kind: 'mode', mode });
    if (!this.state.sessionId || !this.server.running) return;
    const r = await this.server.request(Methods.setMode, { sessionId: this.state.sessionId, mode });
    this.dispatch({ kind: 'mode', mode: r.mode, plan: r.plan });
  }

  /** `/plan`, `/act` and the custom commands (prompt files), for completion and the palette. */
  async slashCommands(): Promise<SlashCommand[]> {
    if (!this.server.running) return [TASK_COMMAND];
    const r = await this.server.request(Methods.commands, {});
    return [...r.commands, TASK_COMMAND];
  }

  /** `/task TEXT` in the input: a background task, not a turn (it may start while a turn
   * runs); a bare `/task` asks for it as the palette does. */
  async startTask(task: string): Promise<void> {
    const record = await vscode.commands.executeCommand<TaskRecord | undefined>('karyi.agents.start', task || undefined);
    if (record) this.dispatch({ kind: 'notice', level: 'info', text: startedNote(record) });
  }

  /** `/memory`: open the memory files that exist and list them all in the chat. */
  async openMemory(): Promise<void> {
    if (!this.server.running) return;
    const { files } = await this.server.request(Methods.memory, {});
    for (const f of files.filter((x) => x.exists)) {
      await vscode.window.showTextDocument(vscode.Uri.file(f.path), { preview: false });
    }
    this.dispatch({ kind: 'notice', level: 'info', text: memoryNote(files) });
  }

  newChat(): void {
    if (this.state.busy) void this.stop();
    this.dispatch({ kind: 'reset' });
    void this.refreshModel();
  }

  /** The models on offer and the session's (docs/models.md#the-model-picker). */
  async models(): Promise<ModelList> {
    const list = await this.server.request(Methods.models, { sessionId: this.state.sessionId ?? undefined });
    this.dispatch({ kind: 'modelState', state: list });
    return list;
  }

  /** The header's model and context use, after a turn or a change of session. */
  async refreshModel(): Promise<void> {
    if (!this.server.running) return;
    try {
      const state = await this.server.request(Methods.modelState, { sessionId: this.state.sessionId ?? undefined });
      this.dispatch({ kind: 'modelState', state });
    } catch {
      // an older server without karyi/models: the header keeps the model the turn named
    }
  }

  /** Switch the session's model from its next turn on (a new chat gets its session now). */
  async setModel(model: string): Promise<void> {
    if (this.state.busy) {
      void vscode.window.showWarningMessage('Karyi is working: pick the model when the turn ends.');
      return;
    }
    const state = await this.server.request(Methods.setModel, { sessionId: this.state.sessionId ?? undefined, model });
    this.dispatch({ kind: 'modelState', state });
  }

  async confirm(params: Omit<ConfirmParams, 'sessionId'>): Promise<boolean> {
    const sessionId = this.state.sessionId;
    if (!sessionId) return false;
    try {
      await this.server.request(Methods.confirmTool, { sessionId, ...params });
      return true;
    } catch (err) {
      void vscode.window.showErrorMessage(`Karyi: ${err instanceof Error ? err.message : String(err)}`);
      return false;
    }
  }

  async permission(callId: string, choice: PermissionChoice, feedback?: string): Promise<void> {
    const card = this.card(callId);
    if (card?.files?.length && (choice === 'reject' || choice === 'rejectFeedback')) {
      await this.edits?.rejectAll(callId, choice === 'rejectFeedback' ? feedback : undefined);
      return;
    }
    if (card?.files?.length) await this.edits?.handBack(callId);
    if (choice === 'allowOnce') await this.confirm({ toolCallId: callId, outcome: 'allowOnce' });
    else if (choice === 'allowAlways') await this.confirm({ toolCallId: callId, outcome: 'allowAlways', scope: 'session' });
    else if (choice === 'reject') await this.confirm({ toolCallId: callId, outcome: 'reject' });
    else await this.confirm({ toolCallId: callId, outcome: 'reject', feedback: feedback?.trim() || undefined });
    if (card?.files?.length) this.edits?.forget(callId);
  }

  async sessions(): Promise<SessionInfo[]> {
    const r = await this.server.request(Methods.sessions, {});
    return r.sessions.sort((a, b) => b.updated - a.updated);
  }

  async loadSession(sessionId: string): Promise<void> {
    if (this.state.busy) await this.stop();
    const session = await this.server.request(Methods.loadSession, { sessionId });
    this.dispatch({ kind: 'loaded', session });
    this.sync();
    void this.refreshModel();
  }

  async deleteSession(sessionId: string): Promise<void> {
    await this.server.request(Methods.deleteSession, { sessionId });
    if (sessionId === this.state.sessionId) this.dispatch({ kind: 'reset' });
  }

  async checkpoints(): Promise<CheckpointInfo[]> {
    const r = await this.server.request(Methods.checkpoints, {});
    return r.checkpoints.sort((a, b) => b.time - a.time);
  }

  async restoreCheckpoint(checkpointId: string): Promise<void> {
    const r = await this.server.request(Methods.restoreCheckpoint, { checkpointId });
    this.dispatch({ kind: 'notice', level: 'info', text: `Restored checkpoint ${r.restored}; your files before the restore are in checkpoint ${r.undoCheckpoint}.` });
  }

  dispose(): void {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    void this.memento.update(STATE_KEY, storable(this.state));
    this.changed.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
