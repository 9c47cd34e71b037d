/**
 * The model picker in the chat header: the session's model and how much of its context
 * window the conversation takes; a click lists the models on offer and picks one for
 * the next turn (docs/models.md#the-model-picker).
 */
import type { FromWebview } from '../../../shared/chat/messages';
import type { ChatState } from '../../../shared/chat/state';
import type { ModelList } from '../../../protocol';
import { fill, h } from './dom';

function tokens(n: number): string {
  if (n >= 1_000_000) return `${+(n / 1_000_000).toFixed(1)}M`;
  if (n >= 1000) return `${Math.round(n / 1000)}k`;
  return String(n);
}

/** `gpt-4.1 · 3% of 1M`: the header button's text. */
export function modelLabel(state: ChatState): string {
  const name = state.model || 'model';
  const use = state.contextUse;
  if (!use || !use.window) return name;
  const pct = Math.min(100, Math.round((use.used / use.window) * 100));
  return `${name} · ${pct}% of ${tokens(use.window)}`;
}

export function paintModel(button: HTMLElement, state: ChatState): void {
  button.textContent = modelLabel(state);
  const use = state.contextUse;
  button.title = use
    ? `The conversation takes about ${use.used.toLocaleString()} of ${use.window.toLocaleString()} tokens. Click to pick another model.`
    : 'Click to pick the model for the next message';
}

/** The list in the header's panel; picking one tells the extension. */
export function showModels(panel: HTMLElement, list: ModelList, post: (m: FromWebview) => void, close: () => void): void {
  const rows = list.models.map((m) =>
    h('li', { class: m.id === list.model ? 'current' : '' },
      h('a', { href: '#', 'data-model': m.id, onclick: (e) => { e.preventDefault(); post({ type: 'setModel', model: m.id }); close(); } }, m.id),
      h('span', { class: 'muted' }, m.source === 'server' ? ' listed by the server' : m.id === list.model ? ' current' : '')),
  );
  fill(panel,
    h('div', { class: 'panel-head' }, h('strong', {}, 'Model for the next message'), h('button', { class: 'link', onclick: close }, 'Close')),
    h('ul', { class: 'list models' }, ...rows),
    list.note ? h('div', { class: 'muted' }, list.note) : null,
    h('div', { class: 'muted' }, 'Add more with the karyi.models setting.'));
  panel.hidden = false;
}
