/**
 * The language server contract (docs/protocol.md, "The language server") as types.
 * Pure declarations: shared by the extension host, the webview and the tests. The
 * methods' parameters and names, the events of `karyi/turnUpdate` and the results
 * moved to the server's types so far are generated from them (`protocol.gen.ts`,
 * `make protocol`); the other results are still declared here.
 */
import type { Mode, TodoItem, ToolResultJson } from './protocol.gen';

export * from './protocol.gen';

export interface ChatResult {
  sessionId: string;
  turnId: string;
  stopReason: string;
  finalAnswer: string | null;
  usage: Usage;
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
  status: 'queued' | 'running' | 'waiting' | 'done' | 'failed' | 'stopped' | 'applied' | 'kept' | 'discarded';
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
