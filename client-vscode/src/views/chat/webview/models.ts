/**
 * The model picker in the chat header: the session's model and how much of its context
 * window the conversation takes (docs/models.md#the-model-picker); the list it opens is
 * in panels.tsx.
 */
import type { ChatState } from '../../../shared/chat/state';

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

/** The header button's tooltip. */
export function modelTitle(state: ChatState): string {
  const use = state.contextUse;
  return use
    ? `The conversation takes about ${use.used.toLocaleString()} of ${use.window.toLocaleString()} tokens. Click to pick another model.`
    : 'Click to pick the model for the next message';
}
