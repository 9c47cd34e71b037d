/**
 * Under the transcript: the messages sent into the running turn that the model has not
 * read yet, and the queued messages, each editable and removable until it is sent
 * (docs/vscode.md#while-karyi-works).
 */
import { useState } from 'preact/hooks';
import type { ChatState, QueuedMessage } from '../../../shared/chat/state';
import { useEnv } from './env';

function Queued({ message, idle, first }: { message: QueuedMessage; idle: boolean; first: boolean }) {
  const { post } = useEnv();
  const [editing, setEditing] = useState<string | undefined>(undefined);
  const save = () => {
    if (editing?.trim()) post({ type: 'queued', id: message.id, action: 'edit', text: editing });
    setEditing(undefined);
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      save();
    } else if (e.key === 'Escape') setEditing(undefined);
  };
  return (
    <li class="queued" data-id={message.id}>
      <span class="tag">{first && !idle ? 'next' : 'queued'}</span>
      {editing === undefined ? (
        <span class="text">{message.display ?? message.text}</span>
      ) : (
        <textarea class="edit" aria-label="Edit the queued message" value={editing} ref={(el) => el?.focus()} onInput={(e) => setEditing((e.currentTarget as HTMLTextAreaElement).value)} onKeyDown={onKey} />
      )}
      {editing === undefined ? (
        <button class="link" data-action="edit" title="Edit before it is sent" onClick={() => setEditing(message.text)}>Edit</button>
      ) : (
        <button class="link" data-action="save" title="Save (Enter)" onClick={save}>Save</button>
      )}
      {idle ? <button class="link" data-action="send" title="Send it now" onClick={() => post({ type: 'queued', id: message.id, action: 'send' })}>Send</button> : null}
      <button class="link" data-action="remove" title="Remove it from the queue" onClick={() => post({ type: 'queued', id: message.id, action: 'remove' })}>✕</button>
    </li>
  );
}

export function Queue({ chat }: { chat: ChatState }) {
  const queue = chat.queue ?? [];
  const steering = chat.steering ?? [];
  if (!queue.length && !steering.length) return <section id="queue" hidden />;
  return (
    <section id="queue" aria-label="Messages waiting">
      <ul>
        {steering.map((text, i) => (
          <li key={`s${i}`} class="steering" title="Sent into the running turn: the model reads it at its next tool step">
            <span class="tag">sent now</span> <span class="text">{text}</span>
          </li>
        ))}
        {queue.map((m, i) => <Queued key={m.id} message={m} idle={!chat.busy} first={i === 0} />)}
      </ul>
    </section>
  );
}
