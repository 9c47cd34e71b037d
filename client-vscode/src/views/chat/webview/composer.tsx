/** The composer: mode, plan, chips, pictures, the input with its completions, Send/Stop. */
import { useLayoutEffect, useRef } from 'preact/hooks';
import { taskFromChat } from '../../../shared/fromChat';
import type { FromWebview } from '../../../shared/chat/messages';
import type { ChatState } from '../../../shared/chat/state';
import { accepted, moved, usedMentions, wanted } from './completion';
import { type Env, useEnv } from './env';
import { attachFiles, Chips, Completions, ModeToggle, PlanBox, Tray } from './parts';
import { focused, type ViewState } from './store';

/** A call of the running turn waits for the user's answer (a proposal, a question). */
export function awaitingYou(chat: ChatState): boolean {
  return Object.values(chat.tools).some((t) => t.status === 'awaiting' || t.status === 'value');
}

/** The plan box shows in act mode while a plan waits to be carried out. */
export function planShown(chat: ChatState): boolean {
  return chat.mode === 'act' && !!chat.plan && !chat.busy;
}

function placeholder(chat: ChatState): string {
  if (chat.busy) return awaitingYou(chat) ? 'Karyi waits for your answer above · Shift+Esc or Stop ends the turn' : 'Karyi is working · Enter queues a message, Ctrl+Enter sends it now, Esc stops';
  return chat.mode === 'plan' ? 'Plan mode: Karyi reads and answers with a plan…' : 'Ask Karyi… (@ to mention a file, / for commands)';
}

/** The message the draft sends, and the view after it (undefined: nothing to send).
 * While a turn runs it is queued by the host; `now`: it goes into the running turn. */
export function outgoing(view: ViewState, now = false): [FromWebview, ViewState] | undefined {
  const { chat, ui } = view;
  const text = ui.draft.trim();
  if (!text) return undefined;
  const task = taskFromChat(text) !== undefined; // a background task may start during a turn
  const images = task ? [] : ui.images;
  const message: FromWebview = {
    type: 'send',
    text,
    mentions: usedMentions(text, ui.mentions),
    withSelection: ui.withSelection && !!ui.selection.label,
    plan: planShown(chat) ? ui.plan : undefined,
    images: images.length ? images : undefined,
    now: now && chat.busy && !task ? true : undefined,
  };
  const next = { ...ui, draft: '', caret: 0, mentions: [], completion: undefined, images: task ? ui.images : [], attachError: task ? ui.attachError : '' };
  return [message, { ...view, ui: next }];
}

function send({ store, post }: Env, now = false): void {
  const out = outgoing(store.get(), now);
  if (!out) return;
  post(out[0]);
  store.update(() => out[1]);
}

/** The draft typed: completions asked for or closed. */
function typed({ store, post }: Env, draft: string, caret: number): void {
  const ui = { ...store.get().ui, draft, caret };
  const want = wanted(ui.commands, draft, caret);
  if (want.kind === 'list') post({ type: 'listCommands' });
  if (want.kind === 'files') post({ type: 'completeFiles', requestId: ui.requestId + 1, query: want.query });
  store.updateUi(() => ({ ...ui, requestId: ui.requestId + (want.kind === 'files' ? 1 : 0), completion: want.kind === 'none' ? want.completion : ui.completion }));
}

/** Row `i` of the popup taken; `caret`: where the input's caret is now. */
function pick({ store, post }: Env, i: number, caret: number): void {
  const ui = store.get().ui;
  if (!ui.completion) return;
  const a = accepted(ui.completion, i, ui.draft, caret);
  const mentions = a.mention && !ui.mentions.includes(a.mention) ? [...ui.mentions, a.mention] : ui.mentions;
  const requestId = ui.requestId + (a.again !== undefined ? 1 : 0);
  if (a.again !== undefined) post({ type: 'completeFiles', requestId, query: a.again });
  store.updateUi(() => focused({ ...ui, draft: a.draft, mentions, requestId, completion: undefined }, a.caret));
}

/** Keys of the input: the popup's arrows/Enter/Tab/Escape, then Enter sends, Escape stops. */
function onKey(env: Env, e: KeyboardEvent): void {
  const { chat, ui } = env.store.get();
  const c = ui.completion;
  if (c?.items.length) {
    const handled = e.key === 'ArrowDown' || e.key === 'ArrowUp' || e.key === 'Enter' || e.key === 'Tab' || e.key === 'Escape';
    if (handled) e.preventDefault();
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') env.store.updateUi((u) => ({ ...u, completion: moved(c, e.key === 'ArrowDown' ? 1 : -1) }));
    else if (e.key === 'Enter' || e.key === 'Tab') pick(env, c.active, (e.currentTarget as HTMLTextAreaElement).selectionStart);
    else if (e.key === 'Escape') env.store.updateUi((u) => ({ ...u, completion: undefined }));
    if (handled) return;
  }
  if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    send(env, e.ctrlKey || e.metaKey);
  } else if (e.key === 'Escape' && chat.busy && (e.shiftKey || !awaitingYou(chat))) {
    // A proposal waiting for the user is never thrown away by a stray Escape (one meant
    // for the editor, say): then only Shift+Escape or the Stop button end the turn.
    e.preventDefault();
    env.post(e.shiftKey ? { type: 'stop' } : { type: 'stop', key: 'escape' });
  }
}

/** Focus (and caret) when the store asks; the height follows the text, up to 240 px. */
function useInput(view: ViewState) {
  const input = useRef<HTMLTextAreaElement>(null);
  const { draft, focus } = view.ui;
  useLayoutEffect(() => {
    const el = input.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(el.scrollHeight, 240)}px`;
  }, [draft]);
  useLayoutEffect(() => {
    const el = input.current;
    if (!el || !focus.seq) return;
    el.focus();
    if (focus.caret !== undefined) el.selectionStart = el.selectionEnd = focus.caret;
  }, [focus]);
  return input;
}

export function Composer({ view }: { view: ViewState }) {
  const env = useEnv();
  const { chat, ui } = view;
  const input = useInput(view);
  const onInput = (e: Event) => {
    const el = e.currentTarget as HTMLTextAreaElement;
    typed(env, el.value, el.selectionStart);
  };
  const onPaste = (e: ClipboardEvent) => {
    const files = [...(e.clipboardData?.files ?? [])].filter((f) => f.type.startsWith('image/'));
    if (!files.length) return;
    e.preventDefault();
    void attachFiles(files, (change) => env.store.updateUi(change));
  };
  const onDragOver = (e: DragEvent) => {
    if ([...(e.dataTransfer?.items ?? [])].some((i) => i.kind === 'file')) e.preventDefault();
  };
  const onDrop = (e: DragEvent) => {
    const files = [...(e.dataTransfer?.files ?? [])];
    if (!files.length) return;
    e.preventDefault();
    void attachFiles(files, (change) => env.store.updateUi(change));
  };
  const onSend = () => {
    if (chat.busy) env.post({ type: 'stop' });
    else send(env);
    input.current?.focus();
  };
  const sendTitle = chat.busy ? `Stop the turn (${awaitingYou(chat) ? 'Shift+Escape' : 'Escape'})` : 'Send (Enter)';
  return (
    <div id="composer" onDragOver={onDragOver} onDrop={onDrop}>
      <Completions completion={ui.completion} pick={(i) => pick(env, i, input.current?.selectionStart ?? ui.caret)} />
      <ModeToggle mode={chat.mode} />
      <PlanBox shown={planShown(chat)} plan={ui.plan} />
      <Chips ui={ui} />
      <Tray ui={ui} />
      <div class="row">
        <textarea id="input" rows={1} placeholder={placeholder(chat)} aria-label="Message" ref={input} value={ui.draft} onInput={onInput} onKeyDown={(e) => onKey(env, e)} onPaste={onPaste} />
        {chat.busy && ui.draft.trim() ? <button id="send-now" title="Send into the running turn: Karyi reads it at its next tool step (Ctrl+Enter); Enter queues it for after the turn" onClick={() => send(env, true)}>Send now</button> : null}
        <button id="send" class={chat.busy ? 'primary stop' : 'primary'} title={sendTitle} onClick={onSend}>{chat.busy ? 'Stop' : 'Send'}</button>
      </div>
    </div>
  );
}
