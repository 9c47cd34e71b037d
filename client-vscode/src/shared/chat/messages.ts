/** The messages between the chat webview and the extension host, both ways. */
import type { CheckpointInfo, ImageData, Mode, ModelList, RuleInfo, SessionInfo, SlashCommand } from '../../protocol';
import type { Action, ChatState } from './state';

export interface EditorContextInfo {
  /** `src/x.py:4-9`, shown as a chip above the input; absent when nothing is selected. */
  label?: string;
}

/** Extension host → webview. */
export type ToWebview =
  | { type: 'state'; state: ChatState; serverRunning: boolean }
  | { type: 'action'; action: Action }
  | { type: 'files'; requestId: number; items: string[] }
  | { type: 'commands'; items: SlashCommand[] }
  | { type: 'sessions'; sessions: SessionInfo[]; current: string | null }
  | { type: 'checkpoints'; checkpoints: CheckpointInfo[] }
  | { type: 'selection'; context: EditorContextInfo }
  | { type: 'insertMention'; path: string }
  | { type: 'prefill'; text: string }
  | { type: 'server'; running: boolean }
  | { type: 'rules'; rules: RuleInfo[] }
  | { type: 'focus' }
  | { type: 'attachImage'; image: ImageData }
  | { type: 'models'; list: ModelList };

export type PermissionChoice = 'allowOnce' | 'allowAlways' | 'reject' | 'rejectFeedback';

/** Webview → extension host. */
export type FromWebview =
  | { type: 'ready' }
  /** `now`: into the running turn (`karyi/steer`), else queued while a turn runs. */
  | { type: 'send'; text: string; mentions: string[]; withSelection: boolean; plan?: string; images?: ImageData[]; now?: boolean }
  /** A queued message changed, taken out, or sent now (the chat is idle). */
  | { type: 'queued'; id: string; action: 'edit' | 'remove' | 'send'; text?: string }
  /** On a user message: take the session back to before its turn, or fork it there. */
  | { type: 'rewind'; turnId: string }
  | { type: 'fork'; turnId: string }
  | { type: 'listModels' }
  | { type: 'setModel'; model: string }
  | { type: 'setMode'; mode: Mode }
  | { type: 'listCommands' }
  /** `escape`: the chat input's Escape, which never ends a turn that waits for the user. */
  | { type: 'stop'; key?: 'escape' }
  | { type: 'newChat' }
  | { type: 'permission'; callId: string; choice: PermissionChoice; feedback?: string }
  | { type: 'edits'; callId: string; action: 'acceptAll' | 'rejectAll' | 'show'; path?: string }
  | { type: 'value'; callId: string; action: 'enter' | 'enterAndSave' | 'refuse' }
  | { type: 'completeFiles'; requestId: number; query: string }
  | { type: 'listSessions' }
  | { type: 'loadSession'; sessionId: string }
  | { type: 'deleteSession'; sessionId: string }
  | { type: 'listCheckpoints' }
  | { type: 'restoreCheckpoint'; checkpointId: string }
  | { type: 'command'; command: 'restartServer' | 'setApiKey' | 'openSettings' | 'showLog' | 'showTerminal' }
  | { type: 'openFile'; path: string }
  | { type: 'copy'; text: string };

const FROM_TYPES = new Set([
  'ready', 'send', 'setMode', 'listCommands', 'stop', 'newChat', 'permission', 'edits', 'value', 'completeFiles', 'listSessions',
  'loadSession', 'deleteSession', 'listCheckpoints', 'restoreCheckpoint', 'command', 'openFile', 'copy', 'listModels', 'setModel',
  'queued', 'rewind', 'fork',
]);

/** A message from the webview, or undefined when it is not one we know (it is dropped). */
export function parseFromWebview(raw: unknown): FromWebview | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const type = (raw as { type?: unknown }).type;
  if (typeof type !== 'string' || !FROM_TYPES.has(type)) return undefined;
  const m = raw as Record<string, unknown>;
  const str = (k: string) => typeof m[k] === 'string';
  switch (type) {
    case 'send':
      return str('text') && Array.isArray(m.mentions) && (m.images === undefined || Array.isArray(m.images)) ? (raw as FromWebview) : undefined;
    case 'setModel':
      return str('model') ? (raw as FromWebview) : undefined;
    case 'queued':
      return str('id') && ['edit', 'remove', 'send'].includes(m.action as string) && (m.action !== 'edit' || str('text')) ? (raw as FromWebview) : undefined;
    case 'rewind':
    case 'fork':
      return str('turnId') ? (raw as FromWebview) : undefined;
    case 'permission':
      return str('callId') && ['allowOnce', 'allowAlways', 'reject', 'rejectFeedback'].includes(m.choice as string)
        ? (raw as FromWebview)
        : undefined;
    case 'edits':
    case 'value':
      return str('callId') && str('action') ? (raw as FromWebview) : undefined;
    case 'setMode':
      return m.mode === 'plan' || m.mode === 'act' ? (raw as FromWebview) : undefined;
    case 'loadSession':
    case 'deleteSession':
      return str('sessionId') ? (raw as FromWebview) : undefined;
    case 'restoreCheckpoint':
      return str('checkpointId') ? (raw as FromWebview) : undefined;
    case 'completeFiles':
      return typeof m.requestId === 'number' && str('query') ? (raw as FromWebview) : undefined;
    case 'openFile':
      return str('path') ? (raw as FromWebview) : undefined;
    case 'copy':
      return str('text') ? (raw as FromWebview) : undefined;
    case 'stop':
      return m.key === undefined || m.key === 'escape' ? (raw as FromWebview) : undefined;
    default:
      return raw as FromWebview;
  }
}
