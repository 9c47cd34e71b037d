/**
 * The chat transcript as a pure reducer over actions (user messages, server turn
 * updates, preview decisions, server stops). The extension host keeps the state (it
 * survives a reloaded webview and a restarted server); the webview runs the same
 * reducer on the same actions to render incrementally.
 */
import type { Action, ChatState, ToolCard, TurnState, UserItem } from './types';
import { addNotice, closeOpenTurn, emptyState, loaded, nextId, patchTool, replaceTurn, requeue, settleTools } from './transcript';
import { applyUpdate } from './updates';

export type * from './types';
export { emptyState, valueCallId } from './transcript';

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

/** The state as the workspace keeps it across windows: pictures by name only (their
 * bytes stay in the session store, and `karyi/loadSession` brings them back). */
export function storable(state: ChatState): ChatState {
  const items = state.items.map((i) => (i.kind === 'user' && i.images ? { ...i, images: i.images.map((img) => ({ ...img, data: '' })) } : i));
  return { ...state, items };
}

type Reducer<K extends Action['kind']> = (state: ChatState, action: Extract<Action, { kind: K }>) => ChatState;

/** One reducer per kind of action, typed so that a kind without one fails to compile. */
const ACTIONS: { [K in Action['kind']]: Reducer<K> } = {
  reset: (state) => ({ ...emptyState(state.model), mode: state.mode }),
  user: (state, action) => {
    const [id, seq] = nextId(state, 'u');
    const item: UserItem = { kind: 'user', id, text: action.text, context: action.context, images: action.images?.length ? action.images : undefined };
    return { ...state, seq, busy: true, items: [...state.items, item] };
  },
  update: (state, action) => applyUpdate(state, action.update),
  turnEnded: (state, action) => {
    let s = state;
    if (action.result && !s.sessionId) s = { ...s, sessionId: action.result.sessionId };
    if (action.error) s = addNotice(closeOpenTurn(s, 'error'), 'error', action.error);
    const last = s.items[s.items.length - 1];
    if (action.result && last?.kind === 'turn' && !last.done) {
      s = replaceTurn(s, { ...last, done: true, stopReason: action.result.stopReason, usage: action.result.usage });
    }
    // What was steered and not read goes first in the queue: the server says which
    // (`unsent`); without its answer, all that was steered.
    s = requeue({ ...s, steering: [] }, action.result ? (action.result.unsent ?? []) : s.steering);
    return settleTools({ ...s, busy: false });
  },
  fileState: (state, action) => {
    const card = state.tools[action.callId];
    if (!card?.files) return state;
    const files = card.files.map((f) => (f.path === action.path ? { ...f, state: action.state, note: action.note } : f));
    return patchTool(state, action.callId, { files });
  },
  valueAnswered: (state, action) => {
    const card = state.tools[action.callId];
    if (!card?.value) return state;
    // The call may already be done (its toolDone can arrive before the answer's reply).
    const status = card.status === 'value' ? 'running' : card.status;
    return patchTool(state, action.callId, { value: { ...card.value, answered: action.answer }, status });
  },
  notice: (state, action) => addNotice(state, action.level, action.text, action.action),
  serverStopped: (state, action) => {
    if (!state.busy) return addNotice(state, 'error', action.message, 'restart');
    const s = settleTools({ ...closeOpenTurn(requeue({ ...state, steering: [] }, state.steering), 'error'), busy: false });
    return addNotice(s, 'error', action.message, 'restart');
  },
  loaded: (state, action) => loaded(state, action.session),
  model: (state, action) => ({ ...state, model: action.model }),
  modelState: (state, action) => {
    const m = action.state;
    if (state.sessionId && m.sessionId !== state.sessionId) return state;
    return { ...state, sessionId: m.sessionId ?? state.sessionId, model: m.model, contextUse: { used: m.contextUsed, window: m.contextWindow } };
  },
  mode: (state, action) => ({ ...state, mode: action.mode, plan: action.plan ?? state.plan }),
  queue: (state, action) => {
    const [id, seq] = nextId(state, 'q');
    const message = { ...action.message, id };
    return { ...state, seq, queue: action.front ? [message, ...state.queue] : [...state.queue, message] };
  },
  queueEdit: (state, action) => ({ ...state, queue: state.queue.map((q) => (q.id === action.id ? { ...q, text: action.text, display: undefined } : q)) }),
  queueRemove: (state, action) => ({ ...state, queue: state.queue.filter((q) => q.id !== action.id) }),
  steering: (state, action) => {
    if (!action.drop) return { ...state, steering: [...state.steering, action.text] };
    const i = state.steering.indexOf(action.text);
    return i < 0 ? state : { ...state, steering: [...state.steering.slice(0, i), ...state.steering.slice(i + 1)] };
  },
};

/** The state after `action` (an action of an unknown kind changes nothing). */
export function reduce(state: ChatState, action: Action): ChatState {
  const reducer = ACTIONS[action.kind] as Reducer<Action['kind']> | undefined;
  return reducer ? reducer(state, action) : state;
}
