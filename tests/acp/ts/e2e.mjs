// Karyi's `karyi acp` driven by the official TypeScript library (@agentclientprotocol/sdk,
// stable v1), run by tests/acp/test_ts_client.py against its fake model server. Every
// message Karyi sends is checked against the library's own zod schemas, strictly: a
// field the schema does not know, a value it would replace or drop, or a malformed
// message fails the run (exit 1, each violation printed).
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import * as z from "./node_modules/@agentclientprotocol/sdk/dist/v1/schema/zod.gen.js";
import * as zUnstable from "./node_modules/@agentclientprotocol/sdk/dist/v1/unstable/schema/zod.gen.js";

const env = process.env;
const WS = env.KARYI_WS;
const EXTRA = env.KARYI_EXTRA_DIR;
const problems = [];
const fail = (what) => problems.push(what);
const check = (ok, what) => ok || fail(what);

const RESPONSES = {
  initialize: zUnstable.zInitializeResponse, // it advertises session/fork, named only there
  authenticate: z.zAuthenticateResponse,
  logout: z.zLogoutResponse,
  "session/new": z.zNewSessionResponse,
  "session/load": z.zLoadSessionResponse,
  "session/list": z.zListSessionsResponse,
  "session/resume": z.zResumeSessionResponse,
  "session/close": z.zCloseSessionResponse,
  "session/delete": z.zDeleteSessionResponse,
  "session/set_mode": z.zSetSessionModeResponse,
  "session/set_config_option": z.zSetSessionConfigOptionResponse,
  "session/prompt": z.zPromptResponse,
  "session/fork": zUnstable.zForkSessionResponse, // unstable schema
};
const FROM_AGENT = {
  "session/update": z.zSessionNotification,
  "session/request_permission": z.zRequestPermissionRequest,
  "fs/read_text_file": z.zReadTextFileRequest,
  "fs/write_text_file": z.zWriteTextFileRequest,
  "terminal/create": z.zCreateTerminalRequest,
  "terminal/output": z.zTerminalOutputRequest,
  "terminal/release": z.zReleaseTerminalRequest,
  "terminal/wait_for_exit": z.zWaitForTerminalExitRequest,
  "terminal/kill": z.zKillTerminalRequest,
  "elicitation/create": z.zCreateElicitationRequest,
};

// Every key Karyi sent must survive parsing unchanged: zod drops unknown keys and the
// library's lenient readers replace bad values with defaults, so a difference is a
// violation.
function same(sent, parsed, path) {
  if (sent === null || typeof sent !== "object") {
    check(Object.is(sent, parsed), `${path}: ${JSON.stringify(sent)} read as ${JSON.stringify(parsed)}`);
    return;
  }
  if (Array.isArray(sent)) {
    if (!Array.isArray(parsed) || parsed.length !== sent.length) {
      fail(`${path}: array of ${sent.length} read as ${JSON.stringify(parsed)}`);
      return;
    }
    sent.forEach((v, i) => same(v, parsed[i], `${path}[${i}]`));
    return;
  }
  if (parsed === null || typeof parsed !== "object") {
    fail(`${path}: object read as ${JSON.stringify(parsed)}`);
    return;
  }
  for (const key of Object.keys(sent)) {
    if (!(key in parsed)) fail(`${path}.${key}: unknown field`);
    else same(sent[key], parsed[key], `${path}.${key}`);
  }
}

function validate(schema, value, path) {
  const result = schema.safeParse(value);
  if (!result.success) fail(`${path}: ${result.error.message}`);
  else same(value, result.data, path);
}

const seen = []; // every message from Karyi, in order
const asked = []; // elicitation/create params
// What a turn says (its messages, calls and task list) comes while its session/prompt, or
// the session/load replaying it, is unanswered; never between turns.
const OF_A_TURN = new Set(["user_message_chunk", "agent_message_chunk", "agent_thought_chunk", "tool_call", "tool_call_update", "plan"]);
function outsideATurn(message, open) {
  const update = message.params?.update;
  if (message.method !== "session/update" || !OF_A_TURN.has(update?.sessionUpdate)) return;
  const sid = message.params.sessionId;
  const inTurn = [...open.values()].some((r) => ["session/prompt", "session/load"].includes(r.method) && r.params?.sessionId === sid);
  check(inTurn, `a ${update.sessionUpdate} update of ${sid} outside any turn`);
}
function inspect(message, sentMethods, open) {
  seen.push(message);
  outsideATurn(message, open);
  if ("id" in message && !("method" in message)) open.delete(message.id);
  const extra = Object.keys(message).filter((k) => !["jsonrpc", "id", "method", "params", "result", "error"].includes(k));
  check(message.jsonrpc === "2.0" && extra.length === 0, `envelope: ${JSON.stringify(message)}`);
  if ("method" in message) {
    const schema = FROM_AGENT[message.method];
    if (!schema) fail(`unexpected method ${message.method}`);
    else validate(schema, message.params, message.method);
  } else if ("error" in message) {
    validate(z.zError, message.error, `error of ${sentMethods.get(message.id)}`);
  } else {
    const method = sentMethods.get(message.id);
    const schema = RESPONSES[method];
    if (!schema) fail(`response to unknown request ${message.id}`);
    else validate(schema, message.result, `${method} result`);
  }
}

function lines(onLine) {
  let buffer = "";
  const decoder = new TextDecoder();
  return new TransformStream({
    transform(chunk, out) {
      buffer += decoder.decode(chunk, { stream: true });
      let at;
      while ((at = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, at).trim();
        buffer = buffer.slice(at + 1);
        if (line) onLine(JSON.parse(line));
      }
      out.enqueue(chunk);
    },
  });
}

// One `karyi acp` process and a library client on it; `op` runs with the client context.
async function withKaryi(extraEnv, op) {
  const childEnv = { ...env };
  for (const [name, value] of Object.entries(extraEnv)) {
    if (value === null) delete childEnv[name]; // not set at all
    else childEnv[name] = value;
  }
  const child = spawn(env.KARYI_PYTHON, ["-m", "karyi", "acp"], {
    cwd: WS,
    env: childEnv,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const sentMethods = new Map();
  const open = new Map(); // requests to Karyi not answered yet
  const toKaryi = lines((m) => "method" in m && "id" in m && (sentMethods.set(m.id, m.method), open.set(m.id, m)));
  toKaryi.readable.pipeTo(Writable.toWeb(child.stdin)).catch(() => {});
  const fromKaryi = Readable.toWeb(child.stdout).pipeThrough(lines((m) => inspect(m, sentMethods, open)));
  const updates = [];
  const waiting = new Set(); // resolvers of `until`, tried on every update
  // The first update `found` accepts, now or when it comes (an event, never a timer).
  updates.until = (found) =>
    new Promise((done) => {
      const hit = updates.find(found);
      if (hit) return done(hit);
      const waiter = (u) => found(u) && (waiting.delete(waiter), done(u));
      waiting.add(waiter);
    });
  const app = acp
    .client({ name: "karyi-ts-e2e" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params.update);
      for (const waiter of [...waiting]) waiter(params.update);
    })
    .onRequest(acp.methods.client.session.requestPermission, () => ({
      outcome: { outcome: "selected", optionId: "allow_once" },
    }))
    .onRequest(acp.methods.client.elicitation.create, ({ params }) => {
      asked.push(params);
      const key = Object.keys(params.requestedSchema.properties)[0];
      return { action: "accept", content: { [key]: "https://staging.example" } };
    });
  try {
    return await app.connectWith(acp.ndJsonStream(toKaryi.writable, fromKaryi), (ctx) => op(ctx, updates));
  } finally {
    child.stdin.end();
    await new Promise((done) => (child.exitCode !== null ? done() : child.on("exit", done)));
  }
}

async function refusedWith(promise, code, what) {
  try {
    await promise;
    fail(`${what}: expected error ${code}, got a result`);
  } catch (error) {
    check(error.code === code, `${what}: expected error ${code}, got ${error.code} ${error.message}`);
  }
}

const clientCapabilities = {
  fs: { readTextFile: false, writeTextFile: false },
  terminal: false,
  auth: { terminal: true },
  elicitation: { form: {} },
  session: { configOptions: { boolean: {} } }, // boolean config options (schema 1.18)
};
let sessionId;
// A 1x1 PNG: an image prompt reaches the model as an image part (test_ts_client.py checks).
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGBgAAAABQABpfZFQAAAAABJRU5ErkJggg==';

await withKaryi({}, async (ctx, updates) => {
  const init = await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities });
  check(init.protocolVersion === 1, "protocol version 1");
  const sc = init.agentCapabilities.sessionCapabilities;
  for (const cap of ["list", "resume", "close", "delete", "fork", "additionalDirectories"]) check(sc[cap], `sessionCapabilities.${cap}`);
  check(init.authMethods.some((m) => m.type === "terminal" && m.args[0] === "login"), "terminal sign-in offered");
  check(init.agentCapabilities.promptCapabilities.image === true, "image: true (pictures reach the model)");

  const created = await ctx.request(acp.methods.agent.session.new, { cwd: WS, mcpServers: [], additionalDirectories: [EXTRA] });
  sessionId = created.sessionId;
  // The answer comes at once with the modes and the mode option; every option follows as a
  // config_option_update once the session's runtime is open (docs/acp.md#start-up).
  check(created.modes.currentModeId === "act" && created.configOptions.map((o) => o.id).join() === "mode", "answered at once");
  const opened = await updates.until((u) => u.sessionUpdate === "config_option_update");
  const models = opened.configOptions.find((o) => o.id === "model");
  check(models && models.category === "model" && models.options.some((o) => o.value === "openai:other-model"), "model option");
  // The model server's own list (GET /models) follows as a config_option_update, as the
  // VS Code picker lists it.
  const offers = (u) => u.configOptions?.find((o) => o.id === "model").options.some((o) => o.value === "openai:listed-model");
  const serverList = await updates.until((u) => u.sessionUpdate === "config_option_update" && offers(u));
  check(serverList.configOptions.find((o) => o.id === "model").currentValue === "openai:test-model", "listed, not chosen");
  const set = await ctx.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: "model", value: "openai:listed-model" });
  check(set.configOptions.find((o) => o.id === "model").currentValue === "openai:listed-model", "model switched");
  await ctx.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: "mode", value: "plan" });
  check(updates.some((u) => u.sessionUpdate === "current_mode_update" && u.currentModeId === "plan"), "mode update");

  const answer = await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Change the greeting" }] });
  check(answer.stopReason === "end_turn", `stop reason ${answer.stopReason}`);
  const announced = new Set();
  for (const u of updates) {
    if (u.sessionUpdate === "tool_call") announced.add(u.toolCallId);
    if (u.sessionUpdate === "tool_call_update") check(announced.has(u.toolCallId), `update before tool_call for ${u.toolCallId}`);
  }
  const refused = updates.find((u) => u.sessionUpdate === "tool_call");
  check(refused && refused.status === "failed" && refused.kind === "edit", "the refused edit is announced, failed");
  const info = updates.find((u) => u.sessionUpdate === "session_info_update");
  check(info && info.title === "Change the greeting" && info.updatedAt, "title update");

  const listed = await ctx.request(acp.methods.agent.session.list, { cwd: WS });
  check(listed.sessions.length === 1 && listed.sessions[0].sessionId === sessionId && listed.sessions[0].title === "Change the greeting", "listed");
  await ctx.request(acp.methods.agent.session.close, { sessionId });
  await refusedWith(ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "x" }] }), -32602, "prompt after close");
});

await withKaryi({}, async (ctx, updates) => {
  await ctx.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities });
  const resumed = await ctx.request(acp.methods.agent.session.resume, { sessionId, cwd: WS });
  check(resumed.modes.currentModeId === "plan", "the mode is kept");
  const model = resumed.configOptions.find((o) => o.id === "model");
  check(model.currentValue === "openai:listed-model", "the session's model is kept");
  await ctx.request(acp.methods.agent.session.setMode, { sessionId, modeId: "act" });
  const picture = { type: "image", mimeType: "image/png", data: PNG };
  const answer = await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Again" }, picture] });
  check(answer.stopReason === "end_turn", "resumed prompt with an image");
  check(asked.length === 1 && asked[0].mode === "form" && asked[0].sessionId === sessionId, "a plain value asked by a form");
  check(!updates.some((u) => u.sessionUpdate === "user_message_chunk"), "resume replays no history");
  check(updates.some((u) => u.sessionUpdate === "plan" && u.entries[0].status === "completed"), "the task list, in its turn");
  // The stable entry point has no name for it: session/fork is in the unstable schema.
  const fork = await ctx.request("session/fork", { sessionId, cwd: WS, mcpServers: [] });
  check(fork.sessionId !== sessionId && fork.modes.currentModeId === "act", "forked");
  const forked = await ctx.request(acp.methods.agent.session.list, { cwd: WS });
  check(forked.sessions.some((s) => s.sessionId === fork.sessionId && s.title === "Change the greeting (fork)"), "the fork is listed");
  await ctx.request(acp.methods.agent.session.delete, { sessionId: fork.sessionId });
  await ctx.request(acp.methods.agent.session.delete, { sessionId });
  const listed = await ctx.request(acp.methods.agent.session.list, { cwd: WS });
  check(listed.sessions.length === 0, "deleted");
});

const noKey = { KARYI_BASE_URL: null, OPENAI_API_KEY: null, KARYI_API_KEY: null };
await withKaryi(noKey, async (ctx) => {
  const init = await ctx.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities });
  check(init.agentCapabilities.auth?.logout, "logout advertised");
  await refusedWith(ctx.request(acp.methods.agent.authenticate, { methodId: "api-key" }), -32000, "authenticate without a key");
  await ctx.request(acp.methods.agent.logout, {}); // nothing stored: still an answer
  await refusedWith(ctx.request(acp.methods.agent.authenticate, { methodId: "api-key" }), -32000, "authenticate after logout");
  const created = await ctx.request(acp.methods.agent.session.new, { cwd: WS, mcpServers: [] });
  await refusedWith(
    ctx.request(acp.methods.agent.session.prompt, { sessionId: created.sessionId, prompt: [{ type: "text", text: "hi" }] }),
    -32000,
    "prompt without a key",
  );
});

// A model with extended thinking: its budget is a select (thought_level), prompt caching
// a boolean option; both shapes pass the strict check above, and apply from the next turn.
const claude = { KARYI_MODEL: "anthropic:claude-test", KARYI_BASE_URL: env.KARYI_ANTHROPIC_URL, ANTHROPIC_API_KEY: "sk-ant-test" };
await withKaryi(claude, async (ctx, updates) => {
  await ctx.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities });
  const created = await ctx.request(acp.methods.agent.session.new, { cwd: WS, mcpServers: [] });
  const id = created.sessionId;
  const opened = await updates.until((u) => u.sessionUpdate === "config_option_update");
  const byId = Object.fromEntries(opened.configOptions.map((o) => [o.id, o]));
  check(byId.thinking?.type === "select" && byId.thinking.category === "thought_level" && byId.thinking.currentValue === "0", "thinking budget");
  check(byId.prompt_caching?.type === "boolean" && byId.prompt_caching.currentValue === true, "a boolean option");
  await ctx.request(acp.methods.agent.session.setConfigOption, { sessionId: id, configId: "thinking", value: "4096" });
  const set = await ctx.request(acp.methods.agent.session.setConfigOption, { sessionId: id, configId: "prompt_caching", type: "boolean", value: false });
  const now = Object.fromEntries(set.configOptions.map((o) => [o.id, o.currentValue]));
  check(now.thinking === "4096" && now.prompt_caching === false, `options now ${JSON.stringify(now)}`);
  await refusedWith(
    ctx.request(acp.methods.agent.session.setConfigOption, { sessionId: id, configId: "prompt_caching", value: "off" }),
    -32602,
    "a string for a boolean option",
  );
  const answer = await ctx.request(acp.methods.agent.session.prompt, { sessionId: id, prompt: [{ type: "text", text: "Think first" }] });
  check(answer.stopReason === "end_turn", `thinking turn: ${answer.stopReason}`);
});

console.log(`${seen.length} messages from karyi validated against @agentclientprotocol/sdk (ACP v${acp.PROTOCOL_VERSION})`);
if (problems.length) {
  for (const p of problems) console.error(`VIOLATION ${p}`);
  process.exit(1);
}
