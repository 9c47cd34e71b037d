/** Tool-call cards: status, output, duration, permission buttons, edited files, value requests. */
import type { FromWebview } from '../../../shared/chat/messages';
import type { FileCard, ToolCard } from '../../../shared/chat/state';
import { h } from './dom';

export type Post = (m: FromWebview) => void;

const STATUS_TEXT: Record<ToolCard['status'], string> = {
  writing: 'writing…',
  queued: 'queued',
  awaiting: 'waiting for you',
  value: 'needs a value',
  running: 'running…',
  done: 'done',
  failed: 'failed',
  rejected: 'rejected',
  cancelled: 'cancelled',
};

const FILE_STATE: Record<FileCard['state'], string> = {
  pending: 'pending',
  accepted: 'accepted',
  partial: 'partly accepted',
  rejected: 'rejected',
  edited: 'your version',
  gone: 'deleted while previewed',
  closed: 'preview closed',
};

function fileRow(card: ToolCard, f: FileCard, post: Post): HTMLElement {
  const counts = `+${f.added} −${f.removed} · ${f.hunks} hunk${f.hunks === 1 ? '' : 's'}${f.created ? ' (new)' : ''}${f.deleted ? ' (delete)' : ''}`;
  return h(
    'li',
    { class: `file file-${f.state}`, 'data-path': f.path },
    h('a', { href: '#', class: 'file-open', title: 'Show the preview', onclick: (e) => { e.preventDefault(); post({ type: 'edits', callId: card.id, action: 'show', path: f.path }); } }, f.path),
    h('span', { class: 'counts' }, ` ${counts} `),
    h('span', { class: 'file-state' }, FILE_STATE[f.state] + (f.note ? ` — ${f.note}` : '')),
  );
}

function permissionControls(card: ToolCard, post: Post): HTMLElement {
  const isEdit = !!card.files?.length;
  const feedback = h('textarea', { class: 'feedback', rows: '2', placeholder: 'Tell Karyi what to do instead…' });
  const feedbackRow = h(
    'div',
    { class: 'feedback-row', hidden: true },
    feedback,
    h('button', { class: 'secondary', onclick: () => post({ type: 'permission', callId: card.id, choice: 'rejectFeedback', feedback: feedback.value }) }, 'Send feedback'),
  );
  feedback.addEventListener('keydown', (e) => {
    const ke = e as KeyboardEvent;
    if (ke.key === 'Enter' && !ke.shiftKey) {
      ke.preventDefault();
      post({ type: 'permission', callId: card.id, choice: 'rejectFeedback', feedback: feedback.value });
    }
  });
  const buttons = isEdit
    ? [
        h('button', { class: 'primary', 'data-action': 'acceptAll', onclick: () => post({ type: 'edits', callId: card.id, action: 'acceptAll' }) }, 'Accept all'),
        h('button', { 'data-action': 'allowAlways', onclick: () => post({ type: 'permission', callId: card.id, choice: 'allowAlways' }) }, 'Allow always'),
        h('button', { 'data-action': 'rejectAll', onclick: () => post({ type: 'edits', callId: card.id, action: 'rejectAll' }) }, 'Reject all'),
      ]
    : [
        h('button', { class: 'primary', 'data-action': 'allowOnce', onclick: () => post({ type: 'permission', callId: card.id, choice: 'allowOnce' }) }, 'Allow once'),
        h('button', { 'data-action': 'allowAlways', onclick: () => post({ type: 'permission', callId: card.id, choice: 'allowAlways' }) }, 'Allow always'),
        h('button', { 'data-action': 'reject', onclick: () => post({ type: 'permission', callId: card.id, choice: 'reject' }) }, 'Reject'),
      ];
  const withFeedback = h(
    'button',
    { 'data-action': 'rejectFeedback', onclick: () => { feedbackRow.hidden = false; feedback.focus(); } },
    'Reject with feedback…',
  );
  return h('div', { class: 'permission' }, h('div', { class: 'buttons' }, ...buttons, withFeedback), feedbackRow);
}

function valueControls(card: ToolCard, post: Post): HTMLElement | null {
  const v = card.value;
  if (!v) return null;
  const ask = h('div', { class: 'value-ask' }, `Karyi needs the value of `, h('code', {}, v.key), v.reason ? ` — ${v.reason}` : '');
  if (v.answered) return h('div', { class: 'value' }, ask, h('div', { class: 'muted' }, v.answered === 'given' ? 'Value given (not shown).' : 'Refused.'));
  return h(
    'div',
    { class: 'value' },
    ask,
    h(
      'div',
      { class: 'buttons' },
      h('button', { class: 'primary', 'data-action': 'enterValue', onclick: () => post({ type: 'value', callId: card.id, action: 'enter' }) }, 'Enter value…'),
      h('button', { 'data-action': 'enterAndSave', onclick: () => post({ type: 'value', callId: card.id, action: 'enterAndSave' }) }, 'Enter and save…'),
      h('button', { 'data-action': 'refuse', onclick: () => post({ type: 'value', callId: card.id, action: 'refuse' }) }, 'Refuse'),
    ),
  );
}

/** A unified diff with added and removed lines coloured (text only, never HTML). */
function diffBlock(diff: string): HTMLElement {
  const lines = diff.split('\n').map((line) => {
    const cls = line.startsWith('+') && !line.startsWith('+++') ? 'add' : line.startsWith('-') && !line.startsWith('---') ? 'del' : line.startsWith('@@') ? 'hunk' : '';
    return h('span', cls ? { class: cls } : {}, line + '\n');
  });
  return h('pre', { class: 'diff' }, ...lines);
}

/** The card's element (re-rendered whenever the card changes). */
export function renderCard(card: ToolCard, post: Post): HTMLElement {
  const duration = card.seconds !== undefined ? `${card.seconds < 10 ? card.seconds.toFixed(1) : Math.round(card.seconds)} s` : '';
  const header = h(
    'div',
    { class: 'tool-head' },
    h('span', { class: `dot ${card.status}` }),
    h('span', { class: 'tool-name' }, card.name),
    h('span', { class: 'tool-desc' }, card.description),
    card.sandboxed === undefined
      ? null
      : h('span', { class: card.sandboxed ? 'badge sandboxed' : 'badge unsandboxed' }, card.sandboxed ? 'sandboxed' : 'NOT sandboxed'),
    h('span', { class: 'tool-status' }, STATUS_TEXT[card.status] + (duration ? ` · ${duration}` : '')),
  );
  const conf = card.confirmation;
  const showConf = card.status === 'awaiting' && conf;
  const body = h(
    'div',
    { class: 'tool-body' },
    showConf && conf.details ? h('pre', { class: 'details' }, conf.details) : null,
    showConf && conf.url ? h('div', { class: 'url' }, conf.url) : null,
    showConf && conf.diff ? diffBlock(conf.diff) : null,
    card.reason && card.status === 'awaiting' ? h('div', { class: 'muted' }, card.reason) : null,
    card.files?.length ? h('ul', { class: 'files' }, ...card.files.map((f) => fileRow(card, f, post))) : null,
    card.status === 'awaiting' ? permissionControls(card, post) : null,
    valueControls(card, post),
    card.output ? h('details', { class: 'output', open: card.status === 'running' }, h('summary', {}, 'Output'), h('pre', {}, card.output)) : null,
    card.display && card.status !== 'running' && card.display !== card.error ? h('div', { class: 'display' }, card.display) : null,
    card.error ? h('div', { class: 'error' }, card.error) : null,
    card.decision && card.decision !== 'auto' ? h('div', { class: 'muted decision' }, card.decision) : null,
  );
  return h('div', { class: `tool tool-${card.status}`, 'data-call-id': card.id }, header, body);
}
