import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import createDOMPurify from 'dompurify';
import { JSDOM } from 'jsdom';
import { h, render } from 'preact';
import type { TurnEvent } from '../../protocol';
import type { FromWebview, ToWebview } from '../../shared/chat/messages';
import { type Action, emptyState, reduce } from '../../shared/chat/state';
import { App } from '../../views/chat/webview/app';
import { accepted, mentionQuery, usedMentions, wanted } from '../../views/chat/webview/completion';
import { type Env, EnvContext } from '../../views/chat/webview/env';
import { createRenderer } from '../../views/chat/webview/markdown';
import { initialView, receive, Store } from '../../views/chat/webview/store';

const up = (event: TurnEvent): Action => ({ kind: 'update', update: { sessionId: 's', turnId: 't', event } });
const call = { index: 0, id: 'c1', name: 'run_command', params: {}, error: null };

describe('the webview store', () => {
  it('runs the chat reducer on actions and keeps the edited plan until a new one comes', () => {
    let v = receive(initialView(), { type: 'action', action: { kind: 'mode', mode: 'act', plan: 'step 1' } });
    assert.equal(v.ui.plan, 'step 1');
    v = { ...v, ui: { ...v.ui, plan: 'step 1, edited' } };
    v = receive(v, { type: 'action', action: { kind: 'user', text: 'go' } });
    assert.equal(v.ui.plan, 'step 1, edited');
    v = receive(v, { type: 'action', action: { kind: 'mode', mode: 'act', plan: 'step 2' } });
    assert.equal(v.ui.plan, 'step 2');
  });

  it('drops an old completion answer and opens the popup only while @ is typed', () => {
    const v = { ...initialView(), ui: { ...initialView().ui, draft: 'see @RE', caret: 7, requestId: 2 } };
    assert.equal(receive(v, { type: 'files', requestId: 1, items: ['README.md'] }), v);
    assert.deepEqual(receive(v, { type: 'files', requestId: 2, items: ['README.md'] }).ui.completion?.items, [{ name: 'README.md' }]);
  });
});

describe('the input completions', () => {
  it('asks for files after @, for commands after a leading /', () => {
    assert.equal(mentionQuery('fix @src/a', 10), 'src/a');
    assert.deepEqual(wanted(undefined, '/', 1), { kind: 'list' });
    assert.deepEqual(wanted(undefined, 'a @b', 4), { kind: 'files', query: 'b' });
  });

  it('puts the picked path into the draft; @folder: completes again', () => {
    const c = { kind: 'file' as const, items: [{ name: 'README.md' }, { name: 'folder:' }], active: 0 };
    assert.deepEqual(accepted(c, 0, 'see @RE now', 7), { draft: 'see @README.md  now', caret: 15, mention: 'README.md', again: undefined });
    assert.deepEqual(accepted(c, 1, '@fo', 3), { draft: '@folder:', caret: 8, mention: undefined, again: 'folder:' });
    assert.deepEqual(usedMentions('look at @README.md and @diff', ['README.md', 'gone.py']), ['README.md', 'diff']);
  });
});

describe('the chat view', () => {
  const dom = new JSDOM('<!DOCTYPE html><body><div id="root"></div></body>');
  const g = globalThis as Record<string, unknown>;
  const posted: FromWebview[] = [];
  const store = new Store(initialView(), (run) => run());
  const env: Env = { store, post: (m) => posted.push(m), markdown: createRenderer(createDOMPurify(dom.window as unknown as Window & typeof globalThis)) };
  const doc = dom.window.document;
  const $ = (sel: string) => doc.querySelector(sel) as HTMLElement;
  const settle = () => new Promise((r) => setTimeout(r, 0));
  const send = async (m: ToWebview) => {
    store.soon((v) => receive(v, m));
    await settle();
  };

  before(() => {
    for (const k of ['window', 'document', 'Node', 'Element', 'HTMLElement', 'Event', 'requestAnimationFrame']) {
      g[k] = k === 'requestAnimationFrame' ? (f: () => void) => setTimeout(f, 0) : (dom.window as unknown as Record<string, unknown>)[k];
    }
    render(h(EnvContext.Provider, { value: env }, h(App, {})), $('#root'));
  });
  after(() => render(null, $('#root')));

  it('has the elements the end-to-end tests and the stylesheet select', () => {
    for (const id of ['model', 'status', 'history', 'checkpoints', 'new', 'rules', 'panel', 'todos', 'log', 'composer', 'completions', 'mode-plan', 'mode-act', 'plan', 'plan-text', 'chips', 'attachments', 'input', 'send']) {
      assert.ok(doc.getElementById(id), `#${id}`);
    }
    assert.match($('#log .empty').textContent ?? '', /^Ask Karyi about your code/);
    assert.equal($('#send').textContent, 'Send');
  });

  it('shows a turn with a permission request, and posts the answer', async () => {
    let chat = reduce(emptyState(), { kind: 'user', text: 'run it' });
    chat = reduce(chat, up({ type: 'turnStarted', sessionId: 's', turnId: 't', message: 'run it', mode: 'act' }));
    chat = reduce(chat, up({ type: 'text', text: 'Running **tests**', channel: 'text' }));
    chat = reduce(chat, up({ type: 'toolAwaitingPermission', call, description: 'pytest', confirmation: null, reason: '' }));
    await send({ type: 'state', state: chat, serverRunning: true });
    assert.equal($('.item.user .bubble').textContent, 'run it');
    assert.equal($('.item.turn:not(.done) .md.text strong').textContent, 'tests');
    assert.ok($('#send.stop'));
    $('.tool.tool-awaiting button[data-action="allowOnce"]').click();
    assert.deepEqual(posted.at(-1), { type: 'permission', callId: 'c1', choice: 'allowOnce' });
  });

  it('re-renders only what a streamed delta changes', async () => {
    const user = $('.item.user');
    const md = $('.item.turn .md.text');
    const card = $('.tool.tool-awaiting');
    await send({ type: 'action', action: up({ type: 'text', text: 'Waiting', channel: 'text' }) });
    await send({ type: 'action', action: up({ type: 'text', text: ' for you.', channel: 'text' }) });
    assert.equal($('.item.user'), user);
    assert.equal($('.item.turn .md.text'), md);
    assert.equal($('.tool.tool-awaiting'), card);
    assert.equal(doc.querySelectorAll('.item.turn .md.text')[1].textContent?.trim(), 'Waiting for you.');
  });

  it('shows queued messages under the transcript, editable and removable, and Send now while busy', async () => {
    let chat = reduce(emptyState(), { kind: 'user', text: 'first' });
    chat = reduce(chat, up({ type: 'turnStarted', sessionId: 's', turnId: 't', message: 'first', mode: 'act' }));
    chat = reduce(chat, { kind: 'queue', message: { text: 'then this' } });
    chat = reduce(chat, { kind: 'steering', text: 'use pytest' });
    await send({ type: 'state', state: chat, serverRunning: true });
    assert.equal($('#queue li.steering .text').textContent, 'use pytest');
    assert.equal($('#queue li.queued .text').textContent, 'then this');
    assert.equal($('#queue li.queued .tag').textContent, 'next');
    assert.equal($('#send-now'), null, 'nothing to send now while the input is empty');
    store.updateUi((ui) => ({ ...ui, draft: 'use pytest' }));
    await settle();
    assert.ok($('#send-now'), 'Send now shows while a turn runs and there is a message');
    store.updateUi((ui) => ({ ...ui, draft: '' }));
    await settle();
    $('#queue li.queued button[data-action="edit"]').click();
    await settle();
    const box = $('#queue textarea.edit') as HTMLTextAreaElement;
    assert.equal(box.value, 'then this');
    box.value = 'then that';
    box.dispatchEvent(new dom.window.Event('input', { bubbles: true }));
    await settle();
    $('#queue li.queued button[data-action="save"]').click();
    assert.deepEqual(posted.at(-1), { type: 'queued', id: chat.queue[0].id, action: 'edit', text: 'then that' });
    $('#queue li.queued button[data-action="remove"]').click();
    assert.deepEqual(posted.at(-1), { type: 'queued', id: chat.queue[0].id, action: 'remove' });
  });

  it('offers Rewind and Fork on a message whose turn is known', async () => {
    const chat = reduce(reduce(emptyState(), { kind: 'user', text: 'first' }), up({ type: 'turnStarted', sessionId: 's', turnId: 't', message: 'first', mode: 'act' }));
    await send({ type: 'state', state: reduce(chat, { kind: 'turnEnded' }), serverRunning: true });
    assert.equal($('#send-now'), null, 'no Send now when idle');
    $('.item.user button[data-action="rewind"]').click();
    assert.deepEqual(posted.at(-1), { type: 'rewind', turnId: 't' });
    $('.item.user button[data-action="fork"]').click();
    assert.deepEqual(posted.at(-1), { type: 'fork', turnId: 't' });
  });
});
