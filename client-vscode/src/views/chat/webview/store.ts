/**
 * The webview's one store: the chat state (the same reducer the extension host runs, on
 * the same actions) and the view's own state (the draft, completions, the open panel,
 * pictures waiting to be sent). Messages from the extension host go through `receive`, a
 * pure function, so what the view shows is a function of the messages it was sent
 * (docs/architecture.md#the-chat-webview).
 */
import type { CheckpointInfo, ImageData, ModelList, RuleInfo, SessionInfo, SlashCommand } from '../../../protocol';
import { MAX_IMAGES } from '../../../shared/images';
import type { EditorContextInfo, ToWebview } from '../../../shared/chat/messages';
import { type ChatState, emptyState, reduce } from '../../../shared/chat/state';
import { commandCompletion, type Completion, mentionQuery } from './completion';

/** The list shown in the panel under the header, when one is open. */
export type Panel =
  | { kind: 'sessions'; sessions: SessionInfo[]; current: string | null }
  | { kind: 'checkpoints'; checkpoints: CheckpointInfo[] }
  | { kind: 'models'; list: ModelList };

/** What only the webview knows: the composer, the popups, the header's panel. */
export interface UiState {
  /** The message being typed, and where the caret is in it. */
  draft: string;
  caret: number;
  /** `seq` bumped when the input should take the focus (and the caret go to `caret`). */
  focus: { seq: number; caret?: number };
  selection: EditorContextInfo;
  withSelection: boolean;
  /** `@` mentions picked from the completion (sent when still in the text). */
  mentions: string[];
  /** The last file completion asked for; older answers are dropped. */
  requestId: number;
  completion?: Completion;
  commands?: SlashCommand[];
  panel?: Panel;
  rules: RuleInfo[];
  images: ImageData[];
  attachError: string;
  /** The plan the next act message carries, as the user edited it, and the plan it came from. */
  plan: string;
  planOf: string;
}

export interface ViewState {
  chat: ChatState;
  serverRunning: boolean;
  ui: UiState;
}

export function initialView(): ViewState {
  const ui: UiState = { draft: '', caret: 0, focus: { seq: 0 }, selection: {}, withSelection: true, mentions: [], requestId: 0, rules: [], images: [], attachError: '', plan: '', planOf: '' };
  return { chat: emptyState(), serverRunning: true, ui };
}

/** A picture added to the tray, or the reason it was refused. */
export function attach(ui: UiState, image: ImageData | string): UiState {
  if (typeof image === 'string') return { ...ui, attachError: image };
  if (ui.images.length >= MAX_IMAGES) return { ...ui, attachError: `At most ${MAX_IMAGES} pictures in one message.` };
  return { ...ui, images: [...ui.images, image], attachError: '' };
}

/** The input focused; the caret moved to `caret` when given. */
export function focused(ui: UiState, caret?: number): UiState {
  return { ...ui, caret: caret ?? ui.caret, focus: { seq: ui.focus.seq + 1, caret } };
}

/** The draft with text set and the input focused, the caret at its end. */
function withDraft(ui: UiState, draft: string): UiState {
  return focused({ ...ui, draft }, draft.length);
}

/** The edited plan starts again from a plan the chat state brings. */
function syncPlan(view: ViewState): ViewState {
  const plan = view.chat.plan;
  return plan === view.ui.planOf ? view : { ...view, ui: { ...view.ui, plan, planOf: plan } };
}

function receiveUi(ui: UiState, m: ToWebview): UiState {
  switch (m.type) {
    case 'files': {
      if (m.requestId !== ui.requestId) return ui;
      const open = m.items.length > 0 && mentionQuery(ui.draft, ui.caret) !== undefined;
      return { ...ui, completion: open ? { kind: 'file', items: m.items.map((name) => ({ name })), active: 0 } : undefined };
    }
    case 'commands':
      return { ...ui, commands: m.items, completion: commandCompletion(m.items, ui.draft, ui.caret) };
    case 'sessions':
      return { ...ui, panel: { kind: 'sessions', sessions: m.sessions, current: m.current } };
    case 'checkpoints':
      return { ...ui, panel: { kind: 'checkpoints', checkpoints: m.checkpoints } };
    case 'models':
      return { ...ui, panel: { kind: 'models', list: m.list } };
    case 'selection':
      return { ...ui, selection: m.context };
    case 'insertMention': {
      const sep = ui.draft && !ui.draft.endsWith(' ') ? ' ' : '';
      const mentions = ui.mentions.includes(m.path) ? ui.mentions : [...ui.mentions, m.path];
      return { ...withDraft(ui, `${ui.draft}${sep}@${m.path} `), mentions };
    }
    case 'prefill':
      return withDraft(ui, m.text);
    case 'focus':
      return focused(ui);
    case 'rules':
      return { ...ui, rules: m.rules };
    case 'attachImage':
      return focused(attach(ui, m.image));
    default:
      return ui;
  }
}

/** The view after one message from the extension host. */
export function receive(view: ViewState, m: ToWebview): ViewState {
  switch (m.type) {
    case 'state':
      return syncPlan({ ...view, chat: m.state, serverRunning: m.serverRunning });
    case 'action':
      return syncPlan({ ...view, chat: reduce(view.chat, m.action) });
    case 'server':
      return { ...view, serverRunning: m.running };
    default: {
      const ui = receiveUi(view.ui, m);
      return ui === view.ui ? view : { ...view, ui };
    }
  }
}

/**
 * Holds the view state. The extension host's messages (`soon`) reach the components at
 * most once an animation frame, however many a streaming turn sends in it; the user's
 * own changes (typing, picking a completion) at once, so the input never lags a key.
 */
export class Store {
  private listeners = new Set<() => void>();
  private pending = false;

  constructor(
    private state: ViewState,
    private readonly schedule: (run: () => void) => void = (run) => requestAnimationFrame(run),
  ) {}

  get(): ViewState {
    return this.state;
  }

  update(change: (view: ViewState) => ViewState): void {
    if (this.apply(change)) this.notify();
  }

  /** An update shown with the next frame. */
  soon(change: (view: ViewState) => ViewState): void {
    if (!this.apply(change) || this.pending) return;
    this.pending = true;
    this.schedule(() => {
      this.pending = false;
      this.notify();
    });
  }

  updateUi(change: (ui: UiState) => UiState): void {
    this.update((view) => {
      const ui = change(view.ui);
      return ui === view.ui ? view : { ...view, ui };
    });
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private apply(change: (view: ViewState) => ViewState): boolean {
    const next = change(this.state);
    if (next === this.state) return false;
    this.state = next;
    return true;
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }
}
