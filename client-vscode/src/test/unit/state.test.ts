import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Action, type ChatState, emptyState, reduce, turnState } from '../../shared/chat/state';
import type { TranscriptTurn, TurnEvent } from '../../protocol';

const S = 'sess1';
const T = 'turn1';
const up = (event: TurnEvent): Action => ({ kind: 'update', update: { sessionId: S, turnId: T, event } });
const call = (id: string, name = 'write', index = 0) => ({ index, id, name, params: {}, error: null });
const run = (actions: Action[], start: ChatState = emptyState()) => actions.reduce(reduce, start);
const result = (success = true) => ({ success, llm_content: '', display: success ? 'ok' : 'bad', data: null, error: success ? null : { code: 'x', message: 'boom' }, metadata: {} });

describe('chat reducer', () => {
  it('streams text into one block per channel and finishes with usage', () => {
    const s = run([
      { kind: 'user', text: 'hi' },
      up({ type: 'turnStarted', sessionId: S, turnId: T, message: 'hi', mode: 'act' }),
      up({ type: 'step', step: 1, model: 'openai:fake' }),
      up({ type: 'text', text: 'let me ', channel: 'thinking' }),
      up({ type: 'text', text: 'think', channel: 'thinking' }),
      up({ type: 'text', text: 'Hel', channel: 'text' }),
      up({ type: 'text', text: 'lo', channel: 'text' }),
      up({ type: 'turnFinished', turnId: T, stopReason: 'end_turn', finalAnswer: null, inputTokens: 10, outputTokens: 3, steps: 1, cachedTokens: 8, turnCost: null, sessionCost: null }),
    ]);
    assert.equal(s.sessionId, S);
    assert.equal(s.model, 'openai:fake');
    assert.equal(s.items.length, 2);
    const turn = s.items[1];
    assert.equal(turn.kind, 'turn');
    if (turn.kind !== 'turn') return;
    assert.deepEqual(turn.blocks, [
      { kind: 'text', channel: 'thinking', text: 'let me think' },
      { kind: 'text', channel: 'text', text: 'Hello' },
    ]);
    assert.equal(turn.done, true);
    assert.deepEqual(turn.usage, { inputTokens: 10, outputTokens: 3, cachedTokens: 8 });
    assert.equal(s.busy, false);
    assert.equal(turnState(s), 'idle');
  });

  it('follows a tool call from pending to done, in place', () => {
    let s = run([
      { kind: 'user', text: 'fix it' },
      up({ type: 'turnStarted', sessionId: S, turnId: T, message: 'fix it', mode: 'act' }),
      up({ type: 'step', step: 1, model: 'm' }),
      up({ type: 'toolPending', index: 0, name: 'write' }),
    ]);
    assert.equal(turnState(s), 'thinking');
    s = run([up({ type: 'toolQueued', call: call('c1'), description: 'Write a.py' })], s);
    assert.deepEqual(Object.keys(s.tools), ['c1']);
    const turn = s.items[1];
    assert.ok(turn.kind === 'turn' && turn.blocks.length === 1 && turn.blocks[0].kind === 'tool' && turn.blocks[0].id === 'c1');
    s = run([
      up({
        type: 'toolAwaitingPermission',
        call: call('c1'),
        description: 'Write a.py',
        reason: '',
        confirmation: {
          kind: 'edit', title: 'Edit a.py', details: '', diff: '--- a', url: null, sandboxed: null, always: true,
          files: [{ uri: 'file:///w/a.py', path: 'a.py', version: 1, created: false, deleted: false, added: 2, removed: 1, original: '', proposed: '', edits: [], hunks: [], unified: '' }],
        },
      }),
    ], s);
    assert.equal(turnState(s), 'awaiting');
    assert.equal(s.tools.c1.files?.[0].state, 'pending');
    s = run([{ kind: 'fileState', callId: 'c1', path: 'a.py', state: 'partial' }], s);
    assert.equal(s.tools.c1.files?.[0].state, 'partial');
    s = run([up({ type: 'toolRunning', call: call('c1') })], s);
    assert.equal(turnState(s), 'tool');
    s = run([
      up({ type: 'toolOutput', callId: 'c1', text: 'out1 ' }),
      up({ type: 'toolOutput', callId: 'c1', text: 'out2' }),
      up({ type: 'toolDone', call: call('c1'), result: result(), decision: 'modified', seconds: 0.5 }),
    ], s);
    assert.equal(s.tools.c1.status, 'done');
    assert.equal(s.tools.c1.output, 'out1 out2');
    assert.equal(s.tools.c1.seconds, 0.5);
    assert.equal(s.tools.c1.files?.[0].state, 'partial');
  });

  it('an edit cancelled while awaiting the user reads cancelled, its files not accepted', () => {
    const awaiting = up({
      type: 'toolAwaitingPermission',
      call: call('c1'),
      description: 'Edit a.py',
      reason: '',
      confirmation: {
        kind: 'edit', title: 'Edit a.py', details: '', diff: '--- a', url: null, sandboxed: null, always: true,
        files: [{ uri: 'file:///w/a.py', path: 'a.py', version: 1, created: false, deleted: false, added: 2, removed: 1, original: '', proposed: '', edits: [], hunks: [], unified: '' }],
      },
    });
    const cancelled = { ...result(false), display: 'edit was cancelled', error: { code: 'cancelled', message: 'edit was cancelled' } };
    const s = run([
      up({ type: 'turnStarted', sessionId: S, turnId: T, message: 'x', mode: 'act' }),
      awaiting,
      up({ type: 'toolDone', call: call('c1'), result: cancelled, decision: 'approved', seconds: 0 }),
    ]);
    assert.equal(s.tools.c1.status, 'cancelled');
    assert.equal(s.tools.c1.files?.[0].state, 'rejected');
    // The turn ends with the card still waiting (no toolDone): cancelled too, not failed.
    const ended = run([
      up({ type: 'turnStarted', sessionId: S, turnId: T, message: 'x', mode: 'act' }),
      awaiting,
      up({ type: 'turnFinished', turnId: T, stopReason: 'cancelled', finalAnswer: null, inputTokens: 0, outputTokens: 0, steps: 1, cachedTokens: 0, turnCost: null, sessionCost: null }),
    ]);
    assert.equal(ended.tools.c1.status, 'cancelled');
    assert.equal(ended.tools.c1.files?.[0].state, 'rejected');
  });

  it('a rejected call is shown as rejected', () => {
    const s = run([
      up({ type: 'turnStarted', sessionId: S, turnId: T, message: 'x', mode: 'act' }),
      up({ type: 'toolQueued', call: call('c1', 'run_command'), description: 'Run ls' }),
      up({ type: 'toolDone', call: call('c1', 'run_command'), result: result(false), decision: 'rejected', seconds: 0 }),
    ]);
    assert.equal(s.tools.c1.status, 'rejected');
  });

  it('a command card says whether it ran sandboxed, and the sandbox notice shows', () => {
    const s = run([
      up({ type: 'turnStarted', sessionId: S, turnId: T, message: 'x', mode: 'act' }),
      up({ type: 'notice', topic: 'sandbox', message: 'Commands run without the OS sandbox' }),
      up({ type: 'toolQueued', call: call('c1', 'run_command'), description: 'Run ls' }),
      up({ type: 'toolDone', call: call('c1', 'run_command'), result: { ...result(), metadata: { sandboxed: true } }, decision: 'auto', seconds: 0 }),
      up({ type: 'toolQueued', call: call('c2', 'run_command'), description: 'Run pip' }),
      up({ type: 'toolDone', call: call('c2', 'run_command'), result: { ...result(), metadata: { sandboxed: false } }, decision: 'approved', seconds: 0 }),
      up({ type: 'toolQueued', call: call('c3', 'read_file'), description: 'Read a' }),
      up({ type: 'toolDone', call: call('c3', 'read_file'), result: result(), decision: 'auto', seconds: 0 }),
    ]);
    assert.equal(s.tools.c1.sandboxed, true);
    assert.equal(s.tools.c2.sandboxed, false);
    assert.equal(s.tools.c3.sandboxed, undefined);
    const turn = s.items[0];
    assert.ok(turn.kind === 'turn' && turn.blocks.some((b) => b.kind === 'notice' && /sandbox/.test(b.text)));
  });

  it('a session that is not being saved says so as an error, an edit undone at start as a notice', () => {
    const s = run([
      up({ type: 'turnStarted', sessionId: S, turnId: T, message: 'x', mode: 'act' }),
      up({ type: 'notice', topic: 'recovery', message: 'Karyi undid an edit that was cut off when it stopped (process 7)' }),
      up({ type: 'notice', topic: 'storage', message: 'This session is not being saved: the disk is full' }),
    ]);
    const turn = s.items[0];
    assert.ok(turn.kind === 'turn');
    assert.deepEqual(
      turn.blocks.filter((b) => b.kind === 'notice'),
      [
        { kind: 'notice', level: 'info', text: 'Karyi undid an edit that was cut off when it stopped (process 7)' },
        { kind: 'notice', level: 'error', text: 'This session is not being saved: the disk is full' },
      ],
    );
  });

  it('a network cut while the model writes a call shows the failure and discards the card', () => {
    const s = run([
      up({ type: 'turnStarted', sessionId: S, turnId: T, message: 'x', mode: 'act' }),
      up({ type: 'toolPending', index: 0, name: 'edit' }),
      up({ type: 'notice', topic: 'network', message: 'the connection to the model failed while it was writing the edit call' }),
    ]);
    const [card] = Object.values(s.tools);
    assert.equal(card.status, 'failed');
    assert.equal(card.error, 'discarded: the connection to the model failed');
    const turn = s.items[0];
    assert.ok(turn.kind === 'turn' && turn.blocks.some((b) => b.kind === 'notice' && b.level === 'error' && /connection/.test(b.text)));
  });

  it('a value request waits for the user and never holds the value', () => {
    let s = run([
      up({ type: 'turnStarted', sessionId: S, turnId: T, message: 'x', mode: 'act' }),
      up({ type: 'toolQueued', call: call('c2', 'get_value'), description: 'get_value TOKEN' }),
      up({ type: 'valueRequested', callId: 'c2', key: 'TOKEN', reason: 'deploy', note: '', exists: false }),
    ]);
    assert.equal(s.tools.c2.value?.key, 'TOKEN');
    assert.equal(turnState(s), 'awaiting');
    s = reduce(s, { kind: 'valueAnswered', callId: 'c2', answer: 'given' });
    assert.equal(s.tools.c2.value?.answered, 'given');
    assert.doesNotMatch(JSON.stringify(s), /secret/);
    // The call's toolDone may come before the answer's reply: it stays done.
    s = run([
      up({ type: 'toolDone', call: call('c2', 'get_value'), result: result(), decision: 'auto', seconds: 0.1 }),
      { kind: 'valueAnswered', callId: 'c2', answer: 'given' },
      up({ type: 'turnFinished', turnId: T, stopReason: 'end_turn', finalAnswer: null, inputTokens: 1, outputTokens: 1, steps: 2, cachedTokens: 0, turnCost: null, sessionCost: null }),
    ], s);
    assert.equal(s.tools.c2.status, 'done');
  });

  it('a server crash mid-turn closes the turn, keeps the transcript and offers a restart', () => {
    const s = run([
      { kind: 'user', text: 'go' },
      up({ type: 'turnStarted', sessionId: S, turnId: T, message: 'go', mode: 'act' }),
      up({ type: 'text', text: 'partial answer', channel: 'text' }),
      up({ type: 'toolQueued', call: call('c1', 'run_command'), description: 'Run tests' }),
      up({ type: 'toolRunning', call: call('c1', 'run_command') }),
      { kind: 'serverStopped', message: 'The Karyi server stopped unexpectedly.' },
    ]);
    assert.equal(s.busy, false);
    assert.equal(s.items.length, 3);
    const last = s.items[2];
    assert.ok(last.kind === 'notice' && last.action === 'restart' && last.level === 'error');
    const turn = s.items[1];
    assert.ok(turn.kind === 'turn' && turn.done && turn.blocks[0].kind === 'text');
    assert.equal(s.tools.c1.status, 'failed');
    assert.equal(s.sessionId, S);
  });

  it('a failed request ends the turn with the error; a final answer without text is shown', () => {
    let s = run([{ kind: 'user', text: 'x' }, { kind: 'turnEnded', error: 'Karyi: model provider: no API key' }]);
    assert.equal(s.busy, false);
    assert.ok(s.items.some((i) => i.kind === 'notice' && /no API key/.test(i.text)));
    s = run([
      up({ type: 'turnStarted', sessionId: S, turnId: T, message: 'x', mode: 'act' }),
      up({ type: 'turnFinished', turnId: T, stopReason: 'final_answer', finalAnswer: 'Done.', inputTokens: 1, outputTokens: 1, steps: 1, cachedTokens: 0, turnCost: null, sessionCost: null }),
    ]);
    const turn = s.items[0];
    assert.ok(turn.kind === 'turn' && turn.blocks.some((b) => b.kind === 'text' && b.text === 'Done.'));
  });

  it('loads a stored session as a transcript', () => {
    const turn = (id: string, prompt: string, status: 'live' | 'rewound', blocks: TranscriptTurn['blocks']): TranscriptTurn => ({
      id, prompt, context: '', images: [], blocks, stopReason: 'end_turn', inputTokens: 1, outputTokens: 1, checkpoint: null, status,
    });
    const call: TranscriptTurn['blocks'][number] = {
      kind: 'call', id: 'k1', name: 'edit', description: 'Edit a.py', params: {}, status: 'done', decision: 'accepted', summary: 'Edited a.py', error: null,
      files: [{ path: 'a.py', added: 2, removed: 1, created: false, deleted: false }], output: 'Edited a.py',
    };
    const s = reduce(emptyState('m'), {
      kind: 'loaded',
      session: {
        sessionId: 'old',
        title: 'Fix the test',
        transcript: {
          sessionId: 'old', title: 'Fix the test', dialect: 'toolsxml',
          turns: [
            turn('t1', 'fix the test', 'live', [{ kind: 'text', channel: 'text', text: 'Editing.' }, call, { kind: 'text', channel: 'text', text: 'Fixed.' }]),
            turn('t2', 'undone', 'rewound', []),
          ],
        },
        todos: [],
        mode: 'act',
        plan: '',
        cost: 0,
      },
    });
    assert.equal(s.sessionId, 'old');
    assert.deepEqual(s.items.map((i) => i.kind), ['user', 'turn', 'notice']);
    const [user, done, notice] = s.items;
    assert.ok(user.kind === 'user' && user.text === 'fix the test' && user.turnId === 't1');
    assert.ok(done.kind === 'turn' && done.done && done.blocks.map((b) => b.kind).join() === 'text,tool,text');
    assert.ok(notice.kind === 'notice' && /1 turn rewound/.test(notice.text));
    assert.equal(s.tools.k1.status, 'done');
    assert.equal(s.tools.k1.description, 'Edit a.py');
    assert.equal(s.tools.k1.files?.[0].added, 2);
    assert.equal(s.model, 'm');
  });

  it('gives the user message the turn it started', () => {
    const s = run([{ kind: 'user', text: 'x' }, up({ type: 'turnStarted', sessionId: S, turnId: T, message: 'x', mode: 'act' })]);
    const user = s.items[0];
    assert.ok(user.kind === 'user' && user.turnId === T);
  });

  it('reset keeps the model and empties the transcript', () => {
    const s = run([{ kind: 'model', model: 'x:y' }, { kind: 'user', text: 'a' }, { kind: 'reset' }]);
    assert.deepEqual(s, emptyState('x:y'));
  });

  it('keeps the latest task list, and a loaded session brings its own', () => {
    const first = [{ id: '1', text: 'Read', status: 'in_progress' as const }];
    const second = [{ id: '1', text: 'Read', status: 'done' as const }, { id: '2', text: 'Fix', status: 'pending' as const }];
    let s = run([up({ type: 'todos', items: first }), up({ type: 'todos', items: second })]);
    assert.deepEqual(s.todos, second);
    s = reduce(s, { kind: 'loaded', session: { sessionId: 'x', title: '', transcript: { sessionId: 'x', title: '', dialect: 'toolsxml', turns: [] }, todos: first, mode: 'act', plan: '', cost: 0 } });
    assert.deepEqual(s.todos, first);
    assert.deepEqual(reduce(s, { kind: 'reset' }).todos, []);
  });

  it('follows the mode: a plan answer becomes the pending plan, the act turn clears it', () => {
    let s = run([
      { kind: 'mode', mode: 'plan' },
      { kind: 'user', text: 'say hello' },
      up({ type: 'turnStarted', sessionId: S, turnId: T, message: 'say hello', mode: 'plan' }),
      up({ type: 'turnFinished', turnId: T, stopReason: 'end_turn', finalAnswer: '1. greet', inputTokens: 1, outputTokens: 1, steps: 1, cachedTokens: 0, turnCost: null, sessionCost: null }),
    ]);
    assert.equal(s.mode, 'plan');
    assert.equal(s.plan, '1. greet');
    s = run([{ kind: 'mode', mode: 'act', plan: '1. greet warmly' }], s);
    assert.deepEqual([s.mode, s.plan], ['act', '1. greet warmly']);
    s = run([up({ type: 'turnStarted', sessionId: S, turnId: 't2', message: 'go', mode: 'act' })], s);
    assert.deepEqual([s.mode, s.plan], ['act', '']);
    assert.equal(reduce(s, { kind: 'reset' }).mode, 'act');
  });

  it('shows what a hook blocked or reported, and nothing for a quiet one', () => {
    const hook = { command: './guard', tool: 'command', exitCode: 2, stdout: '', stderr: 'no rm', seconds: 0.1 };
    const s = run([
      up({ type: 'turnStarted', sessionId: S, turnId: T, message: 'x', mode: 'act' }),
      up({ type: 'hook', event: 'beforeTool', status: 'ok', ...hook, stderr: '' }),
      up({ type: 'hook', event: 'beforeTool', status: 'blocked', ...hook }),
    ]);
    const turn = s.items[0];
    assert.ok(turn.kind === 'turn');
    if (turn.kind !== 'turn') return;
    assert.deepEqual(turn.blocks, [{ kind: 'notice', level: 'info', text: 'beforeTool hook `./guard` blocked it: no rm' }]);
  });

  it('carries the turn and session cost from usage events', () => {
    const s = run([
      up({ type: 'turnStarted', sessionId: S, turnId: T, message: 'x', mode: 'act' }),
      up({ type: 'usage', inputTokens: 10, outputTokens: 2, cachedTokens: 0, turnCost: 0.01, sessionCost: 0.05 }),
      up({ type: 'turnFinished', turnId: T, stopReason: 'cost_limit', finalAnswer: null, inputTokens: 10, outputTokens: 2, steps: 1, turnCost: 0.01, sessionCost: 0.05, cachedTokens: 0 }),
    ]);
    const turn = s.items[0];
    assert.ok(turn.kind === 'turn');
    if (turn.kind !== 'turn') return;
    assert.deepEqual(turn.usage, { inputTokens: 10, outputTokens: 2, turnCost: 0.01, sessionCost: 0.05 });
    assert.equal(s.cost, 0.05);
  });

  it('a turnEnd hook that reports after the turn is a notice, not a new turn', () => {
    const s = run([
      up({ type: 'turnStarted', sessionId: S, turnId: T, message: 'x', mode: 'act' }),
      up({ type: 'turnFinished', turnId: T, stopReason: 'end_turn', finalAnswer: 'ok', inputTokens: 1, outputTokens: 1, steps: 1, cachedTokens: 0, turnCost: null, sessionCost: null }),
      up({ type: 'hook', event: 'turnEnd', command: 'make lint', tool: '', status: 'ok', exitCode: 0, stdout: 'lint clean', stderr: '', seconds: 0.1 }),
    ]);
    assert.deepEqual(s.items.map((i) => i.kind), ['turn', 'notice']);
    assert.equal(s.items[1].kind === 'notice' && s.items[1].text, 'turnEnd hook: lint clean');
  });
});
