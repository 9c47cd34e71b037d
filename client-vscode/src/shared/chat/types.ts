/** The chat's state and the actions that change it (state.ts reduces them). */
import type { ChatContext, ChatResult, Confirmation, ImageData, LoadedSession, Mode, ModelState, TodoItem, TurnUpdate } from '../../protocol';

/**
 * Tokens of a turn as the chat shows them (the extension's own summary of the `usage`
 * and `turnFinished` events); `cachedTokens` of the input were read from the
 * provider's prompt cache.
 */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cachedTokens?: number;
  /** USD, when the model has a price (docs/workflow.md#cost). */
  turnCost?: number;
  sessionCost?: number;
}

export type FileState = 'pending' | 'accepted' | 'partial' | 'rejected' | 'edited' | 'gone' | 'closed';

export interface FileCard {
  path: string;
  uri: string;
  added: number;
  removed: number;
  hunks: number;
  created: boolean;
  deleted: boolean;
  state: FileState;
  note?: string;
}

export type ToolStatus = 'writing' | 'queued' | 'awaiting' | 'value' | 'running' | 'done' | 'failed' | 'rejected' | 'cancelled';

export interface ValueRequest {
  key: string;
  reason: string;
  note: string;
  exists: boolean;
  answered?: 'given' | 'refused';
}

export interface ToolCard {
  id: string;
  name: string;
  description: string;
  status: ToolStatus;
  output: string;
  display?: string;
  error?: string;
  seconds?: number;
  decision?: string;
  reason?: string;
  confirmation?: Pick<Confirmation, 'kind' | 'title' | 'details' | 'url'> & { diff?: string | null };
  files?: FileCard[];
  value?: ValueRequest;
  /** For commands: whether it ran inside the OS sandbox (docs/security.md). */
  sandboxed?: boolean;
}

export type Block =
  | { kind: 'text'; channel: 'text' | 'thinking' | 'answer'; text: string }
  | { kind: 'tool'; id: string }
  | { kind: 'notice'; level: 'info' | 'error'; text: string }
  /** A message the user sent into the running turn, where the model read it. */
  | { kind: 'steer'; text: string };

export interface UserItem {
  kind: 'user';
  id: string;
  /** The server's turn this message started, once known: what rewind and fork name. */
  turnId?: string;
  text: string;
  context?: string;
  /** Pictures sent with the message, shown as thumbnails (docs/images.md). */
  images?: ImageData[];
}

export interface TurnItem {
  kind: 'turn';
  id: string;
  turnId: string;
  blocks: Block[];
  done: boolean;
  stopReason?: string;
  usage?: Usage;
  steps?: number;
}

export interface NoticeItem {
  kind: 'notice';
  id: string;
  level: 'info' | 'error';
  text: string;
  action?: 'restart' | 'setApiKey' | 'openSettings';
}

export type Item = UserItem | TurnItem | NoticeItem;

/**
 * A message typed while a turn ran, to be sent as the next turn (docs/vscode.md#while-karyi-works):
 * editable and removable until then. `context` and `images` go with it as they were.
 */
export interface QueuedMessage {
  id: string;
  text: string;
  context?: ChatContext;
  contextLabel?: string;
  /** What the transcript shows for it (a palette task's name), until it is edited. */
  display?: string;
  images?: ImageData[];
}

export interface ChatState {
  sessionId: string | null;
  title: string;
  items: Item[];
  tools: Record<string, ToolCard>;
  busy: boolean;
  step: number;
  model: string;
  seq: number;
  /** The task list the model keeps, shown above the chat. */
  todos: TodoItem[];
  /** plan: only reading tools, the answer is a plan; act: everything (the toggle). */
  mode: Mode;
  /** The plan the next act turn carries (the last plan answer; the user may edit it). */
  plan: string;
  /** What the session cost so far in USD (null: the model has no price). */
  cost: number | null;
  /** Tokens the conversation takes of the model's window (`karyi/models`), when known. */
  contextUse?: { used: number; window: number };
  /** Messages waiting for the running turn to end, sent one per turn in this order. */
  queue: QueuedMessage[];
  /** Messages sent into the running turn (`karyi/steer`) that the model has not read yet. */
  steering: string[];
}

export type Action =
  | { kind: 'reset' }
  | { kind: 'user'; text: string; context?: string; images?: ImageData[] }
  | { kind: 'modelState'; state: ModelState }
  | { kind: 'update'; update: TurnUpdate }
  | { kind: 'turnEnded'; result?: ChatResult; error?: string }
  | { kind: 'fileState'; callId: string; path: string; state: FileState; note?: string }
  | { kind: 'valueAnswered'; callId: string; answer: 'given' | 'refused' }
  | { kind: 'notice'; level: 'info' | 'error'; text: string; action?: NoticeItem['action'] }
  | { kind: 'serverStopped'; message: string }
  | { kind: 'loaded'; session: LoadedSession }
  | { kind: 'model'; model: string }
  | { kind: 'mode'; mode: Mode; plan?: string }
  /** A message for after the turn; `front`: before the others (what the turn did not read). */
  | { kind: 'queue'; message: Omit<QueuedMessage, 'id'>; front?: boolean }
  | { kind: 'queueEdit'; id: string; text: string }
  | { kind: 'queueRemove'; id: string }
  /** Sent into the running turn (`karyi/steer`), or taken back (`drop`: the server refused it). */
  | { kind: 'steering'; text: string; drop?: boolean };

export type TurnState = 'idle' | 'thinking' | 'tool' | 'awaiting';
