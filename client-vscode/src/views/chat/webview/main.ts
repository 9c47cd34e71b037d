/**
 * The chat view in the webview: renders the transcript incrementally from the same
 * reducer the extension host runs, and sends the user's input and decisions back.
 */
import DOMPurify from 'dompurify';
import { taskFromChat } from '../../../shared/fromChat';
import type { EditorContextInfo, FromWebview, ToWebview } from '../../../shared/chat/messages';
import { type Block, type ChatState, emptyState, type Item, reduce, type ToolCard, type TurnItem } from '../../../shared/chat/state';
import type { CheckpointInfo, RuleInfo, SessionInfo, SlashCommand } from '../../../protocol';
import { Attachments, thumbnails } from './attachments';
import { renderCard } from './cards';
import { fill, h } from './dom';
import { createRenderer } from './markdown';
import { paintModel, showModels } from './models';

declare function acquireVsCodeApi(): { postMessage(m: unknown): void; getState(): unknown; setState(s: unknown): void };

const vscode = acquireVsCodeApi();
const post = (m: FromWebview) => vscode.postMessage(m);
const render = createRenderer(DOMPurify);

let state: ChatState = emptyState();
let serverRunning = true;
const itemEls = new Map<string, { item: Item; el: HTMLElement }>();
const toolEls = new Map<string, { card: ToolCard; el: HTMLElement }>();
const blockEls = new Map<string, { text: string; el: HTMLElement }>();

const log = document.getElementById('log') as HTMLElement;
const input = document.getElementById('input') as HTMLTextAreaElement;
const sendBtn = document.getElementById('send') as HTMLButtonElement;
const chips = document.getElementById('chips') as HTMLElement;
const popup = document.getElementById('completions') as HTMLElement;
const panel = document.getElementById('panel') as HTMLElement;
const statusLine = document.getElementById('status') as HTMLElement;
const rulesLine = document.getElementById('rules') as HTMLElement;
const todosEl = document.getElementById('todos') as HTMLElement;
const planBox = document.getElementById('plan') as HTMLElement;
const planText = document.getElementById('plan-text') as HTMLTextAreaElement;
const modelBtn = document.getElementById('model') as HTMLButtonElement;
const attachments = new Attachments(document.getElementById('attachments') as HTMLElement);
attachments.listen(input, document.getElementById('composer') as HTMLElement);
const modeButtons = { plan: document.getElementById('mode-plan') as HTMLButtonElement, act: document.getElementById('mode-act') as HTMLButtonElement };

// ---- transcript ---------------------------------------------------------------------

function addCopyButtons(root: HTMLElement): void {
  for (const pre of Array.from(root.querySelectorAll('pre.code'))) {
    const code = pre.querySelector('code');
    const btn = h('button', { class: 'copy', title: 'Copy' }, 'Copy');
    btn.addEventListener('click', () => {
      post({ type: 'copy', text: code?.textContent ?? '' });
      btn.textContent = 'Copied';
    });
    pre.prepend(btn);
  }
}

function renderTextBlock(key: string, block: Extract<Block, { kind: 'text' }>): HTMLElement {
  const cached = blockEls.get(key);
  if (cached && cached.text === block.text) return cached.el;
  let el = cached?.el;
  if (block.channel === 'thinking') {
    if (!el) el = h('details', { class: 'thinking' }, h('summary', {}, 'Thinking'), h('div', { class: 'md' }));
    const body = el.querySelector('.md') as HTMLElement;
    body.innerHTML = render(block.text);
  } else {
    if (!el) el = h('div', { class: `md ${block.channel}` });
    el.innerHTML = render(block.text);
    addCopyButtons(el);
  }
  blockEls.set(key, { text: block.text, el });
  return el;
}

function renderTool(id: string): HTMLElement {
  const card = state.tools[id];
  const cached = toolEls.get(id);
  if (!card) return cached?.el ?? h('div');
  if (cached && cached.card === card) return cached.el;
  const el = renderCard(card, post);
  const typed = cached?.el.querySelector<HTMLTextAreaElement>('textarea.feedback');
  if (typed?.value) {
    const fresh = el.querySelector<HTMLTextAreaElement>('textarea.feedback');
    if (fresh) {
      fresh.value = typed.value;
      (fresh.parentElement as HTMLElement).hidden = false;
    }
  }
  cached?.el.replaceWith(el);
  toolEls.set(id, { card, el });
  return el;
}

/** USD with enough digits to see a cheap turn: $0.0042, $1.27. */
function money(usd: number): string {
  return `$${usd < 1 ? usd.toFixed(4) : usd.toFixed(2)}`;
}

function usageLine(turn: TurnItem): HTMLElement | null {
  if (!turn.done && !turn.usage) return null;
  const parts: string[] = [];
  if (turn.usage && (turn.usage.inputTokens || turn.usage.outputTokens)) {
    const cached = turn.usage.cachedTokens ? ` (${turn.usage.cachedTokens.toLocaleString()} cached)` : '';
    parts.push(`${turn.usage.inputTokens.toLocaleString()} in${cached} · ${turn.usage.outputTokens.toLocaleString()} out`);
  }
  if (turn.usage?.turnCost !== undefined) parts.push(money(turn.usage.turnCost));
  if (turn.steps) parts.push(`${turn.steps} step${turn.steps === 1 ? '' : 's'}`);
  if (turn.done && turn.stopReason && !['end_turn', 'final_answer'].includes(turn.stopReason)) parts.push(`stopped: ${turn.stopReason.replace(/_/g, ' ')}`);
  return parts.length ? h('div', { class: 'usage' }, parts.join(' · ')) : null;
}

function renderTurn(turn: TurnItem, el: HTMLElement): void {
  const children: HTMLElement[] = turn.blocks.map((b, i) => {
    const key = `${turn.id}:${i}`;
    if (b.kind === 'text') return renderTextBlock(key, b);
    if (b.kind === 'tool') return renderTool(b.id);
    return h('div', { class: `notice ${b.level}` }, b.text);
  });
  if (!turn.done) children.push(h('div', { class: 'working' }, 'Working…'));
  const usage = usageLine(turn);
  if (usage) children.push(usage);
  children.forEach((child, i) => {
    if (el.children[i] !== child) el.insertBefore(child, el.children[i] ?? null);
  });
  while (el.children.length > children.length) el.lastElementChild?.remove();
}

function noticeActions(action: string | undefined): HTMLElement | null {
  if (action === 'restart') return h('button', { class: 'primary', 'data-action': 'restartServer', onclick: () => post({ type: 'command', command: 'restartServer' }) }, 'Restart server');
  if (action === 'setApiKey') return h('button', { class: 'primary', onclick: () => post({ type: 'command', command: 'setApiKey' }) }, 'Set API key');
  if (action === 'openSettings') return h('button', { onclick: () => post({ type: 'command', command: 'openSettings' }) }, 'Open settings');
  return null;
}

function renderItem(item: Item, existing?: HTMLElement): HTMLElement {
  if (item.kind === 'user') {
    return h('div', { class: 'item user' }, h('div', { class: 'bubble' }, item.text), thumbnails(item.images), item.context ? h('div', { class: 'context' }, item.context) : null);
  }
  if (item.kind === 'notice') {
    return h('div', { class: `item notice ${item.level}` }, h('span', {}, item.text), ' ', noticeActions(item.action), ' ', item.action === 'restart' ? h('button', { onclick: () => post({ type: 'command', command: 'showLog' }) }, 'Show log') : null);
  }
  const el = existing ?? h('div', { class: 'item turn', 'data-turn': item.turnId });
  el.setAttribute('data-turn', item.turnId);
  el.classList.toggle('done', item.done);
  renderTurn(item, el);
  return el;
}

let scheduled = false;
function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  requestAnimationFrame(() => {
    scheduled = false;
    paint();
  });
}

function paint(): void {
  const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
  const seen = new Set<string>();
  state.items.forEach((item, i) => {
    seen.add(item.id);
    const cached = itemEls.get(item.id);
    let el = cached?.el;
    if (!cached || cached.item !== item || item.kind === 'turn') {
      el = renderItem(item, item.kind === 'turn' ? cached?.el : undefined);
      if (cached && cached.el !== el) cached.el.replaceWith(el);
      itemEls.set(item.id, { item, el });
    }
    if (log.children[i] !== el) log.insertBefore(el as HTMLElement, log.children[i] ?? null);
  });
  for (const [id, { el }] of itemEls) {
    if (!seen.has(id)) {
      el.remove();
      itemEls.delete(id);
    }
  }
  if (state.items.length === 0) {
    blockEls.clear();
    toolEls.clear();
    if (!log.querySelector('.empty')) log.append(h('div', { class: 'empty' }, 'Ask Karyi about your code. Type @ to mention a file, @problems, @terminal, @diff, @folder: or @url:; Enter sends, Shift+Enter adds a line.'));
  } else log.querySelector('.empty')?.remove();
  const busy = state.busy;
  sendBtn.textContent = busy ? 'Stop' : 'Send';
  sendBtn.classList.toggle('stop', busy);
  sendBtn.title = busy ? `Stop the turn (${awaitingYou() ? 'Shift+Escape' : 'Escape'})` : 'Send (Enter)';
  document.body.classList.toggle('busy', busy);
  document.body.classList.toggle('server-down', !serverRunning);
  paintTodos();
  paintMode();
  const cost = typeof state.cost === 'number' ? ` · ${money(state.cost)}` : '';
  statusLine.textContent = `${state.title}${cost}`.replace(/^ · /, '');
  paintModel(modelBtn, state);
  if (atBottom) log.scrollTop = log.scrollHeight;
}

/** The task list above the chat (docs/workflow.md#task-list); hidden while empty. */
let paintedTodos: ChatState['todos'] | undefined;
function paintTodos(): void {
  if (paintedTodos === state.todos) return;
  paintedTodos = state.todos;
  const items = state.todos ?? [];
  todosEl.hidden = items.length === 0;
  const done = items.filter((t) => t.status === 'done').length;
  const marks = { pending: '○', in_progress: '◐', done: '●' } as const;
  fill(
    todosEl,
    h('div', { class: 'todos-head' }, `Tasks ${done}/${items.length}`),
    h('ul', {}, ...items.map((t) => h('li', { class: `todo ${t.status}`, 'data-status': t.status }, h('span', { class: 'mark' }, marks[t.status] ?? '○'), ' ', t.text))),
  );
}

/** The plan/act toggle, and the plan the next act message carries (editable). */
let paintedPlan: string | undefined;
function paintMode(): void {
  for (const mode of ['plan', 'act'] as const) {
    modeButtons[mode].setAttribute('aria-checked', String(state.mode === mode));
    modeButtons[mode].classList.toggle('active', state.mode === mode);
  }
  document.body.dataset.mode = state.mode;
  input.placeholder = state.busy
    ? awaitingYou()
      ? 'Karyi waits for your answer above · Shift+Esc or Stop ends the turn'
      : 'Karyi is working · Esc or Stop ends the turn'
    : state.mode === 'plan'
      ? 'Plan mode: Karyi reads and answers with a plan…'
      : 'Ask Karyi… (@ to mention a file, / for commands)';
  const showPlan = state.mode === 'act' && !!state.plan && !state.busy;
  planBox.hidden = !showPlan;
  if (paintedPlan !== state.plan) {
    paintedPlan = state.plan;
    planText.value = state.plan;
  }
}

for (const mode of ['plan', 'act'] as const) modeButtons[mode].addEventListener('click', () => post({ type: 'setMode', mode }));

// ---- composer -----------------------------------------------------------------------

let withSelection = true;
let selection: EditorContextInfo = {};
const mentions = new Set<string>();

function renderChips(): void {
  const items: HTMLElement[] = [];
  if (selection.label) {
    items.push(
      h('span', { class: `chip ${withSelection ? '' : 'off'}`, title: withSelection ? 'The selection goes with your message (click to leave it out)' : 'Click to include the selection' },
        h('a', { href: '#', onclick: (e) => { e.preventDefault(); withSelection = !withSelection; renderChips(); } }, `Selection: ${selection.label}`)),
    );
  }
  for (const m of mentions) {
    if (!input.value.includes(`@${m}`)) continue;
    items.push(h('span', { class: 'chip' }, `@${m}`));
  }
  fill(chips, ...items);
}

function send(): void {
  const text = input.value.trim();
  if (!text) return;
  const task = taskFromChat(text) !== undefined; // a background task may start during a turn
  if (state.busy && !task) return;
  const used = [...mentions].filter((m) => text.includes(`@${m}`));
  for (const m of text.matchAll(/(?:^|\s)@([\w./\\:-]+)/g)) if (!used.includes(m[1])) used.push(m[1]);
  const plan = planBox.hidden ? undefined : planText.value;
  const images = task ? [] : attachments.take();
  post({ type: 'send', text, mentions: used, withSelection: withSelection && !!selection.label, plan, images: images.length ? images : undefined });
  input.value = '';
  mentions.clear();
  autosize();
  renderChips();
}

function autosize(): void {
  input.style.height = 'auto';
  input.style.height = `${Math.min(input.scrollHeight, 240)}px`;
}

// @file and /command completion
let requestId = 0;
let completions: string[] = [];
let active = 0;
let completing: 'file' | 'command' = 'file';
let slashCommands: SlashCommand[] | undefined;

/** The `/na` being typed as the message's first word, or undefined. */
function commandQuery(): string | undefined {
  const m = /^\/([\w-]*)$/.exec(input.value.slice(0, input.selectionStart));
  return m ? m[1] : undefined;
}

function showCommands(): void {
  const q = commandQuery();
  if (q === undefined || !slashCommands) {
    popup.hidden = true;
    return;
  }
  const hits = slashCommands.filter((c) => c.name.startsWith(q));
  completing = 'command';
  completions = hits.map((c) => c.name);
  active = 0;
  if (!hits.length) {
    popup.hidden = true;
    return;
  }
  fill(popup, ...hits.map((c, i) => h('div', { class: `completion command ${i === active ? 'active' : ''}`, 'data-command': c.name, onmousedown: (e) => { e.preventDefault(); accept(i); } }, h('strong', {}, `/${c.name}`), ' ', h('span', { class: 'muted' }, c.description))));
  popup.hidden = false;
}

function mentionQuery(): string | undefined {
  const upto = input.value.slice(0, input.selectionStart);
  const m = /(?:^|\s)@([^\s@]*)$/.exec(upto);
  return m ? m[1] : undefined;
}

function showCompletions(items: string[]): void {
  completing = 'file';
  completions = items;
  active = 0;
  if (!items.length || mentionQuery() === undefined) {
    popup.hidden = true;
    return;
  }
  fill(popup, ...items.map((p, i) => h('div', { class: `completion ${i === active ? 'active' : ''}`, onmousedown: (e) => { e.preventDefault(); accept(i); } }, p)));
  popup.hidden = false;
}

function moveActive(delta: number): void {
  active = (active + delta + completions.length) % completions.length;
  Array.from(popup.children).forEach((c, i) => c.classList.toggle('active', i === active));
}

function accept(i: number): void {
  if (completing === 'command') {
    input.value = `/${completions[i]} ${input.value.slice(input.selectionStart)}`.replace(/ +$/, ' ');
    input.selectionStart = input.selectionEnd = completions[i].length + 2;
    popup.hidden = true;
    input.focus();
    return;
  }
  const path = completions[i];
  const caret = input.selectionStart;
  const open = path.endsWith(':'); // @folder: and @url: take an argument next
  const before = input.value.slice(0, caret).replace(/@([^\s@]*)$/, `@${path}${open ? '' : ' '}`);
  input.value = before + input.value.slice(caret);
  input.selectionStart = input.selectionEnd = before.length;
  if (!open) mentions.add(path);
  popup.hidden = true;
  if (open) post({ type: 'completeFiles', requestId: ++requestId, query: path });
  renderChips();
  input.focus();
}

input.addEventListener('input', () => {
  autosize();
  const q = mentionQuery();
  if (commandQuery() !== undefined) {
    if (slashCommands === undefined || input.value === '/') post({ type: 'listCommands' });
    else showCommands();
  } else if (q === undefined) popup.hidden = true;
  else post({ type: 'completeFiles', requestId: ++requestId, query: q });
  renderChips();
});

/** A call of the running turn waits for the user's answer (a proposal, a question). */
function awaitingYou(): boolean {
  return Object.values(state.tools).some((t) => t.status === 'awaiting' || t.status === 'value');
}

input.addEventListener('keydown', (e) => {
  if (!popup.hidden && completions.length) {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      moveActive(e.key === 'ArrowDown' ? 1 : -1);
      return;
    }
    if (e.key === 'Enter' || e.key === 'Tab') {
      e.preventDefault();
      accept(active);
      return;
    }
    if (e.key === 'Escape') {
      e.preventDefault();
      popup.hidden = true;
      return;
    }
  }
  if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    send();
  } else if (e.key === 'Escape' && state.busy && (e.shiftKey || !awaitingYou())) {
    // A proposal waiting for the user is never thrown away by a stray Escape (one meant
    // for the editor, say): then only Shift+Escape or the Stop button end the turn.
    e.preventDefault();
    post(e.shiftKey ? { type: 'stop' } : { type: 'stop', key: 'escape' });
  }
});

sendBtn.addEventListener('click', () => {
  if (state.busy) post({ type: 'stop' });
  else send();
  input.focus();
});

// ---- header panels ------------------------------------------------------------------

function closePanel(): void {
  panel.hidden = true;
  fill(panel);
}

function showSessions(sessions: SessionInfo[], current: string | null): void {
  const rows = sessions.map((s) =>
    h('li', { class: s.id === current ? 'current' : '' },
      h('a', { href: '#', onclick: (e) => { e.preventDefault(); post({ type: 'loadSession', sessionId: s.id }); closePanel(); } }, s.title || s.id),
      h('span', { class: 'muted' }, ` ${new Date(s.updated * 1000).toLocaleString()} · ${s.messages} messages `),
      h('button', { class: 'link', title: 'Delete this session', onclick: () => post({ type: 'deleteSession', sessionId: s.id }) }, 'Delete')),
  );
  fill(panel, h('div', { class: 'panel-head' }, h('strong', {}, 'Sessions'), h('button', { class: 'link', onclick: closePanel }, 'Close')),
    rows.length ? h('ul', { class: 'list' }, ...rows) : h('div', { class: 'muted' }, 'No saved sessions yet.'));
  panel.hidden = false;
}

function showCheckpoints(items: CheckpointInfo[]): void {
  const rows = items.map((c) =>
    h('li', {},
      h('span', {}, c.label || c.id),
      h('span', { class: 'muted' }, ` ${new Date(c.time * 1000).toLocaleString()} `),
      h('button', { class: 'link', onclick: () => { post({ type: 'restoreCheckpoint', checkpointId: c.id }); closePanel(); } }, 'Restore')),
  );
  fill(panel, h('div', { class: 'panel-head' }, h('strong', {}, 'Checkpoints'), h('button', { class: 'link', onclick: closePanel }, 'Close')),
    rows.length ? h('ul', { class: 'list' }, ...rows) : h('div', { class: 'muted' }, 'No checkpoints yet: Karyi takes one before it changes files.'));
  panel.hidden = false;
}

document.getElementById('new')?.addEventListener('click', () => { post({ type: 'newChat' }); input.focus(); });
document.getElementById('history')?.addEventListener('click', () => post({ type: 'listSessions' }));
document.getElementById('checkpoints')?.addEventListener('click', () => post({ type: 'listCheckpoints' }));
modelBtn.addEventListener('click', () => post({ type: 'listModels' }));

// ---- messages from the extension ------------------------------------------------------

window.addEventListener('message', (ev: MessageEvent<ToWebview>) => {
  const m = ev.data;
  switch (m.type) {
    case 'state':
      state = m.state;
      serverRunning = m.serverRunning;
      itemEls.forEach(({ el }) => el.remove());
      itemEls.clear();
      toolEls.clear();
      blockEls.clear();
      schedule();
      break;
    case 'action':
      state = reduce(state, m.action);
      schedule();
      break;
    case 'files':
      if (m.requestId === requestId) showCompletions(m.items);
      break;
    case 'commands':
      slashCommands = m.items;
      showCommands();
      break;
    case 'sessions':
      showSessions(m.sessions, m.current);
      break;
    case 'checkpoints':
      showCheckpoints(m.checkpoints);
      break;
    case 'selection':
      selection = m.context;
      renderChips();
      break;
    case 'insertMention':
      mentions.add(m.path);
      input.value = `${input.value}${input.value && !input.value.endsWith(' ') ? ' ' : ''}@${m.path} `;
      renderChips();
      input.focus();
      break;
    case 'prefill':
      input.value = m.text;
      autosize();
      input.focus();
      break;
    case 'server':
      serverRunning = m.running;
      schedule();
      break;
    case 'focus':
      input.focus();
      break;
    case 'rules':
      showRules(m.rules);
      break;
    case 'attachImage':
      attachments.add(m.image);
      input.focus();
      break;
    case 'models':
      showModels(panel, m.list, post, closePanel);
      break;
  }
});

/** The rule files in force, by name, each openable; the full path in its title. */
function showRules(rules: RuleInfo[]): void {
  rulesLine.replaceChildren();
  rulesLine.hidden = rules.length === 0;
  if (!rules.length) return;
  rulesLine.append('Rules: ');
  rules.forEach((r, i) => {
    if (i) rulesLine.append(' · ');
    const name = r.path.split('/').slice(-2).join('/');
    rulesLine.append(h('a', { href: '#', class: 'rule', title: `${r.path} (${r.scope})`, onclick: (e: Event) => { e.preventDefault(); post({ type: 'openFile', path: r.path }); } }, name));
  });
}

post({ type: 'ready' });
input.focus();
