/** The composer's smaller parts: completions, mode toggle, plan box, chips, pictures tray. */
import { dataUrl, imageFrom } from '../../../shared/images';
import type { Mode } from '../../../protocol';
import type { Completion } from './completion';
import { useEnv } from './env';
import { attach, type UiState } from './store';

/** The `@file` / `/command` popup above the input; `pick` takes a row. */
export function Completions({ completion, pick }: { completion?: Completion; pick: (i: number) => void }) {
  const down = (i: number) => (e: MouseEvent) => {
    e.preventDefault(); // keep the focus in the input
    pick(i);
  };
  const rows = completion?.items.map((item, i) => {
    const active = i === completion.active ? ' active' : '';
    if (completion.kind === 'file') return <div key={item.name} class={`completion${active}`} onMouseDown={down(i)}>{item.name}</div>;
    return (
      <div key={item.name} class={`completion command${active}`} data-command={item.name} onMouseDown={down(i)}>
        <strong>{`/${item.name}`}</strong> <span class="muted">{item.note}</span>
      </div>
    );
  });
  return <div id="completions" role="listbox" hidden={!rows?.length}>{rows}</div>;
}

export function ModeToggle({ mode }: { mode: Mode }) {
  const { post } = useEnv();
  const button = (m: Mode, label: string, title: string) => (
    <button id={`mode-${m}`} role="radio" aria-checked={mode === m} class={mode === m ? 'active' : undefined} title={title} onClick={() => post({ type: 'setMode', mode: m })}>
      {label}
    </button>
  );
  return (
    <div id="mode" class="mode" role="radiogroup" aria-label="Mode">
      {button('plan', 'Plan', 'Plan: Karyi only reads and searches, then answers with a plan')}
      {button('act', 'Act', 'Act: Karyi reads, edits and runs commands')}
    </div>
  );
}

/** The plan the next act message carries, editable. */
export function PlanBox({ shown, plan }: { shown: boolean; plan: string }) {
  const { store } = useEnv();
  const edit = (e: Event) => {
    const text = (e.currentTarget as HTMLTextAreaElement).value;
    store.updateUi((ui) => ({ ...ui, plan: text }));
  };
  return (
    <details id="plan" hidden={!shown} open>
      <summary>Plan for the next message (edit it freely)</summary>
      <textarea id="plan-text" rows={6} aria-label="Plan" value={plan} onInput={edit} />
    </details>
  );
}

/** The selection (click to leave it out) and the mentions still in the draft. */
export function Chips({ ui }: { ui: UiState }) {
  const { store } = useEnv();
  const label = ui.selection.label;
  const toggle = (e: Event) => {
    e.preventDefault();
    store.updateUi((u) => ({ ...u, withSelection: !u.withSelection }));
  };
  const title = ui.withSelection ? 'The selection goes with your message (click to leave it out)' : 'Click to include the selection';
  return (
    <div id="chips">
      {label ? (
        <span class={`chip ${ui.withSelection ? '' : 'off'}`} title={title}>
          <a href="#" onClick={toggle}>{`Selection: ${label}`}</a>
        </span>
      ) : null}
      {ui.mentions.filter((m) => ui.draft.includes(`@${m}`)).map((m) => <span key={m} class="chip">{`@${m}`}</span>)}
    </div>
  );
}

/** Pictures waiting to be sent (docs/images.md), each with a × to remove it. */
export function Tray({ ui }: { ui: UiState }) {
  const { store } = useEnv();
  const remove = (i: number) => () => store.updateUi((u) => ({ ...u, images: u.images.filter((_, k) => k !== i) }));
  return (
    <div id="attachments" aria-label="Pictures to send" hidden={!ui.images.length && !ui.attachError}>
      {ui.images.map((img, i) => (
        <span key={i} class="thumb" title={img.name}>
          <img src={dataUrl(img)} alt={img.name} />
          <button class="remove" title={`Remove ${img.name}`} aria-label={`Remove ${img.name}`} onClick={remove(i)}>×</button>
        </span>
      ))}
      {ui.attachError ? <span class="attach-error">{ui.attachError}</span> : null}
    </div>
  );
}

/** Pasted or dropped files, checked and added to the tray one by one. */
export async function attachFiles(files: File[], add: (change: (ui: UiState) => UiState) => void): Promise<void> {
  for (const f of files) {
    const image = imageFrom(new Uint8Array(await f.arrayBuffer()), f.name || 'pasted image');
    add((ui) => attach(ui, image));
  }
}
