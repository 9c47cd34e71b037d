/**
 * The chat transcript as a pure reducer over actions (user messages, server turn
 * updates, preview decisions, server stops). The extension host keeps the state (it
 * survives a reloaded webview and a restarted server); the webview runs the same
 * reducer on the same actions to render incrementally.
 */
import type { ChatResult, Confirmation, ImageData, LoadedSession, Mode, ModelState, TodoItem, TurnUpdate } from '../../protocol';

/**
 * Tokens of a turn as the chat shows them (the extension's own summary of the `usage`
 * and `turnFinished` events); `cachedTokens` of the input were read from the
 * provider's prompt cache.
 */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cachedTokens?: number;
  /** USD, when the model has a price (docs/workflow.md#cost). */
  turnCost?: number;
  sessionCost?: number;
}

/** A turn's usage from an event (`cachedTokens` only when some input was cached). */
function usageOf(ev: { inputTokens: number; outputTokens: number; cachedTokens?: number; turnCost?: number | null; sessionCost?: number | null }): Usage {
  const usage: Usage = { inputTokens: ev.inputTokens, outputTokens: ev.outputTokens };
  if (ev.cachedTokens) usage.cachedTokens = ev.cachedTokens;
  if (typeof ev.turnCost === 'number') usage.turnCost = ev.turnCost;
  if (typeof ev.sessionCost === 'number') usage.sessionCost = ev.sessionCost;
  return usage;
}

export type FileState = 'pending' | 'accepted' | 'partial' | 'rejected' | 'edited' | 'gone' | 'closed';

export interface FileCard {
  path: string;
  uri: string;
  added: number;
  removed: number;
  hunks: number;
  created: boolean;
  deleted: boolean;
  state: FileState;
  note?: string;
}

export type ToolStatus = 'writing' | 'queued' | 'awaiting' | 'value' | 'running' | 'done' | 'failed' | 'rejected' | 'cancelled';

export interface ValueRequest {
  key: string;
  reason: string;
  note: string;
  exists: boolean;
  answered?: 'given' | 'refused';
}

export interface ToolCard {
  id: string;
  name: string;
  description: string;
  status: ToolStatus;
  output: string;
  display?: string;
  error?: string;
  seconds?: number;
  decision?: string;
  reason?: string;
  confirmation?: Pick<Confirmation, 'kind' | 'title' | 'details' | 'url'> & { diff?: string | null };
  files?: FileCard[];
  value?: ValueRequest;
  /** For commands: whether it ran inside the OS sandbox (docs/security.md). */
  sandboxed?: boolean;
}

export type Block =
  | { kind: 'text'; channel: 'text' | 'thinking' | 'answer'; text: string }
  | { kind: 'tool'; id: string }
  | { kind: 'notice'; level: 'info' | 'error'; text: string };

export interface UserItem {
  kind: 'user';
  id: string;
  text: string;
  context?: string;
  /** Pictures sent with the message, shown as thumbnails (docs/images.md). */
  images?: ImageData[];
}

export interface TurnItem {
  kind: 'turn';
  id: string;
  turnId: string;
  blocks: Block[];
  done: boolean;
  stopReason?: string;
  usage?: Usage;
  steps?: number;
}

export interface NoticeItem {
  kind: 'notice';
  id: string;
  level: 'info' | 'error';
  text: string;
  action?: 'restart' | 'setApiKey' | 'openSettings';
}

export type Item = UserItem | TurnItem | NoticeItem;

export interface ChatState {
  sessionId: string | null;
  title: string;
  items: Item[];
  tools: Record<string, ToolCard>;
  busy: boolean;
  step: number;
  model: string;
  seq: number;
  /** The task list the model keeps, shown above the chat. */
  todos: TodoItem[];
  /** plan: only reading tools, the answer is a plan; act: everything (the toggle). */
  mode: Mode;
  /** The plan the next act turn carries (the last plan answer; the user may edit it). */
  plan: string;
  /** What the session cost so far in USD (null: the model has no price). */
  cost: number | null;
  /** Tokens the conversation takes of the model's window (`karyi/models`), when known. */
  contextUse?: { used: number; window: number };
}

export type Action =
  | { kind: 'reset' }
  | { kind: 'user'; text: string; context?: string; images?: ImageData[] }
  | { kind: 'modelState'; state: ModelState }
  | { kind: 'update'; update: TurnUpdate }
  | { kind: 'turnEnded'; result?: ChatResult; error?: string }
  | { kind: 'fileState'; callId: string; path: string; state: FileState; note?: string }
  | { kind: 'valueAnswered'; callId: string; answer: 'given' | 'refused' }
  | { kind: 'notice'; level: 'info' | 'error'; text: string; action?: NoticeItem['action'] }
  | { kind: 'serverStopped'; message: string }
  | { kind: 'loaded'; session: LoadedSession }
  | { kind: 'model'; model: string }
  | { kind: 'mode'; mode: Mode; plan?: string };

export type TurnState = 'idle' | 'thinking' | 'tool' | 'awaiting';

export function emptyState(model = ''): ChatState {
  return { sessionId: null, title: '', items: [], tools: {}, busy: false, step: 0, model, seq: 0, todos: [], mode: 'act', plan: '', cost: null };
}

/** idle / thinking / running a tool / awaiting the user, from the state. */
export function turnState(state: ChatState): TurnState {
  const cards = Object.values(state.tools);
  if (cards.some((c) => c.status === 'awaiting' || c.status === 'value')) return 'awaiting';
  if (!state.busy) return 'idle';
  if (cards.some((c) => c.status === 'running')) return 'tool';
  return 'thinking';
}

/** The cards waiting for the user's permission. */
export function awaitingCards(state: ChatState): ToolCard[] {
  return Object.values(state.tools).filter((c) => c.status === 'awaiting');
}

function nextId(state: ChatState, prefix: string): [string, number] {
  const seq = state.seq + 1;
  return [`${prefix}${seq}`, seq];
}

function withTool(state: ChatState, card: ToolCard): ChatState {
  return { ...state, tools: { ...state.tools, [card.id]: card } };
}

function patchTool(state: ChatState, id: string, patch: Partial<ToolCard>): ChatState {
  const card = state.tools[id];
  return card ? withTool(state, { ...card, ...patch }) : state;
}

/** The last turn item (creating one when the transcript does not end with an open turn). */
function openTurn(state: ChatState, turnId: string): [ChatState, TurnItem] {
  const last = state.items[state.items.length - 1];
  if (last && last.kind === 'turn' && !last.done) return [state, last];
  const [id, seq] = nextId(state, 't');
  const turn: TurnItem = { kind: 'turn', id, turnId, blocks: [], done: false };
  return [{ ...state, seq, items: [...state.items, turn] }, turn];
}

function replaceTurn(state: ChatState, turn: TurnItem): ChatState {
  const items = state.items.map((i) => (i.id === turn.id ? turn : i));
  return { ...state, items };
}

function addBlock(state: ChatState, turnId: string, block: Block): ChatState {
  const [s, turn] = openTurn(state, turnId);
  return replaceTurn(s, { ...turn, blocks: [...turn.blocks, block] });
}

function appendText(state: ChatState, turnId: string, channel: 'text' | 'thinking' | 'answer', text: string): ChatState {
  const [s, turn] = openTurn(state, turnId);
  const last = turn.blocks[turn.blocks.length - 1];
  if (last && last.kind === 'text' && last.channel === channel) {
    const blocks = [...turn.blocks.slice(0, -1), { ...last, text: last.text + text }];
    return replaceTurn(s, { ...turn, blocks });
  }
  return replaceTurn(s, { ...turn, blocks: [...turn.blocks, { kind: 'text', channel, text }] });
}

function pendingKey(step: number, index: number): string {
  return `pending:${step}:${index}`;
}

/** The network cut the calls still being written: their cards say so (docs/reliability.md). */
function discardWriting(state: ChatState): ChatState {
  const tools = { ...state.tools };
  for (const [id, card] of Object.entries(tools)) {
    if (card.status === 'writing') tools[id] = { ...card, status: 'failed', error: 'discarded: the connection to the model failed' };
  }
  return { ...state, tools };
}

/** A queued call takes over the card its `toolPending` opened. */
function queueTool(state: ChatState, turnId: string, card: ToolCard, index: number): ChatState {
  const key = pendingKey(state.step, index);
  const [s, turn] = openTurn(state, turnId);
  const tools = { ...s.tools };
  const hadPending = key in tools;
  delete tools[key];
  const existing = tools[card.id];
  tools[card.id] = existing ? { ...existing, ...card, output: existing.output } : card;
  let blocks = turn.blocks.map((b) => (b.kind === 'tool' && b.id === key ? { kind: 'tool' as const, id: card.id } : b));
  if (!hadPending && !blocks.some((b) => b.kind === 'tool' && b.id === card.id)) {
    blocks = [...blocks, { kind: 'tool', id: card.id }];
  }
  return replaceTurn({ ...s, tools }, { ...turn, blocks });
}

function fileCards(conf: Confirmation | null): FileCard[] | undefined {
  const files = conf?.files;
  if (!files || files.length === 0) return undefined;
  return files.map((f) => ({
    path: f.path,
    uri: f.uri,
    added: f.added,
    removed: f.removed,
    hunks: f.hunks.length,
    created: f.created,
    deleted: f.deleted,
    state: 'pending',
  }));
}

function ensureCard(state: ChatState, turnId: string, call: { id: string; name: string; index: number }, description: string): ChatState {
  if (state.tools[call.id]) return state;
  return queueTool(state, turnId, { id: call.id, name: call.name, description, status: 'queued', output: '' }, call.index);
}

/** A result's `display` as the card shows it: a view object as its JSON. */
function displayText(display: string | Record<string, unknown> | undefined): string | undefined {
  return typeof display === 'object' ? JSON.stringify(display) : display;
}

/** The call a `valueRequested` belongs to (`callId`, or `call.id` as the docs have it). */
export function valueCallId(ev: { call?: { id: string }; callId?: string }): string {
  return ev.callId ?? ev.call?.id ?? '';
}

const OUTPUT_LIMIT = 64_000;

function applyUpdate(state: ChatState, update: TurnUpdate): ChatState {
  const ev = update.event;
  const turnId = update.turnId;
  let s: ChatState = state.sessionId === update.sessionId ? state : { ...state, sessionId: update.sessionId };
  switch (ev.type) {
    case 'turnStarted': {
      const mode = ev.mode ?? s.mode;
      return openTurn({ ...s, busy: true, step: 0, mode, plan: mode === 'act' ? '' : s.plan }, ev.turnId)[0];
    }
    case 'mode':
      return { ...s, mode: ev.mode, plan: ev.plan };
    case 'step':
      return { ...s, step: ev.step, model: ev.model || s.model };
    case 'text':
      return ev.text ? appendText(s, turnId, ev.channel, ev.text) : s;
    case 'toolPending': {
      const key = pendingKey(s.step, ev.index);
      if (s.tools[key]) return s;
      s = withTool(s, { id: key, name: ev.name, description: `${ev.name}…`, status: 'writing', output: '' });
      return addBlock(s, turnId, { kind: 'tool', id: key });
    }
    case 'toolDraft': {
      const card = s.tools[pendingKey(s.step, ev.index)];
      const f = ev.files[0];
      if (ev.done || !card || !f) return s;
      return withTool(s, { ...card, description: `Writing ${f.path} (+${f.added} −${f.removed} so far)…` });
    }
    case 'toolQueued': {
      const card: ToolCard = { id: ev.call.id, name: ev.call.name, description: ev.description, status: 'queued', output: '' };
      return queueTool(s, turnId, card, ev.call.index);
    }
    case 'toolAwaitingPermission': {
      s = ensureCard(s, turnId, ev.call, ev.description);
      const c = ev.confirmation;
      return patchTool(s, ev.call.id, {
        status: 'awaiting',
        description: ev.description,
        reason: ev.reason,
        confirmation: c ? { kind: c.kind, title: c.title, details: c.details, url: c.url, diff: c.files ? null : c.diff } : undefined,
        files: fileCards(c),
      });
    }
    case 'valueRequested': {
      const id = valueCallId(ev);
      s = ensureCard(s, turnId, { id, name: 'get_value', index: -1 }, `get_value ${ev.key}`);
      return patchTool(s, id, {
        status: 'value',
        value: { key: ev.key, reason: ev.reason, note: ev.note, exists: ev.exists },
      });
    }
    case 'toolRunning':
      s = ensureCard(s, turnId, ev.call, ev.call.name);
      return patchTool(s, ev.call.id, { status: 'running' });
    case 'toolOutput': {
      const card = s.tools[ev.callId];
      if (!card) return s;
      const output = (card.output + ev.text).slice(-OUTPUT_LIMIT);
      return patchTool(s, ev.callId, { output });
    }
    case 'toolDone': {
      s = ensureCard(s, turnId, ev.call, ev.call.name);
      const rejected = /^(rejected|denied)/.test(ev.decision) || ev.result.status === 'rejected';
      const cancelled = !ev.result.success && ev.result.error?.code === 'cancelled';
      const status: ToolStatus = rejected ? 'rejected' : cancelled ? 'cancelled' : ev.result.success ? 'done' : 'failed';
      const card = s.tools[ev.call.id];
      // A file still pending when the call ends was not written: accepted only by a success.
      const files = card.files?.map((f) =>
        f.state === 'pending' ? { ...f, state: (!rejected && ev.result.success ? 'accepted' : 'rejected') as FileState } : f,
      );
      return patchTool(s, ev.call.id, {
        status,
        display: displayText(ev.result.display),
        error: ev.result.error?.message,
        seconds: ev.seconds,
        decision: ev.decision,
        files,
        sandboxed: typeof ev.result.metadata?.sandboxed === 'boolean' ? ev.result.metadata.sandboxed : undefined,
      });
    }
    case 'fileChanged':
      return s;
    case 'notice':
      if (ev.topic === 'network') return addBlock(discardWriting(s), turnId, { kind: 'notice', level: 'error', text: ev.message });
      // A session that is not being saved (a full or read-only disk): docs/reliability.md.
      if (ev.topic === 'storage') return addBlock(s, turnId, { kind: 'notice', level: 'error', text: ev.message });
      return ev.topic === 'checkpoint' || ev.topic === 'sandbox' || ev.topic === 'changed_files' || ev.topic === 'retry' || ev.topic === 'compaction' || ev.topic === 'recovery'
        ? addBlock(s, turnId, { kind: 'notice', level: 'info', text: ev.message })
        : s;
    case 'todos':
      return { ...s, todos: ev.items };
    case 'hook': {
      // What a hook did, in the words of cli/view.py's hook_line (docs/workflow.md#hooks).
      const said = ev.stderr || ev.stdout;
      if (ev.status === 'ok' && (ev.event !== 'turnEnd' || !ev.stdout)) return s;
      const verb = ev.status === 'ok' ? '' : ({ blocked: ' blocked it', reported: ' reported to the model' } as Record<string, string>)[ev.status] ?? ' failed';
      const text = ev.status === 'ok' ? `${ev.event} hook: ${ev.stdout}` : `${ev.event} hook \`${ev.command}\`${verb}${said ? `: ${said}` : ''}`;
      const level = ev.status === 'failed' ? 'error' : 'info';
      // A turnEnd hook reports after turnFinished: a notice of its own, not a new turn.
      const last = s.items[s.items.length - 1];
      if (last?.kind === 'turn' && last.done) return addNotice(s, level, text);
      return addBlock(s, turnId, { kind: 'notice', level, text });
    }
    case 'usage': {
      const [s2, turn] = openTurn({ ...s, cost: typeof ev.sessionCost === 'number' ? ev.sessionCost : s.cost }, turnId);
      return replaceTurn(s2, { ...turn, usage: usageOf(ev) });
    }
    case 'error':
      return addBlock(s, turnId, { kind: 'notice', level: 'error', text: ev.message });
    case 'turnFinished': {
      const [s2, turn] = openTurn(s, turnId);
      let blocks = turn.blocks;
      const hasText = blocks.some((b) => b.kind === 'text' && b.channel !== 'thinking' && b.text.trim());
      if (ev.finalAnswer && !hasText) blocks = [...blocks, { kind: 'text', channel: 'answer', text: ev.finalAnswer }];
      const done: TurnItem = {
        ...turn,
        blocks,
        done: true,
        stopReason: ev.stopReason,
        steps: ev.steps,
        usage: usageOf(ev),
      };
      const plan = s2.mode === 'plan' && ev.finalAnswer ? ev.finalAnswer : s2.plan;
      const cost = typeof ev.sessionCost === 'number' ? ev.sessionCost : s2.cost;
      return settleTools({ ...replaceTurn(s2, done), busy: false, plan, cost });
    }
    default:
      return s;
  }
}

/** Cards still open when a turn is over can no longer change: mark them. */
function settleTools(state: ChatState): ChatState {
  let changed = false;
  const tools: Record<string, ToolCard> = {};
  for (const [id, card] of Object.entries(state.tools)) {
    if (['writing', 'queued', 'awaiting', 'value', 'running'].includes(card.status)) {
      changed = true;
      const asked = card.status === 'awaiting' || card.status === 'value';
      const files = card.files?.map((f) => (f.state === 'pending' ? { ...f, state: 'rejected' as FileState } : f));
      tools[id] = asked
        ? { ...card, files, status: 'cancelled', error: card.error ?? 'the turn ended before you answered; nothing was changed' }
        : { ...card, files, status: 'failed', error: card.error ?? 'the turn ended before this call finished' };
    } else tools[id] = card;
  }
  return changed ? { ...state, tools } : state;
}

function closeOpenTurn(state: ChatState, stopReason: string): ChatState {
  const last = state.items[state.items.length - 1];
  if (!last || last.kind !== 'turn' || last.done) return state;
  return replaceTurn(state, { ...last, done: true, stopReason });
}

function addNotice(state: ChatState, level: 'info' | 'error', text: string, action?: NoticeItem['action']): ChatState {
  const [id, seq] = nextId(state, 'n');
  return { ...state, seq, items: [...state.items, { kind: 'notice', id, level, text, action }] };
}

/** The transcript of a stored session, as the server's `karyi/loadSession` returns it. */
function loaded(state: ChatState, session: LoadedSession): ChatState {
  let s: ChatState = { ...emptyState(state.model), sessionId: session.sessionId, title: session.title, todos: session.todos ?? [], mode: session.mode ?? 'act', plan: session.plan ?? '', cost: session.cost || null };
  const calls = new Map(session.calls.map((c) => [c.call_id, c]));
  for (const m of session.messages) {
    if (m.role === 'user' && m.content.trim() && !m.toolCallId && !m.content.startsWith('<tool_result')) {
      const [id, seq] = nextId(s, 'u');
      s = closeOpenTurn({ ...s, seq, items: [...s.items] }, 'end_turn');
      s = { ...s, items: [...s.items, { kind: 'user', id, text: m.content, images: m.images?.length ? m.images : undefined }] };
    } else if (m.role === 'assistant') {
      if (m.content.trim()) s = appendText(s, '', 'text', m.content);
      for (const tc of m.toolCalls ?? []) {
        const rec = calls.get(tc.id);
        s = withTool(s, {
          id: tc.id,
          name: tc.name,
          description: tc.name,
          status: rec ? (rec.decision.startsWith('rejected') ? 'rejected' : rec.success ? 'done' : 'failed') : 'done',
          output: '',
          display: displayText(rec?.result?.display),
          error: rec?.result?.error?.message,
          decision: rec?.decision,
        });
        s = addBlock(s, '', { kind: 'tool', id: tc.id });
      }
    }
  }
  return closeOpenTurn(s, 'end_turn');
}

/** The state as the workspace keeps it across windows: pictures by name only (their
 * bytes stay in the session store, and `karyi/loadSession` brings them back). */
export function storable(state: ChatState): ChatState {
  const items = state.items.map((i) => (i.kind === 'user' && i.images ? { ...i, images: i.images.map((img) => ({ ...img, data: '' })) } : i));
  return { ...state, items };
}

export function reduce(state: ChatState, action: Action): ChatState {
  switch (action.kind) {
    case 'reset':
      return { ...emptyState(state.model), mode: state.mode };
    case 'user': {
      const [id, seq] = nextId(state, 'u');
      const item: UserItem = { kind: 'user', id, text: action.text, context: action.context, images: action.images?.length ? action.images : undefined };
      return { ...state, seq, busy: true, items: [...state.items, item] };
    }
    case 'update':
      return applyUpdate(state, action.update);
    case 'turnEnded': {
      let s = state;
      if (action.result && !s.sessionId) s = { ...s, sessionId: action.result.sessionId };
      if (action.error) s = addNotice(closeOpenTurn(s, 'error'), 'error', action.error);
      const last = s.items[s.items.length - 1];
      if (action.result && last?.kind === 'turn' && !last.done) {
        s = replaceTurn(s, { ...last, done: true, stopReason: action.result.stopReason, usage: action.result.usage });
      }
      return settleTools({ ...s, busy: false });
    }
    case 'fileState': {
      const card = state.tools[action.callId];
      if (!card?.files) return state;
      const files = card.files.map((f) => (f.path === action.path ? { ...f, state: action.state, note: action.note } : f));
      return patchTool(state, action.callId, { files });
    }
    case 'valueAnswered': {
      const card = state.tools[action.callId];
      if (!card?.value) return state;
      // The call may already be done (its toolDone can arrive before the answer's reply).
      const status = card.status === 'value' ? 'running' : card.status;
      return patchTool(state, action.callId, { value: { ...card.value, answered: action.answer }, status });
    }
    case 'notice':
      return addNotice(state, action.level, action.text, action.action);
    case 'serverStopped': {
      if (!state.busy) return addNotice(state, 'error', action.message, 'restart');
      const s = settleTools({ ...closeOpenTurn(state, 'error'), busy: false });
      return addNotice(s, 'error', action.message, 'restart');
    }
    case 'loaded':
      return loaded(state, action.session);
    case 'model':
      return { ...state, model: action.model };
    case 'modelState': {
      const m = action.state;
      if (state.sessionId && m.sessionId !== state.sessionId) return state;
      return { ...state, sessionId: m.sessionId ?? state.sessionId, model: m.model, contextUse: { used: m.contextUsed, window: m.contextWindow } };
    }
    case 'mode':
      return { ...state, mode: action.mode, plan: action.plan ?? state.plan };
    default:
      return state;
  }
}
