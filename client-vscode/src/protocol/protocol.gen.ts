// Generated from server/karyi/lsp/wire/ (params.py, results.py) and
// server/karyi/agent/events.py by `make protocol`: do not edit.
// The custom methods' parameters and names, the events of `karyi/turnUpdate` and what
// the server sends (docs/protocol.md, "The language server").

export type Mode = 'plan' | 'act';

export type ImageType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

export type ConfirmOutcome = 'allowOnce' | 'allowAlways' | 'reject' | 'rejectAlways';

export type Scope = 'session' | 'workspace' | 'user';

export type Restore = 'code' | 'conversation' | 'both';

export type TextChannel = 'text' | 'thinking' | 'answer';

export type HookStatus = 'ok' | 'blocked' | 'reported' | 'failed';

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

/**
 * `karyi/steer`: a message into the session's running turn, read by the model at
 * its next tool boundary (docs/sessions.md#steer).
 */
export interface SteerParams {
  sessionId: string;
  message: string;
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

/**
 * `karyi/rewind`: take a session back to before one of its turns (docs/sessions.md#rewind).
 *
 * `restore`: the code, the conversation or both; `overwrite`: files no rewound call
 * changed that may be put back all the same (else they are kept); `dryRun`: only say
 * what it would do.
 */
export interface RewindParams {
  sessionId: string;
  turnId: string;
  restore?: Restore;
  overwrite?: string[];
  dryRun?: boolean;
}

/**
 * `karyi/forkSession`: a new session with the turns up to and including `turnId`
 * (left out: every turn; docs/sessions.md#fork).
 */
export interface ForkSessionParams {
  sessionId: string;
  turnId?: string;
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
  steer: 'karyi/steer',
  models: 'karyi/models',
  modelState: 'karyi/modelState',
  setModel: 'karyi/setModel',
  confirmTool: 'karyi/confirmTool',
  fileDiffs: 'karyi/fileDiffs',
  provideValue: 'karyi/provideValue',
  sessions: 'karyi/sessions',
  loadSession: 'karyi/loadSession',
  deleteSession: 'karyi/deleteSession',
  rewind: 'karyi/rewind',
  forkSession: 'karyi/forkSession',
  checkpoints: 'karyi/checkpoints',
  restoreCheckpoint: 'karyi/restoreCheckpoint',
  tools: 'karyi/tools',
  rules: 'karyi/rules',
  diagnostics: 'karyi/diagnostics',
  navigate: 'karyi/navigate',
  restartMcpServer: 'karyi/restartMcpServer',
  terminalInput: 'karyi/terminalInput',
  setMode: 'karyi/setMode',
  commands: 'karyi/commands',
  memory: 'karyi/memory',
  pinned: 'karyi/pinned',
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

/** A user message started a turn. */
export interface TurnStartedEvent {
  type: 'turnStarted';
  sessionId: string;
  turnId: string;
  message: string;
  mode: Mode;
}

/** A model call began (step 1 is the first call of the turn). */
export interface StepEvent {
  type: 'step';
  step: number;
  model: string;
}

/** Model text: `text`, `thinking`, or `answer`. */
export interface TextEvent {
  type: 'text';
  text: string;
  channel: TextChannel;
}

/** The model is writing a call (parameters still streaming). */
export interface ToolPendingEvent {
  type: 'toolPending';
  index: number;
  name: string;
}

/**
 * An edit the model is still writing, as far as it arrived (docs/protocol.md,
 * "Drafts"): each file's change so far, for a preview that grows. Sent at most every
 * `DRAFT_INTERVAL` seconds, once the call's file is known and its find text matches;
 * `done` (no files) when the call is complete: its proposal replaces the draft.
 */
export interface ToolDraftEvent {
  type: 'toolDraft';
  index: number;
  tool: string;
  callId: string;
  files: DraftFile[];
  done: boolean;
}

/** A complete call, checked and scheduled. */
export interface ToolQueuedEvent {
  type: 'toolQueued';
  call: Call;
  description: string;
}

/** A call waits for the user's permission. */
export interface ToolAwaitingPermissionEvent {
  type: 'toolAwaitingPermission';
  call: Call;
  description: string;
  confirmation: Confirmation | null;
  reason: string;
}

/** A call started executing. */
export interface ToolRunningEvent {
  type: 'toolRunning';
  call: Call;
}

/** Live output of a running call (a command's terminal output). */
export interface ToolOutputEvent {
  type: 'toolOutput';
  callId: string;
  text: string;
}

/** A call finished (successfully or not), with its result and how long it took. */
export interface ToolDoneEvent {
  type: 'toolDone';
  call: Call;
  result: ToolResultJson;
  decision: string;
  seconds: number;
}

/** A call changed files (on disk, or in the editor and then on disk). */
export interface FileChangedEvent {
  type: 'fileChanged';
  call: Call;
  files: FileProposal[];
}

/** `get_value` waits for the user to give a secret (the front end asks; never the model). */
export interface ValueRequestedEvent {
  type: 'valueRequested';
  callId: string;
  key: string;
  reason: string;
  note: string;
  exists: boolean;
}

/**
 * A message the user sent while the turn ran reached the model, here: after the
 * results of the last calls, before the next model request (docs/sessions.md#steer).
 */
export interface SteeredEvent {
  type: 'steered';
  text: string;
}

/** Something the user should know: retries, changed files, compaction, checkpoints. */
export interface NoticeEvent {
  type: 'notice';
  topic: string;
  message: string;
}

/** Token usage so far in this turn. */
export interface UsageEvent {
  type: 'usage';
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  turnCost: number | null;
  sessionCost: number | null;
}

/**
 * The session switched between `plan` and `act`; `plan` is what the next act turn
 * will carry (empty: nothing).
 */
export interface ModeEvent {
  type: 'mode';
  sessionId: string;
  mode: Mode;
  plan: string;
}

/**
 * A user-configured hook ran (docs/workflow.md#hooks). `status`: `ok`, `blocked`
 * (it stopped a call or a prompt), `reported` (an afterTool hook's exit 2: its words
 * go to the model), `failed` (any other exit, a timeout: the agent went on).
 */
export interface HookEvent {
  type: 'hook';
  event: string;
  command: string;
  tool: string;
  status: HookStatus;
  exitCode: number | null;
  stdout: string;
  stderr: string;
  seconds: number;
}

/** The model wrote its task list (`todo_write`): the whole list, as it now stands. */
export interface TodosEvent {
  type: 'todos';
  items: TodoItem[];
}

/** The turn could not go on (provider failure, limits); the session is intact. */
export interface ErrorEvent {
  type: 'error';
  errorKind: string;
  message: string;
}

/** The turn ended. */
export interface TurnFinishedEvent {
  type: 'turnFinished';
  turnId: string;
  stopReason: string;
  finalAnswer: string | null;
  inputTokens: number;
  outputTokens: number;
  steps: number;
  cachedTokens: number;
  turnCost: number | null;
  sessionCost: number | null;
}

/**
 * An event of a subagent, run by the parent's call `call_id`, on the parent's stream.
 *
 * Call ids inside `event` are scoped by the parent call (`<callId>/<id>`), so they are
 * unique in the session and are what a front end answers a nested approval with.
 */
export interface SubagentEvent {
  type: 'subagent';
  agent: string;
  callId: string;
  event: TurnEvent;
}

/** Every event of a turn (agent/events.py). */
export type TurnEvent =
  | TurnStartedEvent
  | StepEvent
  | TextEvent
  | ToolPendingEvent
  | ToolDraftEvent
  | ToolQueuedEvent
  | ToolAwaitingPermissionEvent
  | ToolRunningEvent
  | ToolOutputEvent
  | ToolDoneEvent
  | FileChangedEvent
  | ValueRequestedEvent
  | SteeredEvent
  | NoticeEvent
  | UsageEvent
  | ModeEvent
  | HookEvent
  | TodosEvent
  | ErrorEvent
  | TurnFinishedEvent
  | SubagentEvent;

/** `karyi/turnUpdate`: one event of a session's running turn. */
export interface TurnUpdate {
  sessionId: string;
  turnId: string;
  event: TurnEvent;
}

/** `karyi/terminalOutput`: what the agent's terminal printed (docs/protocol.md). */
export interface TerminalOutput {
  sessionId: string;
  data: string;
}

/** `karyi/setMode`: the session's mode now, and the plan its next act turn carries. */
export interface ModeState {
  sessionId: string;
  mode: Mode;
  plan: string;
}

/**
 * `karyi/confirmTool`, `karyi/provideValue`, `karyi/terminalInput`: the answer was
 * taken (always `ok: true`; a refusal is an error instead).
 */
export interface Acknowledged {
  ok: boolean;
}

/** The files one tool call changes (or would change), as edit proposals. */
export interface CallDiffs {
  toolCallId: string;
  files: FileProposal[];
}

/**
 * `karyi/fileDiffs`: the calls' file changes waiting for approval, and those the
 * session applied (the latest ones).
 */
export interface FileDiffs {
  pending: CallDiffs[];
  applied: CallDiffs[];
}

/** `karyi/cancel`: whether a running turn was told to stop. */
export interface Cancelled {
  cancelled: boolean;
}

/**
 * `karyi/restoreCheckpoint`: the checkpoint put back, and the one taken just before
 * (to undo the restore with).
 */
export interface Restored {
  restored: string;
  undoCheckpoint: string;
}

/** The tokens of a turn, and what it cost in USD (null: the model has no price). */
export interface ChatUsage {
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  cost: number | null;
}

/**
 * `karyi/chat`: how the turn ended (its events came as `karyi/turnUpdate`s).
 * `unsent`: what `karyi/steer` sent into the turn that it ended before reading; send
 * it as the next message.
 */
export interface ChatResult {
  sessionId: string;
  mode: Mode;
  turnId: string;
  stopReason: string;
  finalAnswer: string | null;
  usage: ChatUsage;
  unsent: string[];
}

/**
 * The session's model and its context use (`karyi/modelState`, `karyi/setModel`);
 * `sessionId` null: no session yet (the configured model).
 */
export interface ModelState {
  sessionId: string | null;
  model: string;
  contextWindow: number;
  contextUsed: number;
  acceptsImages: boolean;
}

/** A model the picker offers, and where it was found. */
export interface ModelEntry {
  id: string;
  source: 'settings' | 'server';
}

/** `karyi/models`: the models on offer (docs/models.md#the-model-picker). */
export interface ModelList {
  sessionId: string | null;
  model: string;
  contextWindow: number;
  contextUsed: number;
  acceptsImages: boolean;
  models: ModelEntry[];
  note: string;
}

/** `karyi/sessions`: every stored session, newest first. */
export interface SessionList {
  sessions: SessionInfo[];
}

/**
 * `karyi/loadSession`: a session as the user saw it (its transcript,
 * docs/sessions.md) and its state: the task list, the mode, the plan, the cost.
 */
export interface LoadedSession {
  sessionId: string;
  title: string;
  transcript: Transcript;
  todos: TodoItem[];
  mode: Mode;
  plan: string;
  cost: number;
}

/**
 * A file a rewind of the code would change: `effect` on it, and whether a rewound
 * call changed it (else it is the user's, kept unless named in `overwrite`).
 */
export interface RewindFile {
  path: string;
  effect: 'modified' | 'created' | 'deleted';
  byAgent: boolean;
}

/**
 * `karyi/rewind`: what the rewind does (`dryRun`) or did.
 *
 * `prompt` is the message rewound to, for the input; `turns` how many turns leave the
 * conversation; `checkpoint` the snapshot the code goes back to (null: nothing to
 * restore); `restored` and `kept` the files put back and the user's files left as they
 * are; `undoCheckpoint` the snapshot taken just before (null: the code was not touched).
 */
export interface RewindResult {
  sessionId: string;
  turnId: string;
  prompt: string;
  turns: number;
  checkpoint: string | null;
  files: RewindFile[];
  done: boolean;
  conversation: boolean;
  restored: string[];
  kept: string[];
  undoCheckpoint: string | null;
}

/** `karyi/forkSession`: the new session's id and title. */
export interface Forked {
  sessionId: string;
  title: string;
}

/** The turn that took a checkpoint (nothing: none did). */
export interface TurnRef {
  sessionId?: string;
  turnId?: string;
}

/** A workspace snapshot, with the turn that took it (when one did). */
export interface CheckpointInfo {
  sessionId?: string;
  turnId?: string;
  id: string;
  label: string;
  time: number;
}

/** `karyi/deleteSession`: the session forgotten and deleted from the store. */
export interface Deleted {
  deleted: string;
}

/** `karyi/checkpoints`: the workspace's snapshots (a session's only, when named). */
export interface CheckpointList {
  checkpoints: CheckpointInfo[];
}

/** A tool the agent can call, and where it comes from. */
export interface ToolEntry {
  name: string;
  description: string;
  source: 'builtin' | 'discovered' | 'mcp';
}

/**
 * `karyi/tools`: what the agent can call, the MCP servers behind some of it, the
 * skills it may load and the installed plugins (docs/extensions.md).
 */
export interface ToolsInfo {
  tools: ToolEntry[];
  servers: McpServerStatus[];
  skills: SkillJson[];
  plugins: PluginJson[];
  warnings: string[];
}

/** `karyi/commands`: the slash commands a message may start with. */
export interface SlashCommandList {
  commands: SlashCommand[];
}

/** A slash command a message may start with (docs/workflow.md). */
export interface SlashCommand {
  name: string;
  description: string;
  scope: 'builtin' | 'workspace' | 'user';
  path: string;
}

/** `karyi/rules`: the rule files in force for a session (or for a new one). */
export interface RuleList {
  rules: RuleInfo[];
}

/** A project rule file in force (docs/context.md#rules). */
export interface RuleInfo {
  path: string;
  scope: 'user' | 'project' | 'folder' | 'memory' | 'auto memory';
}

/** `karyi/memory`: the memory files `/memory` shows and opens (docs/extensions.md#memory). */
export interface MemoryFileList {
  files: MemoryFile[];
}

/** A memory file, whether or not it exists yet. */
export interface MemoryFile {
  path: string;
  scope: 'user' | 'workspace' | 'auto';
  exists: boolean;
}

/**
 * `karyi/pinned`: the settings the organisation's managed file pins
 * (docs/security.md#managed-settings); an empty list without one.
 */
export interface PinnedSettings {
  file: string;
  settings: PinnedSetting[];
}

/** One pinned setting: the dotted key and its managed value as JSON text. */
export interface PinnedSetting {
  key: string;
  value: string;
}

/** `karyi/tasks`: every background task's record (docs/parallel.md). */
export interface TaskList {
  tasks: TaskRecord[];
}

/** A file a task changed, before and after (null: it did not exist on that side). */
export interface FileTexts {
  path: string;
  uri: string;
  before: string | null;
  after: string | null;
}

/**
 * `karyi/task`: the record (its keys too) with its diff and each changed file
 * before and after, for the editor's per-hunk review.
 */
export interface TaskDetail extends TaskRecord {
  diff: string;
  fileTexts: FileTexts[];
}

/** `karyi/answerTask`: the waiting task that was given its answer (it resumes). */
export interface Answered {
  answered: string;
}

/**
 * `karyi/reviewTask`: each changed file as the edit proposal applying the task would
 * make (the merge with the working tree as it is now), for the per-hunk review; `notes`
 * name the files left out.
 */
export interface TaskReview {
  task: TaskRecord;
  files: FileProposal[];
  notes: string[];
}

/** `karyi/applyTask`: what the three-way merge did. */
export interface ApplyResult {
  task: TaskRecord;
  merged: string[];
  conflicts: string[];
  notes: string[];
}

/** What each request the client sends takes, by method. */
export interface Params {
  'karyi/chat': ChatParams;
  'karyi/cancel': CancelParams;
  'karyi/steer': SteerParams;
  'karyi/models': OptionalSessionParams;
  'karyi/modelState': OptionalSessionParams;
  'karyi/setModel': SetModelParams;
  'karyi/confirmTool': ConfirmParams;
  'karyi/fileDiffs': FileDiffsParams;
  'karyi/provideValue': ProvideValueParams;
  'karyi/sessions': NoParams;
  'karyi/loadSession': SessionParams;
  'karyi/deleteSession': SessionParams;
  'karyi/rewind': RewindParams;
  'karyi/forkSession': ForkSessionParams;
  'karyi/checkpoints': OptionalSessionParams;
  'karyi/restoreCheckpoint': RestoreCheckpointParams;
  'karyi/tools': NoParams;
  'karyi/rules': OptionalSessionParams;
  'karyi/restartMcpServer': RestartMcpServerParams;
  'karyi/terminalInput': TerminalInputParams;
  'karyi/setMode': SetModeParams;
  'karyi/commands': NoParams;
  'karyi/memory': NoParams;
  'karyi/pinned': NoParams;
  'karyi/startTask': StartTaskParams;
  'karyi/tasks': NoParams;
  'karyi/task': TaskParams;
  'karyi/answerTask': AnswerTaskParams;
  'karyi/stopTask': TaskParams;
  'karyi/applyTask': ApplyTaskParams;
  'karyi/reviewTask': TaskParams;
  'karyi/keepTask': TaskParams;
  'karyi/discardTask': TaskParams;
}

/** What each request answers, by method. */
export interface Results {
  'karyi/chat': ChatResult;
  'karyi/cancel': Cancelled;
  'karyi/steer': Acknowledged;
  'karyi/models': ModelList;
  'karyi/modelState': ModelState;
  'karyi/setModel': ModelState;
  'karyi/confirmTool': Acknowledged;
  'karyi/fileDiffs': FileDiffs;
  'karyi/provideValue': Acknowledged;
  'karyi/sessions': SessionList;
  'karyi/loadSession': LoadedSession;
  'karyi/deleteSession': Deleted;
  'karyi/rewind': RewindResult;
  'karyi/forkSession': Forked;
  'karyi/checkpoints': CheckpointList;
  'karyi/restoreCheckpoint': Restored;
  'karyi/tools': ToolsInfo;
  'karyi/rules': RuleList;
  'karyi/restartMcpServer': McpServerStatus;
  'karyi/terminalInput': Acknowledged;
  'karyi/setMode': ModeState;
  'karyi/commands': SlashCommandList;
  'karyi/memory': MemoryFileList;
  'karyi/pinned': PinnedSettings;
  'karyi/startTask': TaskRecord;
  'karyi/tasks': TaskList;
  'karyi/task': TaskDetail;
  'karyi/answerTask': Answered;
  'karyi/stopTask': TaskRecord;
  'karyi/applyTask': ApplyResult;
  'karyi/reviewTask': TaskReview;
  'karyi/keepTask': TaskRecord;
  'karyi/discardTask': TaskRecord;
}

/**
 * A tool call in an event's JSON: as the model wrote it (`error`: why it is not a
 * valid call, then it is never executed).
 */
export interface Call {
  index: number;
  id: string;
  name: string;
  params: Record<string, unknown>;
  error: string | null;
}

/** What the user must see before approving a call: a command, a diff, a URL. */
export interface Confirmation {
  kind: string;
  title: string;
  details: string;
  diff: string | null;
  url: string | null;
  files: FileProposal[];
  sandboxed: boolean | null;
  always: boolean;
}

/** A result's canonical JSON form (docs/tools.md); `status` only when there is one. */
export interface ToolResultJson {
  success: boolean;
  llm_content: string;
  display: string | Record<string, unknown>;
  data: unknown;
  error: ToolErrorJson | null;
  metadata: Record<string, unknown>;
  status?: string;
}

/**
 * A file's proposed change for an editor's inline preview: its `uri` and the
 * editor's `version` of it, its text before (`original`) and after (`proposed`).
 */
export interface FileProposal {
  path: string;
  created: boolean;
  deleted: boolean;
  added: number;
  removed: number;
  edits: ProposalEdit[];
  hunks: Hunk[];
  unified: string;
  uri: string;
  version: number | null;
  original: string;
  proposed: string;
}

/** One item of the task list the model keeps (`todo_write`, docs/workflow.md). */
export interface TodoItem {
  id: string;
  text: string;
  status: 'pending' | 'in_progress' | 'done';
}

/**
 * A file of an edit still being written (`toolDraft`): its hunks so far, no whole
 * texts.
 */
export interface DraftFile {
  uri: string;
  path: string;
  created: boolean;
  added: number;
  removed: number;
  hunks: Hunk[];
}

/** A row of the session list. */
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

/** A session as the user saw it, in its wire form (docs/sessions.md). */
export interface Transcript {
  sessionId: string;
  title: string;
  dialect: string;
  turns: TranscriptTurn[];
}

/**
 * A server's state for status lists: `idle`, `connecting`, `connected`,
 * `disconnected`, `failed`.
 */
export interface McpServerStatus {
  name: string;
  state: 'idle' | 'connecting' | 'connected' | 'disconnected' | 'failed' | 'invalid';
  transport: string;
  where: string;
  tools: string[];
  error: string;
  starts: number;
}

/** A skill as front ends list it (`karyi/tools`' `skills`). */
export interface SkillJson {
  name: string;
  description: string;
  scope: string;
  path: string;
}

/** An installed plugin as front ends list it (`karyi plugin list --json`, `karyi/tools`). */
export interface PluginJson {
  name: string;
  scope: string;
  enabled: boolean;
  source: string;
  version: string;
  description: string;
  path: string;
}

/** Everything known about one background task. */
export interface TaskRecord {
  id: string;
  task: string;
  repo: string;
  worktree: string;
  branch: string;
  base: string;
  ref: string | null;
  check: string | null;
  model: string | null;
  status: 'queued' | 'running' | 'waiting' | 'done' | 'failed' | 'stopped' | 'interrupted' | 'applied' | 'kept' | 'discarded';
  step: string;
  created: number;
  started: number | null;
  finished: number | null;
  head: string | null;
  files: string[];
  input_tokens: number;
  output_tokens: number;
  cost: number | null;
  stop_reason: string | null;
  final_answer: string | null;
  error: string | null;
  check_result: CheckResult | null;
  session_id: string | null;
  question: { tool: string; description: string; details?: string; reason?: string } | null;
  runner_pid: number | null;
  runner_start: string | null;
  elapsed: number;
}

/** A failure in a result's JSON: its machine code and the sentence. */
export interface ToolErrorJson {
  code: string;
  message: string;
}

/** A text edit's JSON form (LSP `TextEdit`). */
export interface ProposalEdit {
  range: Range;
  newText: string;
}

/**
 * A hunk's JSON form (`karyi/fileDiffs`, edit previews): `range` of the original
 * and `newText` replace it; the header numbers are the unified diff's.
 */
export interface Hunk {
  id: string;
  header: string;
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  range: Range;
  newText: string;
  lines: string[];
}

/** One turn of a transcript (docs/sessions.md#the-transcript). */
export interface TranscriptTurn {
  id: string;
  prompt: string;
  context: string;
  images: ImageData[];
  blocks: (TranscriptText | TranscriptCall | TranscriptNotice | TranscriptSteer)[];
  stopReason: string | null;
  inputTokens: number;
  outputTokens: number;
  checkpoint: string | null;
  status: 'live' | 'compacted' | 'rewound';
}

/** The check command's outcome: passed when it exited 0. */
export interface CheckResult {
  command: string;
  exit_code: number | null;
  passed: boolean;
  output: string;
}

/** A picture in a chat message: base64 bytes, checked by the server (docs/images.md). */
export interface ImageData {
  mimeType: string;
  data: string;
  name: string;
}

/** Prose or thinking in a turn (`channel`). */
export interface TranscriptText {
  kind: 'text';
  channel: 'text' | 'thinking';
  text: string;
}

/**
 * A tool call: its parameters, the user's decision, a summary of its result, the
 * files it changed.
 */
export interface TranscriptCall {
  kind: 'call';
  id: string;
  name: string;
  description: string;
  params: Record<string, unknown>;
  status: 'done' | 'failed' | 'rejected' | 'invalid';
  decision: string;
  summary: string;
  error: string | null;
  files: FileStat[];
  output: string;
}

/** Something that happened to the session: a checkpoint, a compaction. */
export interface TranscriptNotice {
  kind: 'notice';
  notice: 'checkpoint' | 'compacted' | 'interrupted';
  text: string;
}

/** A message the user sent into the running turn, where the model got it. */
export interface TranscriptSteer {
  kind: 'steer';
  text: string;
}

/** A file a call changed, in lines. */
export interface FileStat {
  path: string;
  added: number;
  removed: number;
  created: boolean;
  deleted: boolean;
}
