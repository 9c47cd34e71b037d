// Generated from server/karyi/lsp/wire/params.py by `make protocol`: do not edit.
// The custom methods' parameters and names (docs/protocol.md, "The language server").

export type Mode = 'plan' | 'act';

export type ImageType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

export type ConfirmOutcome = 'allowOnce' | 'allowAlways' | 'reject' | 'rejectAlways';

export type Scope = 'session' | 'workspace' | 'user';

/** A position in a document (LSP: zero-based line, UTF-16 character). */
export interface Position {
  line: number;
  character: number;
}

/** A range in a document (LSP). */
export interface Range {
  start: Position;
  end: Position;
}

/**
 * What the editor shows the agent with a message: the file, the selection and its
 * text, diagnostics, mentioned files.
 */
export interface ChatContext {
  uri?: string;
  selection?: Range;
  text?: string;
  diagnostics?: unknown[];
  files?: string[];
}

/**
 * A picture sent with a message (docs/images.md): base64 `data`; its type is read
 * from its bytes, `mimeType` only has to agree.
 */
export interface ImageParam {
  mimeType?: ImageType;
  data: string;
  name?: string;
}

/** `karyi/chat`: run a turn (in a new session without `sessionId`). */
export interface ChatParams {
  sessionId?: string | null;
  message: string;
  mode?: Mode;
  plan?: string | null;
  images?: ImageParam[];
  context?: ChatContext | null;
}

/** `karyi/cancel`: end the session's running turn. */
export interface CancelParams {
  sessionId: string;
}

/** `karyi/setModel`: the session's model from its next turn (docs/models.md#picker). */
export interface SetModelParams {
  sessionId?: string | null;
  model: string;
}

/** `karyi/setMode`: plan or act, optionally with the plan the next act turn carries. */
export interface SetModeParams {
  sessionId?: string | null;
  mode: Mode;
  plan?: string | null;
}

/** The user's own final text of one file of a proposal (`uri` may be its path). */
export interface ModifiedContent {
  uri: string;
  text: string;
}

/** A document as the client holds it when it sends the request that names it. */
export interface DocumentVersion {
  uri: string;
  version: number;
}

/** `karyi/confirmTool`: the user's answer to a permission question. */
export interface ConfirmParams {
  sessionId: string;
  toolCallId: string;
  outcome: ConfirmOutcome;
  scope?: Scope;
  acceptedHunks?: string[] | null;
  feedback?: string | null;
  modifiedContent?: ModifiedContent[] | null;
  documents?: DocumentVersion[] | null;
}

/** `karyi/fileDiffs`: the diffs the session's calls applied (one call's, or all). */
export interface FileDiffsParams {
  sessionId: string;
  toolCallId?: string | null;
}

/** `karyi/provideValue`: a secret value the agent asked for (null: refused). */
export interface ProvideValueParams {
  sessionId: string;
  key: string;
  value?: string | null;
  save?: boolean;
  note?: string | null;
}

/** A method that takes no parameters (`{}`). */
export interface NoParams {
}

/** A method about one stored session. */
export interface SessionParams {
  sessionId: string;
}

/** A method about the workspace, or one session of it. */
export interface OptionalSessionParams {
  sessionId?: string | null;
}

/** `karyi/restoreCheckpoint`: put the workspace back as a checkpoint holds it. */
export interface RestoreCheckpointParams {
  checkpointId: string;
}

/** `karyi/restartMcpServer`: start one MCP server again. */
export interface RestartMcpServerParams {
  name: string;
}

/** `karyi/terminalInput`: keys the user typed into the agent's terminal. */
export interface TerminalInputParams {
  sessionId: string;
  data: string;
}

/** `karyi/startTask`: a background task in its own worktree (docs/parallel.md). */
export interface StartTaskParams {
  task: string;
  ref?: string | null;
  check?: string | null;
  model?: string | null;
}

/** A method about one background task (its id, or a unique prefix of it). */
export interface TaskParams {
  taskId: string;
}

/**
 * `karyi/applyTask`: the task's changes into the working tree; with `acceptedHunks`
 * or `modifiedContent`, the answer to its per-hunk review (`karyi/reviewTask`).
 */
export interface ApplyTaskParams {
  taskId: string;
  acceptedHunks?: string[] | null;
  modifiedContent?: ModifiedContent[] | null;
}

/** `karyi/answerTask`: the user's answer to the question a waiting task asks. */
export interface AnswerTaskParams {
  taskId: string;
  allow: boolean;
  feedback?: string | null;
}

/** The custom methods, by name. */
export const Methods = {
  chat: 'karyi/chat',
  cancel: 'karyi/cancel',
  models: 'karyi/models',
  modelState: 'karyi/modelState',
  setModel: 'karyi/setModel',
  confirmTool: 'karyi/confirmTool',
  fileDiffs: 'karyi/fileDiffs',
  provideValue: 'karyi/provideValue',
  sessions: 'karyi/sessions',
  loadSession: 'karyi/loadSession',
  deleteSession: 'karyi/deleteSession',
  checkpoints: 'karyi/checkpoints',
  restoreCheckpoint: 'karyi/restoreCheckpoint',
  tools: 'karyi/tools',
  rules: 'karyi/rules',
  diagnostics: 'karyi/diagnostics',
  restartMcpServer: 'karyi/restartMcpServer',
  terminalInput: 'karyi/terminalInput',
  setMode: 'karyi/setMode',
  commands: 'karyi/commands',
  startTask: 'karyi/startTask',
  tasks: 'karyi/tasks',
  task: 'karyi/task',
  answerTask: 'karyi/answerTask',
  stopTask: 'karyi/stopTask',
  applyTask: 'karyi/applyTask',
  reviewTask: 'karyi/reviewTask',
  keepTask: 'karyi/keepTask',
  discardTask: 'karyi/discardTask',
  taskUpdate: 'karyi/taskUpdate',
  turnUpdate: 'karyi/turnUpdate',
  terminalOutput: 'karyi/terminalOutput',
} as const;
