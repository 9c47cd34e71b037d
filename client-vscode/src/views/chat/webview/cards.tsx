/** Tool-call cards: status, output, duration, permission buttons, edited files, value requests. */
import { useRef, useState } from 'preact/hooks';
import type { FileCard, ToolCard } from '../../../shared/chat/state';
import { type Post, pure, useEnv } from './env';

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

function FileRow({ card, f, post }: { card: ToolCard; f: FileCard; post: Post }) {
  // A stored call knows its lines, not its hunks: no "0 hunks" for it.
  const hunks = f.hunks ? ` · ${f.hunks} hunk${f.hunks === 1 ? '' : 's'}` : '';
  const counts = `+${f.added} −${f.removed}${hunks}${f.created ? ' (new)' : ''}${f.deleted ? ' (delete)' : ''}`;
  const show = (e: Event) => {
    e.preventDefault();
    post({ type: 'edits', callId: card.id, action: 'show', path: f.path });
  };
  return (
    <li class={`file file-${f.state}`} data-path={f.path}>
      <a href="#" class="file-open" title="Show the preview" onClick={show}>{f.path}</a>
      <span class="counts">{` ${counts} `}</span>
      <span class="file-state">{FILE_STATE[f.state] + (f.note ? ` — ${f.note}` : '')}</span>
    </li>
  );
}

/** Allow/reject (or accept/reject all edits), and rejecting with feedback typed below. */
function Permission({ card, post }: { card: ToolCard; post: Post }) {
  const [asking, setAsking] = useState(false);
  const feedback = useRef<HTMLTextAreaElement>(null);
  const choose = (choice: 'allowOnce' | 'allowAlways' | 'reject') => () => post({ type: 'permission', callId: card.id, choice });
  const edits = (action: 'acceptAll' | 'rejectAll') => () => post({ type: 'edits', callId: card.id, action });
  const sendFeedback = () => post({ type: 'permission', callId: card.id, choice: 'rejectFeedback', feedback: feedback.current?.value ?? '' });
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      sendFeedback();
    }
  };
  const ask = () => {
    setAsking(true);
    requestAnimationFrame(() => feedback.current?.focus());
  };
  const buttons = card.files?.length
    ? [
        <button key="a" class="primary" data-action="acceptAll" onClick={edits('acceptAll')}>Accept all</button>,
        <button key="b" data-action="allowAlways" onClick={choose('allowAlways')}>Allow always</button>,
        <button key="c" data-action="rejectAll" onClick={edits('rejectAll')}>Reject all</button>,
      ]
    : [
        <button key="a" class="primary" data-action="allowOnce" onClick={choose('allowOnce')}>Allow once</button>,
        <button key="b" data-action="allowAlways" onClick={choose('allowAlways')}>Allow always</button>,
        <button key="c" data-action="reject" onClick={choose('reject')}>Reject</button>,
      ];
  return (
    <div class="permission">
      <div class="buttons">
        {buttons}
        <button data-action="rejectFeedback" onClick={ask}>Reject with feedback…</button>
      </div>
      <div class="feedback-row" hidden={!asking}>
        <textarea class="feedback" rows={2} placeholder="Tell Karyi what to do instead…" ref={feedback} onKeyDown={onKey} />
        <button class="secondary" onClick={sendFeedback}>Send feedback</button>
      </div>
    </div>
  );
}

/** A secret value the model asked for: enter it (never shown here) or refuse. */
function ValueRequest({ card, post }: { card: ToolCard; post: Post }) {
  const v = card.value;
  if (!v) return null;
  const act = (action: 'enter' | 'enterAndSave' | 'refuse') => () => post({ type: 'value', callId: card.id, action });
  const ask = (
    <div class="value-ask">
      Karyi needs the value of <code>{v.key}</code>
      {v.reason ? ` — ${v.reason}` : ''}
    </div>
  );
  if (v.answered) {
    return <div class="value">{ask}<div class="muted">{v.answered === 'given' ? 'Value given (not shown).' : 'Refused.'}</div></div>;
  }
  return (
    <div class="value">
      {ask}
      <div class="buttons">
        <button class="primary" data-action="enterValue" onClick={act('enter')}>Enter value…</button>
        <button data-action="enterAndSave" onClick={act('enterAndSave')}>Enter and save…</button>
        <button data-action="refuse" onClick={act('refuse')}>Refuse</button>
      </div>
    </div>
  );
}

/** A unified diff with added and removed lines coloured (text only, never HTML). */
function Diff({ diff }: { diff: string }) {
  const kind = (line: string) =>
    line.startsWith('+') && !line.startsWith('+++') ? 'add' : line.startsWith('-') && !line.startsWith('---') ? 'del' : line.startsWith('@@') ? 'hunk' : undefined;
  return <pre class="diff">{diff.split('\n').map((line, i) => <span key={i} class={kind(line)}>{line + '\n'}</span>)}</pre>;
}

function Head({ card }: { card: ToolCard }) {
  const s = card.seconds;
  const duration = s !== undefined ? ` · ${s < 10 ? s.toFixed(1) : Math.round(s)} s` : '';
  return (
    <div class="tool-head">
      <span class={`dot ${card.status}`} />
      <span class="tool-name">{card.name}</span>
      <span class="tool-desc">{card.description}</span>
      {card.sandboxed === undefined ? null : (
        <span class={card.sandboxed ? 'badge sandboxed' : 'badge unsandboxed'}>{card.sandboxed ? 'sandboxed' : 'NOT sandboxed'}</span>
      )}
      <span class="tool-status">{STATUS_TEXT[card.status] + duration}</span>
    </div>
  );
}

function Card({ card }: { card: ToolCard }) {
  const { post } = useEnv();
  const awaiting = card.status === 'awaiting';
  const conf = awaiting ? card.confirmation : undefined;
  return (
    <div class={`tool tool-${card.status}`} data-call-id={card.id}>
      <Head card={card} />
      <div class="tool-body">
        {conf?.details ? <pre class="details">{conf.details}</pre> : null}
        {conf?.url ? <div class="url">{conf.url}</div> : null}
        {conf?.diff ? <Diff diff={conf.diff} /> : null}
        {card.reason && awaiting ? <div class="muted">{card.reason}</div> : null}
        {card.files?.length ? <ul class="files">{card.files.map((f) => <FileRow key={f.path} card={card} f={f} post={post} />)}</ul> : null}
        {awaiting ? <Permission card={card} post={post} /> : null}
        <ValueRequest card={card} post={post} />
        {card.output ? <details class="output" open={card.status === 'running'}><summary>Output</summary><pre>{card.output}</pre></details> : null}
        {card.display && card.status !== 'running' && card.display !== card.error ? <div class="display">{card.display}</div> : null}
        {card.error ? <div class="error">{card.error}</div> : null}
        {card.decision && card.decision !== 'auto' ? <div class="muted decision">{card.decision}</div> : null}
      </div>
    </div>
  );
}

/** A tool call's card; re-rendered only when the reducer gives the card anew. */
export const ToolCardView = pure(Card);
