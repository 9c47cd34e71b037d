/**
 * The small steps every reducer of the chat state is made of (state.ts, updates.ts):
 * opening a turn, adding a block or a notice, patching a tool card, closing what a
 * turn left open. Pure functions of the state.
 */
import type { Confirmation, LoadedSession, TranscriptCall, TranscriptTurn } from '../../protocol';
import type { Block, ChatState, FileCard, FileState, NoticeItem, QueuedMessage, ToolCard, TurnItem, Usage, UserItem } from './types';

export function emptyState(model = ''): ChatState {
  return { sessionId: null, title: '', items: [], tools: {}, busy: false, step: 0, model, seq: 0, todos: [], mode: 'act', plan: '', cost: null, queue: [], steering: [] };
}

/** A turn's usage from an event (`cachedTokens` only when some input was cached). */
export function usageOf(ev: { inputTokens: number; outputTokens: number; cachedTokens?: number; turnCost?: number | null; sessionCost?: number | null }): Usage {
  const usage: Usage = { inputTokens: ev.inputTokens, outputTokens: ev.outputTokens };
  if (ev.cachedTokens) usage.cachedTokens = ev.cachedTokens;
  if (typeof ev.turnCost === 'number') usage.turnCost = ev.turnCost;
  if (typeof ev.sessionCost === 'number') usage.sessionCost = ev.sessionCost;
  return usage;
}

export function nextId(state: ChatState, prefix: string): [string, number] {
  const seq = state.seq + 1;
  return [`${prefix}${seq}`, seq];
}

export function withTool(state: ChatState, card: ToolCard): ChatState {
  return { ...state, tools: { ...state.tools, [card.id]: card } };
}

export function patchTool(state: ChatState, id: string, patch: Partial<ToolCard>): ChatState {
  const card = state.tools[id];
  return card ? withTool(state, { ...card, ...patch }) : state;
}

/** The last turn item (creating one when the transcript does not end with an open turn). */
export function openTurn(state: ChatState, turnId: string): [ChatState, TurnItem] {
  const last = state.items[state.items.length - 1];
  if (last && last.kind === 'turn' && !last.done) return [state, last];
  const [id, seq] = nextId(state, 't');
  const turn: TurnItem = { kind: 'turn', id, turnId, blocks: [], done: false };
  return [{ ...state, seq, items: [...state.items, turn] }, turn];
}

export function replaceTurn(state: ChatState, turn: TurnItem): ChatState {
  const items = state.items.map((i) => (i.id === turn.id ? turn : i));
  return { ...state, items };
}

export function addBlock(state: ChatState, turnId: string, block: Block): ChatState {
  const [s, turn] = openTurn(state, turnId);
  return replaceTurn(s, { ...turn, blocks: [...turn.blocks, block] });
}

export function appendText(state: ChatState, turnId: string, channel: 'text' | 'thinking' | 'answer', text: string): ChatState {
  const [s, turn] = openTurn(state, turnId);
  const last = turn.blocks[turn.blocks.length - 1];
  if (last && last.kind === 'text' && last.channel === channel) {
    const blocks = [...turn.blocks.slice(0, -1), { ...last, text: last.text + text }];
    return replaceTurn(s, { ...turn, blocks });
  }
  return replaceTurn(s, { ...turn, blocks: [...turn.blocks, { kind: 'text', channel, text }] });
}

export function pendingKey(step: number, index: number): string {
  return `pending:${step}:${index}`;
}

/** The network cut the calls still being written: their cards say so (docs/reliability.md). */
export function discardWriting(state: ChatState): ChatState {
  const tools = { ...state.tools };
  for (const [id, card] of Object.entries(tools)) {
    if (card.status === 'writing') tools[id] = { ...card, status: 'failed', error: 'discarded: the connection to the model failed' };
  }
  return { ...state, tools };
}

/** A queued call takes over the card its `toolPending` opened. */
export function queueTool(state: ChatState, turnId: string, card: ToolCard, index: number): ChatState {
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

export function fileCards(conf: Confirmation | null): FileCard[] | undefined {
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

export function ensureCard(state: ChatState, turnId: string, call: { id: string; name: string; index: number }, description: string): ChatState {
  if (state.tools[call.id]) return state;
  return queueTool(state, turnId, { id: call.id, name: call.name, description, status: 'queued', output: '' }, call.index);
}

/** A result's `display` as the card shows it: a view object as its JSON. */
export function displayText(display: string | Record<string, unknown> | undefined): string | undefined {
  return typeof display === 'object' ? JSON.stringify(display) : display;
}

/** The call a `valueRequested` belongs to (`callId`, or `call.id` as the docs have it). */
export function valueCallId(ev: { call?: { id: string }; callId?: string }): string {
  return ev.callId ?? ev.call?.id ?? '';
}

/** Cards still open when a turn is over can no longer change: mark them. */
export function settleTools(state: ChatState): ChatState {
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

export function closeOpenTurn(state: ChatState, stopReason: string): ChatState {
  const last = state.items[state.items.length - 1];
  if (!last || last.kind !== 'turn' || last.done) return state;
  return replaceTurn(state, { ...last, done: true, stopReason });
}

export function addNotice(state: ChatState, level: 'info' | 'error', text: string, action?: NoticeItem['action']): ChatState {
  const [id, seq] = nextId(state, 'n');
  return { ...state, seq, items: [...state.items, { kind: 'notice', id, level, text, action }] };
}

/**
 * A stored session as the server's `karyi/loadSession` returns it: its transcript
 * (docs/sessions.md), turn by turn, as the chat showed it live. Turns rewound out of
 * the conversation are told in one line where they were.
 */
export function loaded(state: ChatState, session: LoadedSession): ChatState {
  const queue = state.sessionId === session.sessionId ? state.queue : [];
  let s: ChatState = { ...emptyState(state.model), queue, sessionId: session.sessionId, title: session.title, todos: session.todos ?? [], mode: session.mode ?? 'act', plan: session.plan ?? '', cost: session.cost || null };
  let rewound = 0;
  for (const turn of session.transcript.turns) {
    if (turn.status === 'rewound') {
      rewound++;
      continue;
    }
    if (rewound) s = addNotice(s, 'info', rewoundNote(rewound));
    rewound = 0;
    s = loadedTurn(s, turn);
  }
  if (rewound) s = addNotice(s, 'info', rewoundNote(rewound));
  return s;
}

function rewoundNote(turns: number): string {
  return `↶ ${turns} turn${turns === 1 ? '' : 's'} rewound: no longer in the conversation`;
}

/** One stored turn: the user's message, then its prose, cards and notices. */
function loadedTurn(state: ChatState, turn: TranscriptTurn): ChatState {
  const [id, seq] = nextId(state, 'u');
  const user: UserItem = { kind: 'user', id, turnId: turn.id, text: turn.prompt, context: turn.context || undefined, images: turn.images.length ? turn.images : undefined };
  let s: ChatState = { ...state, seq, items: [...state.items, user] };
  for (const block of turn.blocks) {
    if (block.kind === 'text') s = appendText(s, turn.id, block.channel, block.text);
    else if (block.kind === 'notice') s = addBlock(s, turn.id, { kind: 'notice', level: 'info', text: block.text });
    else if (block.kind === 'steer') s = addBlock(s, turn.id, { kind: 'steer', text: block.text });
    else {
      s = withTool(s, storedCard(block));
      s = addBlock(s, turn.id, { kind: 'tool', id: block.id });
    }
  }
  const [opened, item] = openTurn(s, turn.id);
  return replaceTurn(opened, { ...item, done: true, stopReason: turn.stopReason ?? 'interrupted' });
}

/** A stored call's card: its status, what the user was shown, the files it changed. */
function storedCard(call: TranscriptCall): ToolCard {
  const status = call.status === 'invalid' ? 'failed' : call.status;
  const files: FileCard[] = call.files.map((f) => ({ path: f.path, uri: '', added: f.added, removed: f.removed, hunks: 0, created: f.created, deleted: f.deleted, state: 'accepted' }));
  return {
    id: call.id,
    name: call.name,
    description: call.description || call.name,
    status,
    output: '',
    display: call.summary || undefined,
    error: call.error ?? undefined,
    decision: call.decision || undefined,
    files: files.length ? files : undefined,
  };
}

/**
 * Messages back to the front of the queue, in order: what a turn ended before reading
 * (`ChatResult.unsent`, or what was steered when the turn failed), so none is lost.
 */
export function requeue(state: ChatState, texts: string[]): ChatState {
  if (!texts.length) return state;
  let s = state;
  const front: QueuedMessage[] = [];
  for (const text of texts) {
    const [id, seq] = nextId(s, 'q');
    s = { ...s, seq };
    front.push({ id, text });
  }
  return { ...s, queue: [...front, ...s.queue] };
}
