/**
 * The language server contract (docs/protocol.md, "The language server") as types.
 * Pure declarations: shared by the extension host, the webview and the tests. The
 * parameters and names of the methods are generated from the server's types
 * (`protocol.gen.ts`, `make protocol`); what the server sends is declared here.
 */
import type { Mode, Range } from './protocol.gen';

export * from './protocol.gen';

export interface Call {
  index: number;
  id: string;
  name: string;
  params: Record<string, unknown>;
  error: string | null;
}

export interface ToolResultJson {
  success: boolean;
  llm_content: string;
  display: string;
  data: unknown;
  error: { code: string; message: string } | null;
  metadata: Record<string, unknown>;
  status?: string;
}

export interface Hunk {
  id: string;
  header: string;
  range: Range;
  newText: string;
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

export interface FileProposal {
  uri: string;
  path: string;
  version: number | null;
  created: boolean;
  deleted: boolean;
  added: number;
  removed: number;
  original: string;
  proposed: string;
  edits: { range: Range; newText: string }[];
  hunks: Hunk[];
  unified: string;
}

/** A file of an edit still being written (`toolDraft`): its hunks so far, no whole texts. */
export interface DraftFile {
  uri: string;
  path: string;
  created: boolean;
  added: number;
  removed: number;
  hunks: Hunk[];
}

export interface Confirmation {
  kind: 'command' | 'edit' | 'fetch' | 'generic' | string;
  title: string;
  details: string;
  diff: string | null;
  url: string | null;
  files?: FileProposal[] | null;
}

/** One item of the task list the model keeps (`todo_write`, docs/workflow.md). */
export interface TodoItem {
  id: string;
  text: string;
  status: 'pending' | 'in_progress' | 'done';
}

export type TurnEvent =
  | { type: 'turnStarted'; sessionId: string; turnId: string; message: string; mode?: Mode }
  | { type: 'mode'; sessionId: string; mode: Mode; plan: string }
  | { type: 'step'; step: number; model: string }
  | { type: 'text'; text: string; channel: 'text' | 'thinking' | 'answer' }
  | { type: 'toolPending'; index: number; name: string }
  | { type: 'toolDraft'; index: number; tool: string; callId: string; done: boolean; files: DraftFile[] }
  | { type: 'toolQueued'; call: Call; description: string }
  | {
      type: 'toolAwaitingPermission';
      call: Call;
      description: string;
      confirmation: Confirmation | null;
      reason: string;
    }
  // docs/protocol.md says `call`; the server sends `callId`: both are read.
  | { type: 'valueRequested'; call?: Call; callId?: string; key: string; reason: string; note: string; exists: boolean }
  | { type: 'toolRunning'; call: Call }
  | { type: 'toolOutput'; callId: string; text: string }
  | { type: 'toolDone'; call: Call; result: ToolResultJson; decision: string; seconds: number }
  | { type: 'fileChanged'; call: Call; files: unknown[] }
  | { type: 'notice'; topic: string; message: string }
  | { type: 'todos'; items: TodoItem[] }
  | { type: 'hook'; event: string; command: string; tool: string; status: 'ok' | 'blocked' | 'reported' | 'failed'; exitCode: number | null; stdout: string; stderr: string; seconds: number }
  | { type: 'usage'; inputTokens: number; outputTokens: number; cachedTokens?: number; turnCost?: number | null; sessionCost?: number | null }
  | { type: 'error'; errorKind: string; message: string }
  | {
      type: 'turnFinished';
      turnId: string;
      stopReason: string;
      finalAnswer: string | null;
      inputTokens: number;
      outputTokens: number;
      steps: number;
      cachedTokens?: number;
      turnCost?: number | null;
      sessionCost?: number | null;
    };

export interface TurnUpdate {
  sessionId: string;
  turnId: string;
  event: TurnEvent;
}

export interface ChatResult {
  sessionId: string;
  turnId: string;
  stopReason: string;
  finalAnswer: string | null;
  usage: Usage;
}

export interface SessionInfo {
  id: string;
  title: string;
  created: number;
  updated: number;
  model: string;
  dialect: string;
  profile: string;
  messages: number;
}

export interface StoredMessage {
  role: string;
  content: string;
  name: string | null;
  toolCallId: string | null;
  toolCalls: { id: string; name: string; params?: Record<string, unknown> }[];
  /** The pictures the user sent with the message (docs/images.md). */
  images?: ImageData[];
}

/** A picture in a chat message: base64 bytes, checked by the server (docs/images.md). */
export interface ImageData {
  mimeType: string;
  data: string;
  name: string;
}

/** The session's model and its context use (`karyi/models`, `karyi/setModel`). */
export interface ModelState {
  /** null: no session yet (the configured model). */
  sessionId: string | null;
  model: string;
  contextWindow: number;
  contextUsed: number;
  acceptsImages: boolean;
}

/** `karyi/models`: the models on offer (docs/models.md#the-model-picker). */
export interface ModelList extends ModelState {
  models: { id: string; source: 'settings' | 'server' }[];
  note: string;
}

export interface StoredCall {
  turn_id: string;
  call_id: string;
  name: string;
  params: Record<string, unknown>;
  decision: string;
  success: boolean;
  error_code: string | null;
  result: ToolResultJson;
}

export interface LoadedSession {
  sessionId: string;
  title: string;
  messages: StoredMessage[];
  calls: StoredCall[];
  turns: Record<string, unknown>[];
  todos?: TodoItem[];
  mode?: Mode;
  plan?: string;
  cost?: number;
}

export interface CheckpointInfo {
  id: string;
  label: string;
  time: number;
  sessionId?: string;
  turnId?: string;
}

/** One MCP server's state (`karyi/tools`, `karyi/restartMcpServer`). */
export interface McpServerStatus {
  name: string;
  state: 'idle' | 'connecting' | 'connected' | 'disconnected' | 'failed' | 'invalid';
  transport: string;
  where: string;
  tools: string[];
  error: string;
  starts: number;
}

/** `karyi/tools`: what the agent can call, and the MCP servers behind some of it. */
export interface ToolsInfo {
  tools: { name: string; description: string; source: 'builtin' | 'discovered' | 'mcp' }[];
  servers: McpServerStatus[];
  warnings: string[];
}

/** Tokens of a turn; `cachedTokens` of the input were read from the provider's prompt cache. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cachedTokens?: number;
  /** USD, when the model has a price (docs/workflow.md#cost). */
  turnCost?: number;
  sessionCost?: number;
}

/** A slash command a message may start with (`karyi/commands`, docs/workflow.md). */
export interface SlashCommand {
  name: string;
  description: string;
  scope: 'builtin' | 'workspace' | 'user';
  path: string;
}

/** A project rule file in force (`karyi/rules`, docs/context.md#rules). */
export interface RuleInfo {
  path: string;
  scope: 'user' | 'project' | 'folder' | 'memory';
}

/** A background task's record (docs/protocol.md, "Background tasks"; docs/parallel.md),
 * sent whole in every `karyi/taskUpdate`. */
export interface TaskRecord {
  id: string;
  task: string;
  status: 'queued' | 'running' | 'waiting' | 'done' | 'failed' | 'stopped' | 'interrupted' | 'applied' | 'kept' | 'discarded';
  step: string;
  repo: string;
  worktree: string;
  branch: string;
  check: string | null;
  created: number;
  started: number | null;
  finished: number | null;
  elapsed: number;
  files: string[];
  input_tokens: number;
  output_tokens: number;
  cost: number | null;
  final_answer: string | null;
  error: string | null;
  check_result: { command: string; exit_code: number; passed: boolean; output: string } | null;
  question: { tool: string; description: string; details?: string; reason?: string } | null;
}

/** `karyi/task`: the record with its diff and each changed file before and after
 * (`null`: the file did not exist on that side). */
export interface TaskDetail extends TaskRecord {
  diff: string;
  fileTexts: { path: string; uri: string; before: string | null; after: string | null }[];
}

/** `karyi/applyTask`: what the three-way merge did. */
export interface ApplyResult {
  task: TaskRecord;
  merged: string[];
  conflicts: string[];
  notes: string[];
}
