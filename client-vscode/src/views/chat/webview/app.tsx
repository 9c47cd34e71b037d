/** The chat view: header, rules line, panel, task list, transcript, composer. */
import { Fragment } from 'preact';
import { useLayoutEffect } from 'preact/hooks';
import type { RuleInfo, TodoItem } from '../../../protocol';
import type { ChatState } from '../../../shared/chat/state';
import { Composer } from './composer';
import { pure, useEnv, useView } from './env';
import { modelLabel, modelTitle } from './models';
import { PanelView } from './panels';
import { Queue } from './queue';
import { money, Transcript } from './transcript';

function Header({ chat }: { chat: ChatState }) {
  const { post, store } = useEnv();
  const cost = typeof chat.cost === 'number' ? ` · ${money(chat.cost)}` : '';
  const newChat = () => {
    post({ type: 'newChat' });
    store.updateUi((ui) => ({ ...ui, focus: { seq: ui.focus.seq + 1 } }));
  };
  return (
    <header>
      <button id="model" class="link model" title={modelTitle(chat)} onClick={() => post({ type: 'listModels' })}>{modelLabel(chat)}</button>
      <span id="status">{`${chat.title}${cost}`.replace(/^ · /, '')}</span>
      <button id="history" class="link" title="Sessions" onClick={() => post({ type: 'listSessions' })}>History</button>
      <button id="checkpoints" class="link" title="Restore files from a checkpoint" onClick={() => post({ type: 'listCheckpoints' })}>Checkpoints</button>
      <button id="new" class="link" title="New chat" onClick={newChat}>New</button>
    </header>
  );
}

/** The rule files in force, by name, each openable; the full path in its title. */
function Rules({ rules }: { rules: RuleInfo[] }) {
  const { post } = useEnv();
  const open = (path: string) => (e: Event) => {
    e.preventDefault();
    post({ type: 'openFile', path });
  };
  return (
    <div id="rules" hidden={!rules.length}>
      {rules.length ? 'Rules: ' : null}
      {rules.map((r, i) => (
        <Fragment key={r.path}>
          {i ? ' · ' : null}
          <a href="#" class="rule" title={`${r.path} (${r.scope})`} onClick={open(r.path)}>{r.path.split('/').slice(-2).join('/')}</a>
        </Fragment>
      ))}
    </div>
  );
}

const MARKS = { pending: '○', in_progress: '◐', done: '●' } as const;

/** The task list above the chat (docs/workflow.md#task-list); hidden while empty. */
function Todos({ todos }: { todos: TodoItem[] }) {
  const done = todos.filter((t) => t.status === 'done').length;
  return (
    <section id="todos" aria-label="Task list" hidden={!todos.length}>
      {todos.length ? <div class="todos-head">{`Tasks ${done}/${todos.length}`}</div> : null}
      {todos.length ? (
        <ul>
          {todos.map((t) => (
            <li key={t.id} class={`todo ${t.status}`} data-status={t.status}>
              <span class="mark">{MARKS[t.status] ?? '○'}</span> {t.text}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

const TodosView = pure(Todos);
const RulesView = pure(Rules);

/** The whole view from the store; the body's classes say busy, server down and the mode. */
export function App() {
  const view = useView();
  const { chat, serverRunning, ui } = view;
  useLayoutEffect(() => {
    document.body.classList.toggle('busy', chat.busy);
    document.body.classList.toggle('server-down', !serverRunning);
    document.body.dataset.mode = chat.mode;
  }, [chat.busy, chat.mode, serverRunning]);
  return (
    <div id="app">
      <Header chat={chat} />
      <RulesView rules={ui.rules} />
      <PanelView panel={ui.panel} />
      <TodosView todos={chat.todos ?? []} />
      <Transcript chat={chat} />
      <Queue chat={chat} />
      <Composer view={view} />
    </div>
  );
}
