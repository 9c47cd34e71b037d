/** The transcript: the user's messages, the agent's turns (text, tool cards, notices), notices. */
import { useLayoutEffect, useMemo, useRef } from 'preact/hooks';
import { dataUrl } from '../../../shared/images';
import type { Block, ChatState, Item, NoticeItem, ToolCard, TurnItem, UserItem } from '../../../shared/chat/state';
import type { ImageData } from '../../../protocol';
import { ToolCardView } from './cards';
import { type Post, pure, useEnv } from './env';

const EMPTY = 'Ask Karyi about your code. Type @ to mention a file, @problems, @terminal, @diff, @folder: or @url:; Enter sends, Shift+Enter adds a line.';

/** USD with enough digits to see a cheap turn: $0.0042, $1.27. */
export function money(usd: number): string {
  return `$${usd < 1 ? usd.toFixed(4) : usd.toFixed(2)}`;
}

/** Each highlighted code block gets a Copy button (model HTML has none: DOMPurify forbids them). */
function withCopyButtons(html: string): string {
  return html.replace(/<pre class="code">/g, '<pre class="code"><button class="copy" title="Copy">Copy</button>');
}

/** A Copy button's click (delegated: the buttons live in rendered markdown). */
function onCopy(post: Post) {
  return (e: MouseEvent) => {
    const btn = (e.target as Element).closest?.('button.copy');
    if (!btn) return;
    post({ type: 'copy', text: btn.parentElement?.querySelector('code')?.textContent ?? '' });
    btn.textContent = 'Copied';
  };
}

function Text({ block }: { block: Extract<Block, { kind: 'text' }> }) {
  const { markdown, post } = useEnv();
  const thinking = block.channel === 'thinking';
  const html = useMemo(() => (thinking ? markdown(block.text) : withCopyButtons(markdown(block.text))), [block.text, thinking, markdown]);
  if (thinking) {
    return <details class="thinking"><summary>Thinking</summary><div class="md" dangerouslySetInnerHTML={{ __html: html }} /></details>;
  }
  return <div class={`md ${block.channel}`} onClick={onCopy(post)} dangerouslySetInnerHTML={{ __html: html }} />;
}

const TextBlock = pure(Text);

function usageText(turn: TurnItem): string {
  const parts: string[] = [];
  const u = turn.usage;
  if (u && (u.inputTokens || u.outputTokens)) {
    const cached = u.cachedTokens ? ` (${u.cachedTokens.toLocaleString()} cached)` : '';
    parts.push(`${u.inputTokens.toLocaleString()} in${cached} · ${u.outputTokens.toLocaleString()} out`);
  }
  if (u?.turnCost !== undefined) parts.push(money(u.turnCost));
  if (turn.steps) parts.push(`${turn.steps} step${turn.steps === 1 ? '' : 's'}`);
  if (turn.done && turn.stopReason && !['end_turn', 'final_answer'].includes(turn.stopReason)) parts.push(`stopped: ${turn.stopReason.replace(/_/g, ' ')}`);
  return parts.join(' · ');
}

interface TurnProps {
  turn: TurnItem;
  tools: Record<string, ToolCard>;
}

function Turn({ turn, tools }: TurnProps) {
  const usage = turn.done || turn.usage ? usageText(turn) : '';
  return (
    <div class={`item turn${turn.done ? ' done' : ''}`} data-turn={turn.turnId}>
      {turn.blocks.map((b, i) => {
        if (b.kind === 'text') return <TextBlock key={i} block={b} />;
        if (b.kind === 'tool') return tools[b.id] ? <ToolCardView key={b.id} card={tools[b.id]} /> : <div key={b.id} />;
        if (b.kind === 'steer') return <div key={i} class="steer" title="Sent while Karyi worked: the model read it here">↪ {b.text}</div>;
        return <div key={i} class={`notice ${b.level}`}>{b.text}</div>;
      })}
      {turn.done ? null : <div class="working">Working…</div>}
      {usage ? <div class="usage">{usage}</div> : null}
    </div>
  );
}

/** A turn re-renders when it changed or one of its own cards did, not when another did. */
const TurnView = pure(Turn, (a, b) => a.turn === b.turn && a.turn.blocks.every((bl) => bl.kind !== 'tool' || a.tools[bl.id] === b.tools[bl.id]));

/** The thumbnails of a sent message (kept across a window reload by name only). */
function Thumbnails({ images }: { images?: ImageData[] }) {
  if (!images?.length) return null;
  return (
    <div class="thumbs">
      {images.map((img, i) => (img.data ? <img key={i} class="thumb" src={dataUrl(img)} alt={img.name} title={img.name} /> : <span key={i} class="chip">{`🖼 ${img.name}`}</span>))}
    </div>
  );
}

/** *Rewind to here* and *Fork from here*, on a message whose turn the server knows. */
function UserActions({ turnId }: { turnId?: string }) {
  const { post } = useEnv();
  if (!turnId) return null;
  return (
    <div class="user-actions">
      <button class="link" data-action="rewind" title="Take the code, the conversation or both back to before this message" onClick={() => post({ type: 'rewind', turnId })}>↶ Rewind to here</button>
      <button class="link" data-action="fork" title="A new session with the conversation up to and including this message's turn" onClick={() => post({ type: 'fork', turnId })}>Fork from here</button>
    </div>
  );
}

function User({ item }: { item: UserItem }) {
  return (
    <div class="item user" data-turn={item.turnId}>
      <UserActions turnId={item.turnId} />
      <div class="bubble">{item.text}</div>
      <Thumbnails images={item.images} />
      {item.context ? <div class="context">{item.context}</div> : null}
    </div>
  );
}

const ACTIONS = { restart: ['restartServer', 'Restart server'], setApiKey: ['setApiKey', 'Set API key'], openSettings: ['openSettings', 'Open settings'] } as const;

function Notice({ item }: { item: NoticeItem }) {
  const { post } = useEnv();
  const action = item.action ? ACTIONS[item.action] : undefined;
  return (
    <div class={`item notice ${item.level}`}>
      <span>{item.text}</span>{' '}
      {action ? (
        <button class={item.action === 'openSettings' ? undefined : 'primary'} data-action={item.action === 'restart' ? 'restartServer' : undefined} onClick={() => post({ type: 'command', command: action[0] })}>
          {action[1]}
        </button>
      ) : null}{' '}
      {item.action === 'restart' ? <button onClick={() => post({ type: 'command', command: 'showLog' })}>Show log</button> : null}
    </div>
  );
}

const UserView = pure(User);
const NoticeView = pure(Notice);

function ItemView({ item, tools }: { item: Item; tools: Record<string, ToolCard> }) {
  if (item.kind === 'user') return <UserView item={item} />;
  if (item.kind === 'notice') return <NoticeView item={item} />;
  return <TurnView turn={item} tools={tools} />;
}

/** `role="log"` (Preact's types allow only `main` on <main>; the page has always said log). */
const LOG_ROLE = { role: 'log' } as Record<string, string>;

/** The log; it follows new output while the user is at its bottom. */
export function Transcript({ chat }: { chat: ChatState }) {
  const log = useRef<HTMLElement>(null);
  const el = log.current;
  const atBottom = !el || el.scrollHeight - el.scrollTop - el.clientHeight < 40;
  useLayoutEffect(() => {
    if (atBottom && log.current) log.current.scrollTop = log.current.scrollHeight;
  });
  return (
    <main id="log" {...LOG_ROLE} aria-live="polite" ref={log}>
      {chat.items.length ? chat.items.map((item) => <ItemView key={item.id} item={item} tools={chat.tools} />) : <div class="empty">{EMPTY}</div>}
    </main>
  );
}
