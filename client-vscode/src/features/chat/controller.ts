/**
 * The chat's state and what the user does with it: sending messages (with the
 * selection and @files as context), stopping, permissions, secure values, sessions
 * and checkpoints. The transcript lives here, so it survives a reloaded view and a
 * restarted server (and is kept in the workspace state across windows).
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
import { startedNote, TASK_COMMAND, taskFromChat } from '../../shared/fromChat';
import type { KaryiServer } from '../../server';
import { WorkspaceFiles } from './workspaceFiles';
import { isSpecial } from '../../shared/mentions';
import type { FromWebview, PermissionChoice, ToWebview } from '../../shared/chat/messages';
import { type Action, type ChatState, emptyState, reduce, storable, type ToolCard, turnState, valueCallId } from '../../shared/chat/state';

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
    private readonly server: KaryiServer,
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
    if (u.event.type === 'valueRequested') void this.askValue(valueCallId(u.event), false);
    if (u.event.type === 'toolDone') this.edits?.forget(u.event.call.id);
  }

  card(callId: string): ToolCard | undefined {
    return this.state.tools[callId];
  }

  /** Send a message; resolves when the turn ends. */
  async send(text: string, options: SendOptions = {}): Promise<ChatResult | undefined> {
    if (this.state.busy) {
      void vscode.window.showWarningMessage('Karyi is still working on the last message: stop it first or wait.');
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
          images: options.images?.length ? options.images : undefined,
        },
        cts.token,
      );
      this.dispatch({ kind: 'turnEnded', result });
      void this.showRules();
      void this.refreshModel();
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
  private async startTask(task: string): Promise<void> {
    const record = await vscode.commands.executeCommand<TaskRecord | undefined>('karyi.agents.start', task || undefined);
    if (record) this.dispatch({ kind: 'notice', level: 'info', text: startedNote(record) });
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

  /** Ask for a secure value in a password box (never shown in the chat). */
  async askValue(callId: string, save: boolean): Promise<void> {
    const card = this.card(callId);
    const v = card?.value;
    if (!v || v.answered || !this.state.sessionId) return;
    const value = await vscode.window.showInputBox({
      title: `Karyi needs ${v.key}`,
      prompt: [v.reason, v.note].filter(Boolean).join(' — ') || `A value for ${v.key}. It is passed to the tool and never shown to the model.`,
      password: true,
      ignoreFocusOut: true,
      placeHolder: v.exists ? 'Leave empty to use the saved value' : undefined,
    });
    if (value === undefined) return; // dismissed: the card keeps its buttons
    if (this.card(callId)?.value?.answered) return;
    await this.provideValue(callId, v.key, value || (v.exists ? undefined : ''), save);
  }

  private async provideValue(callId: string, key: string, value: string | undefined, save: boolean): Promise<void> {
    const sessionId = this.state.sessionId;
    if (!sessionId) return;
    const params: Record<string, unknown> = { sessionId, key, save };
    if (value !== undefined) params.value = value;
    try {
      await this.server.request(Methods.provideValue, params);
      this.dispatch({ kind: 'valueAnswered', callId, answer: value === undefined ? 'refused' : 'given' });
    } catch (err) {
      void vscode.window.showErrorMessage(`Karyi: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  async refuseValue(callId: string): Promise<void> {
    const v = this.card(callId)?.value;
    if (!v || !this.state.sessionId) return;
    const params = { sessionId: this.state.sessionId, key: v.key, value: null };
    try {
      await this.server.request(Methods.provideValue, params);
      this.dispatch({ kind: 'valueAnswered', callId, answer: 'refused' });
    } catch (err) {
      void vscode.window.showErrorMessage(`Karyi: ${err instanceof Error ? err.message : String(err)}`);
    }
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

  /** Messages from the webview. */
  async handle(m: FromWebview, files: WorkspaceFiles, selectionContext: () => SendOptions | undefined): Promise<void> {
    try {
      switch (m.type) {
        case 'ready':
          this.sync();
          void this.showRules();
          void this.refreshModel();
          break;
        case 'send': {
          const task = taskFromChat(m.text);
          if (task !== undefined) {
            await this.startTask(task);
            break;
          }
          const sel = m.withSelection ? selectionContext() : undefined;
          const context: ChatContext = { ...(sel?.context ?? {}) };
          // @problems, @diff, @folder:… stay in the text: the server expands them.
          const fileUris = m.mentions.filter((p) => !isSpecial(p)).map((p) => WorkspaceFiles.toUri(p)).filter((u): u is string => !!u);
          if (fileUris.length) context.files = fileUris;
          const labels = [sel?.contextLabel, ...m.mentions.map((p) => `@${p}`)].filter(Boolean);
          await this.send(m.text, { context: Object.keys(context).length ? context : undefined, contextLabel: labels.join(' · ') || undefined, plan: m.plan, images: m.images });
          break;
        }
        case 'setMode':
          await this.setMode(m.mode);
          break;
        case 'listModels':
          this.post({ type: 'models', list: await this.models() });
          break;
        case 'setModel':
          await this.setModel(m.model);
          break;
        case 'listCommands':
          this.post({ type: 'commands', items: await this.slashCommands() });
          break;
        case 'stop':
          // The host's state is ahead of the webview's: a proposal it already shows in the
          // editor is never thrown away by an Escape the webview sent before it knew.
          if (m.key === 'escape' && turnState(this.state) === 'awaiting') break;
          await this.stop();
          break;
        case 'newChat':
          this.newChat();
          break;
        case 'permission':
          await this.permission(m.callId, m.choice, m.feedback);
          break;
        case 'edits':
          if (m.action === 'acceptAll') await this.edits?.acceptAll(m.callId);
          else if (m.action === 'rejectAll') await this.edits?.rejectAll(m.callId);
          else await this.edits?.reveal(m.callId, m.path);
          break;
        case 'value':
          if (m.action === 'refuse') await this.refuseValue(m.callId);
          else await this.askValue(m.callId, m.action === 'enterAndSave');
          break;
        case 'completeFiles':
          this.post({ type: 'files', requestId: m.requestId, items: await files.complete(m.query) });
          break;
        case 'listSessions':
          this.post({ type: 'sessions', sessions: await this.sessions(), current: this.state.sessionId });
          break;
        case 'loadSession':
          await this.loadSession(m.sessionId);
          break;
        case 'deleteSession':
          await this.deleteSession(m.sessionId);
          this.post({ type: 'sessions', sessions: await this.sessions(), current: this.state.sessionId });
          break;
        case 'listCheckpoints':
          this.post({ type: 'checkpoints', checkpoints: await this.checkpoints() });
          break;
        case 'restoreCheckpoint':
          await this.restoreCheckpoint(m.checkpointId);
          break;
        case 'command': {
          const ids = {
            restartServer: 'karyi.restartServer',
            setApiKey: 'karyi.setApiKey',
            openSettings: 'karyi.openSettings',
            showLog: 'karyi.showServerLog',
            showTerminal: 'karyi.showTerminal',
          } as const;
          await vscode.commands.executeCommand(ids[m.command]);
          break;
        }
        case 'openFile': {
          const uri = WorkspaceFiles.toUri(m.path);
          if (uri) await vscode.window.showTextDocument(vscode.Uri.parse(uri), { preview: true });
          break;
        }
        case 'copy':
          await vscode.env.clipboard.writeText(m.text);
          break;
      }
    } catch (err) {
      void vscode.window.showErrorMessage(`Karyi: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  dispose(): void {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    void this.memento.update(STATE_KEY, storable(this.state));
    this.changed.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
