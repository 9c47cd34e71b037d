/**
 * What each event of `karyi/turnUpdate` does to the chat state: one small reducer per
 * event kind, in a table typed by the protocol's union, so an event kind the server
 * adds and this table lacks fails to compile.
 */
import type { TurnEvent, TurnUpdate } from '../../protocol';
import {
  addBlock,
  addNotice,
  appendText,
  discardWriting,
  displayText,
  ensureCard,
  fileCards,
  openTurn,
  patchTool,
  pendingKey,
  queueTool,
  replaceTurn,
  settleTools,
  usageOf,
  valueCallId,
  withTool,
} from './transcript';
import type { ChatState, FileState, ToolCard, ToolStatus, TurnItem } from './types';

type Reducer<K extends TurnEvent['type']> = (s: ChatState, ev: Extract<TurnEvent, { type: K }>, turnId: string) => ChatState;

const OUTPUT_LIMIT = 64_000;

/** Notice topics the chat shows as an info line in the turn (the others are not shown). */
const INFO_TOPICS = new Set(['checkpoint', 'sandbox', 'changed_files', 'retry', 'compaction', 'recovery']);

const unchanged = (s: ChatState): ChatState => s;

const toolAwaitingPermission: Reducer<'toolAwaitingPermission'> = (state, ev, turnId) => {
  const s = ensureCard(state, turnId, ev.call, ev.description);
  const c = ev.confirmation;
  return patchTool(s, ev.call.id, {
    status: 'awaiting',
    description: ev.description,
    reason: ev.reason,
    confirmation: c ? { kind: c.kind, title: c.title, details: c.details, url: c.url, diff: c.files ? null : c.diff } : undefined,
    files: fileCards(c),
  });
};

const toolDone: Reducer<'toolDone'> = (state, ev, turnId) => {
  const s = ensureCard(state, turnId, ev.call, ev.call.name);
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
};

const notice: Reducer<'notice'> = (s, ev, turnId) => {
  if (ev.topic === 'network') return addBlock(discardWriting(s), turnId, { kind: 'notice', level: 'error', text: ev.message });
  // A session that is not being saved (a full or read-only disk): docs/reliability.md.
  if (ev.topic === 'storage') return addBlock(s, turnId, { kind: 'notice', level: 'error', text: ev.message });
  return INFO_TOPICS.has(ev.topic) ? addBlock(s, turnId, { kind: 'notice', level: 'info', text: ev.message }) : s;
};

/** What a hook did, in the words of cli/view.py's hook_line (docs/workflow.md#hooks). */
const hook: Reducer<'hook'> = (s, ev, turnId) => {
  const said = ev.stderr || ev.stdout;
  if (ev.status === 'ok' && (ev.event !== 'turnEnd' || !ev.stdout)) return s;
  const verb = ev.status === 'ok' ? '' : ({ blocked: ' blocked it', reported: ' reported to the model' } as Record<string, string>)[ev.status] ?? ' failed';
  const text = ev.status === 'ok' ? `${ev.event} hook: ${ev.stdout}` : `${ev.event} hook \`${ev.command}\`${verb}${said ? `: ${said}` : ''}`;
  const level = ev.status === 'failed' ? 'error' : 'info';
  // A turnEnd hook reports after turnFinished: a notice of its own, not a new turn.
  const last = s.items[s.items.length - 1];
  if (last?.kind === 'turn' && last.done) return addNotice(s, level, text);
  return addBlock(s, turnId, { kind: 'notice', level, text });
};

const turnFinished: Reducer<'turnFinished'> = (s, ev, turnId) => {
  const [s2, turn] = openTurn(s, turnId);
  let blocks = turn.blocks;
  const hasText = blocks.some((b) => b.kind === 'text' && b.channel !== 'thinking' && b.text.trim());
  if (ev.finalAnswer && !hasText) blocks = [...blocks, { kind: 'text', channel: 'answer', text: ev.finalAnswer }];
  const done: TurnItem = { ...turn, blocks, done: true, stopReason: ev.stopReason, steps: ev.steps, usage: usageOf(ev) };
  const plan = s2.mode === 'plan' && ev.finalAnswer ? ev.finalAnswer : s2.plan;
  const cost = typeof ev.sessionCost === 'number' ? ev.sessionCost : s2.cost;
  return settleTools({ ...replaceTurn(s2, done), busy: false, plan, cost });
};

/** One reducer per event kind of `karyi/turnUpdate`. */
const UPDATES: { [K in TurnEvent['type']]: Reducer<K> } = {
  turnStarted: (s, ev) => {
    const mode = ev.mode ?? s.mode;
    return openTurn({ ...withTurnId(s, ev.turnId), busy: true, step: 0, mode, plan: mode === 'act' ? '' : s.plan }, ev.turnId)[0];
  },
  mode: (s, ev) => ({ ...s, mode: ev.mode, plan: ev.plan }),
  step: (s, ev) => ({ ...s, step: ev.step, model: ev.model || s.model }),
  steered: (s, ev, turnId) => {
    const i = s.steering.indexOf(ev.text);
    const steering = i < 0 ? s.steering : [...s.steering.slice(0, i), ...s.steering.slice(i + 1)];
    return addBlock({ ...s, steering }, turnId, { kind: 'steer', text: ev.text });
  },
  text: (s, ev, turnId) => (ev.text ? appendText(s, turnId, ev.channel, ev.text) : s),
  toolPending: (s, ev, turnId) => {
    const key = pendingKey(s.step, ev.index);
    if (s.tools[key]) return s;
    const writing = withTool(s, { id: key, name: ev.name, description: `${ev.name}…`, status: 'writing', output: '' });
    return addBlock(writing, turnId, { kind: 'tool', id: key });
  },
  toolDraft: (s, ev) => {
    const card = s.tools[pendingKey(s.step, ev.index)];
    const f = ev.files[0];
    if (ev.done || !card || !f) return s;
    return withTool(s, { ...card, description: `Writing ${f.path} (+${f.added} −${f.removed} so far)…` });
  },
  toolQueued: (s, ev, turnId) => {
    const card: ToolCard = { id: ev.call.id, name: ev.call.name, description: ev.description, status: 'queued', output: '' };
    return queueTool(s, turnId, card, ev.call.index);
  },
  toolAwaitingPermission,
  valueRequested: (s, ev, turnId) => {
    const id = valueCallId(ev);
    const asked = ensureCard(s, turnId, { id, name: 'get_value', index: -1 }, `get_value ${ev.key}`);
    return patchTool(asked, id, { status: 'value', value: { key: ev.key, reason: ev.reason, note: ev.note, exists: ev.exists } });
  },
  toolRunning: (s, ev, turnId) => patchTool(ensureCard(s, turnId, ev.call, ev.call.name), ev.call.id, { status: 'running' }),
  toolOutput: (s, ev) => {
    const card = s.tools[ev.callId];
    if (!card) return s;
    return patchTool(s, ev.callId, { output: (card.output + ev.text).slice(-OUTPUT_LIMIT) });
  },
  toolDone,
  fileChanged: unchanged,
  notice,
  todos: (s, ev) => ({ ...s, todos: ev.items }),
  hook,
  usage: (s, ev, turnId) => {
    const [s2, turn] = openTurn({ ...s, cost: typeof ev.sessionCost === 'number' ? ev.sessionCost : s.cost }, turnId);
    return replaceTurn(s2, { ...turn, usage: usageOf(ev) });
  },
  error: (s, ev, turnId) => addBlock(s, turnId, { kind: 'notice', level: 'error', text: ev.message }),
  turnFinished,
  subagent: unchanged,
};

/** The state after one `karyi/turnUpdate` (the update names its session: the state takes it). */
/** The last user message gets the turn it started: what rewind and fork name. */
function withTurnId(state: ChatState, turnId: string): ChatState {
  const at = state.items.length - 1;
  const last = state.items[at];
  if (!last || last.kind !== 'user' || last.turnId) return state;
  return { ...state, items: [...state.items.slice(0, at), { ...last, turnId }] };
}

export function applyUpdate(state: ChatState, update: TurnUpdate): ChatState {
  const s: ChatState = state.sessionId === update.sessionId ? state : { ...state, sessionId: update.sessionId };
  // An event kind this extension does not know (a newer server) changes nothing.
  const reducer = UPDATES[update.event.type] as Reducer<TurnEvent['type']> | undefined;
  return reducer ? reducer(s, update.event, update.turnId) : s;
}
