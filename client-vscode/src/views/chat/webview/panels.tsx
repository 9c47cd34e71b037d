/** The panel under the header: saved sessions, checkpoints, or the models on offer. */
import type { ComponentChildren } from 'preact';
import type { CheckpointInfo, ModelList, SessionInfo } from '../../../protocol';
import { type Post, useEnv } from './env';
import type { Panel } from './store';

function Head({ title, close }: { title: string; close: () => void }) {
  return (
    <div class="panel-head">
      <strong>{title}</strong>
      <button class="link" onClick={close}>Close</button>
    </div>
  );
}

/** A link that does `act` instead of navigating. */
function Act({ act, children, ...rest }: { act: () => void; children: ComponentChildren; 'data-model'?: string }) {
  const click = (e: Event) => {
    e.preventDefault();
    act();
  };
  return <a href="#" onClick={click} {...rest}>{children}</a>;
}

function Sessions({ sessions, current, post, close }: { sessions: SessionInfo[]; current: string | null; post: Post; close: () => void }) {
  const rows = sessions.map((s) => (
    <li key={s.id} class={s.id === current ? 'current' : ''}>
      <Act act={() => (post({ type: 'loadSession', sessionId: s.id }), close())}>{s.title || s.id}</Act>
      <span class="muted">{` ${new Date(s.updated * 1000).toLocaleString()} · ${s.messages} messages `}</span>
      <button class="link" title="Delete this session" onClick={() => post({ type: 'deleteSession', sessionId: s.id })}>Delete</button>
    </li>
  ));
  return <><Head title="Sessions" close={close} />{rows.length ? <ul class="list">{rows}</ul> : <div class="muted">No saved sessions yet.</div>}</>;
}

function Checkpoints({ checkpoints, post, close }: { checkpoints: CheckpointInfo[]; post: Post; close: () => void }) {
  const rows = checkpoints.map((c) => (
    <li key={c.id}>
      <span>{c.label || c.id}</span>
      <span class="muted">{` ${new Date(c.time * 1000).toLocaleString()} `}</span>
      <button class="link" onClick={() => (post({ type: 'restoreCheckpoint', checkpointId: c.id }), close())}>Restore</button>
    </li>
  ));
  const empty = <div class="muted">No checkpoints yet: Karyi takes one before it changes files.</div>;
  return <><Head title="Checkpoints" close={close} />{rows.length ? <ul class="list">{rows}</ul> : empty}</>;
}

function Models({ list, post, close }: { list: ModelList; post: Post; close: () => void }) {
  const note = (source: string, id: string) => (source === 'server' ? ' listed by the server' : id === list.model ? ' current' : '');
  return (
    <>
      <Head title="Model for the next message" close={close} />
      <ul class="list models">
        {list.models.map((m) => (
          <li key={m.id} class={m.id === list.model ? 'current' : ''}>
            <Act act={() => (post({ type: 'setModel', model: m.id }), close())} data-model={m.id}>{m.id}</Act>
            <span class="muted">{note(m.source, m.id)}</span>
          </li>
        ))}
      </ul>
      {list.note ? <div class="muted">{list.note}</div> : null}
      <div class="muted">Add more with the karyi.models setting.</div>
    </>
  );
}

export function PanelView({ panel }: { panel?: Panel }) {
  const { post, store } = useEnv();
  const close = () => store.updateUi((ui) => ({ ...ui, panel: undefined }));
  let body: ComponentChildren = null;
  if (panel?.kind === 'sessions') body = <Sessions sessions={panel.sessions} current={panel.current} post={post} close={close} />;
  else if (panel?.kind === 'checkpoints') body = <Checkpoints checkpoints={panel.checkpoints} post={post} close={close} />;
  else if (panel?.kind === 'models') body = <Models list={panel.list} post={post} close={close} />;
  return <div id="panel" hidden={!panel}>{body}</div>;
}
