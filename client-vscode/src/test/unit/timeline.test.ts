import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatResult, LoadedSession, RewindResult, TranscriptTurn, TurnEvent } from '../../protocol';
import { parseFromWebview } from '../../shared/chat/messages';
import { rewindChoices, rewoundText, usersFiles } from '../../shared/chat/rewind';
import { type Action, type ChatState, emptyState, reduce, storable } from '../../shared/chat/state';
import { outgoing } from '../../views/chat/webview/composer';
import { initialView } from '../../views/chat/webview/store';

const S = 's1';
const up = (event: TurnEvent, turnId = 't1'): Action => ({ kind: 'update', update: { sessionId: S, turnId, event } });
const run = (actions: Action[], start: ChatState = emptyState()) => actions.reduce(reduce, start);
const started = (turnId: string, message: string): Action => up({ type: 'turnStarted', sessionId: S, turnId, message, mode: 'act' }, turnId);
const ended = (unsent: string[] = [], stopReason = 'end_turn'): Action => {
  const result: ChatResult = { sessionId: S, mode: 'act', turnId: 't1', stopReason, finalAnswer: null, usage: { inputTokens: 1, outputTokens: 1, cachedTokens: 0, cost: null }, unsent };
  return { kind: 'turnEnded', result };
};
const busy = () => run([{ kind: 'user', text: 'first' }, started('t1', 'first')]);

describe('the queue', () => {
  it('keeps messages in order, each editable and removable until sent', () => {
    let s = run([{ kind: 'queue', message: { text: 'second' } }, { kind: 'queue', message: { text: 'third', contextLabel: 'a.py:1-2' } }], busy());
    assert.deepEqual(s.queue.map((q) => q.text), ['second', 'third']);
    const [a, b] = s.queue;
    assert.notEqual(a.id, b.id);
    s = reduce(s, { kind: 'queueEdit', id: b.id, text: 'third, edited' });
    assert.deepEqual(s.queue.map((q) => q.text), ['second', 'third, edited']);
    assert.equal(s.queue[1].contextLabel, 'a.py:1-2', 'an edit keeps the context');
    s = reduce(s, { kind: 'queueRemove', id: a.id });
    assert.deepEqual(s.queue.map((q) => q.text), ['third, edited']);
    assert.equal(s.busy, true, 'queueing does not touch the running turn');
  });

  it('survives the stored state, a reload of the same session, not New chat or another session', () => {
    const s = run([{ kind: 'queue', message: { text: 'later' } }], busy());
    const stored = JSON.parse(JSON.stringify(storable(s))) as ChatState;
    assert.deepEqual(stored.queue.map((q) => q.text), ['later']);
    const session = (sessionId: string): LoadedSession => ({ sessionId, title: '', transcript: { sessionId, title: '', dialect: 'toolsxml', turns: [] }, todos: [], mode: 'act', plan: '', cost: 0 });
    assert.equal(reduce(s, { kind: 'loaded', session: session(S) }).queue.length, 1);
    assert.equal(reduce(s, { kind: 'loaded', session: session('other') }).queue.length, 0);
    assert.equal(reduce(s, { kind: 'reset' }).queue.length, 0);
  });
});

describe('steering', () => {
  it('shows a steered message as waiting until the model reads it, then where it went in', () => {
    let s = reduce(busy(), { kind: 'steering', text: 'use pytest' });
    assert.deepEqual(s.steering, ['use pytest']);
    s = reduce(s, up({ type: 'steered', text: 'use pytest' }));
    assert.deepEqual(s.steering, []);
    const turn = s.items.at(-1);
    assert.ok(turn?.kind === 'turn' && turn.blocks.some((b) => b.kind === 'steer' && b.text === 'use pytest'));
  });

  it("puts what the turn did not read at the front of the queue (the server's unsent)", () => {
    let s = run([{ kind: 'queue', message: { text: 'queued before' } }, { kind: 'steering', text: 'too late' }], busy());
    s = reduce(s, ended(['too late']));
    assert.equal(s.busy, false);
    assert.deepEqual(s.steering, []);
    assert.deepEqual(s.queue.map((q) => q.text), ['too late', 'queued before']);
  });

  it('keeps what was steered when the turn fails or the server stops', () => {
    const failed = run([{ kind: 'steering', text: 'a' }, { kind: 'turnEnded', error: 'boom' }], busy());
    assert.deepEqual(failed.queue.map((q) => q.text), ['a']);
    const stopped = run([{ kind: 'steering', text: 'b' }, { kind: 'serverStopped', message: 'gone' }], busy());
    assert.deepEqual(stopped.queue.map((q) => q.text), ['b']);
  });

  it('takes back a steer the server refused (it is then sent as a message)', () => {
    const s = run([{ kind: 'steering', text: 'x' }, { kind: 'steering', text: 'x', drop: true }], busy());
    assert.deepEqual(s.steering, []);
  });
});

describe('the composer while a turn runs', () => {
  const typed = (busyNow: boolean, draft: string) => {
    const v = initialView();
    return { ...v, chat: { ...v.chat, busy: busyNow }, ui: { ...v.ui, draft } };
  };

  it('sends Enter to be queued and Ctrl+Enter into the turn; idle, Ctrl+Enter is a plain send', () => {
    const [queued] = outgoing(typed(true, 'after this')) ?? [];
    assert.deepEqual(queued && { type: queued.type, now: 'now' in queued ? queued.now : undefined }, { type: 'send', now: undefined });
    const [now, after] = outgoing(typed(true, 'use pytest'), true) ?? [];
    assert.ok(now?.type === 'send' && now.now === true);
    assert.equal(after?.ui.draft, '', 'the input is emptied');
    const [idle] = outgoing(typed(false, 'hello'), true) ?? [];
    assert.ok(idle?.type === 'send' && idle.now === undefined);
  });

  it('accepts the new messages from the webview and drops malformed ones', () => {
    assert.ok(parseFromWebview({ type: 'queued', id: 'q1', action: 'edit', text: 'x' }));
    assert.equal(parseFromWebview({ type: 'queued', id: 'q1', action: 'edit' }), undefined);
    assert.equal(parseFromWebview({ type: 'queued', id: 'q1', action: 'explode' }), undefined);
    assert.ok(parseFromWebview({ type: 'rewind', turnId: 't1' }));
    assert.equal(parseFromWebview({ type: 'fork' }), undefined);
  });
});

describe('rewind and fork', () => {
  const dry: RewindResult = {
    sessionId: S, turnId: 't1', prompt: 'Fix it', turns: 2, checkpoint: 'c1', done: false, conversation: true, restored: [], kept: [], undoCheckpoint: null,
    files: [{ path: 'src/a.py', effect: 'modified', byAgent: true }, { path: 'notes.txt', effect: 'modified', byAgent: false }],
  };

  it('offers the three choices with the files each would change, naming the user\'s own', () => {
    const choices = rewindChoices(dry);
    assert.deepEqual(choices.map((c) => c.restore), ['both', 'conversation', 'code']);
    assert.match(choices[0].description, /2 turns leave the conversation; 2 files restored/);
    assert.match(choices[0].detail, /src\/a\.py \(modified\), notes\.txt \(yours: kept unless you pick it\)/);
    assert.match(choices[1].description, /the files stay as they are/);
    assert.deepEqual(usersFiles(dry, 'both').map((f) => f.path), ['notes.txt']);
    assert.deepEqual(usersFiles(dry, 'conversation'), []);
    assert.match(rewindChoices({ ...dry, checkpoint: null, files: [] })[2].detail, /No file changed since/);
  });

  it('says what was done, and the chat reloaded after it shows the rewound turns in one line', () => {
    const done = { ...dry, done: true, restored: ['src/a.py'], kept: ['notes.txt'], undoCheckpoint: 'c9' };
    assert.equal(rewoundText(done), '↶ Rewound: 2 turns rewound out of the conversation; restored src/a.py; kept your changes to notes.txt; the files from before are in checkpoint c9. Your message is back in the input.');
    const turn = (id: string, status: TranscriptTurn['status']): TranscriptTurn => ({ id, prompt: id, context: '', images: [], blocks: [], stopReason: 'end_turn', inputTokens: 0, outputTokens: 0, checkpoint: null, status });
    const session: LoadedSession = { sessionId: S, title: 'x', transcript: { sessionId: S, title: 'x', dialect: 'toolsxml', turns: [turn('t0', 'live'), turn('t1', 'rewound'), turn('t2', 'rewound')] }, todos: [], mode: 'act', plan: '', cost: 0 };
    const s = run([{ kind: 'loaded', session }, { kind: 'notice', level: 'info', text: rewoundText(done) }], busy());
    assert.deepEqual(s.items.map((i) => i.kind), ['user', 'turn', 'notice', 'notice']);
    assert.ok(s.items[2].kind === 'notice' && /2 turns rewound/.test(s.items[2].text));
    assert.equal(s.busy, false);
  });

  it('shows a fork as its own session, each user message with its turn', () => {
    const forked: LoadedSession = {
      sessionId: 'fork1', title: 'Fix it (fork)', todos: [], mode: 'act', plan: '', cost: 0,
      transcript: { sessionId: 'fork1', title: 'Fix it (fork)', dialect: 'toolsxml', turns: [{ id: 't0', prompt: 'Fix it', context: '', images: [], blocks: [{ kind: 'text', channel: 'text', text: 'Done.' }], stopReason: 'end_turn', inputTokens: 0, outputTokens: 0, checkpoint: null, status: 'live' }] },
    };
    const s = run([{ kind: 'queue', message: { text: 'for the old session' } }, ended(), { kind: 'loaded', session: forked }], busy());
    assert.equal(s.sessionId, 'fork1');
    assert.equal(s.title, 'Fix it (fork)');
    assert.deepEqual(s.queue, [], "the old session's queue is not the fork's");
    assert.ok(s.items[0].kind === 'user' && s.items[0].turnId === 't0');
  });
});
