// The e2e harness: the fake model server, an isolated code-server with the packaged
// extension installed, and headless Debian Chromium driven by playwright-core.
// Everything is waited for by events or selectors; nothing sleeps a fixed time.
import { spawn, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { chromium } from 'playwright-core';

export const EXT_DIR = path.resolve(import.meta.dirname, '..', '..');
export const REPO = path.resolve(EXT_DIR, '..');

export function log(...args) {
  console.log(`[e2e ${new Date().toISOString().slice(11, 19)}]`, ...args);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/** The fake model server process; `script(...)`, `fault(...)`, `release(n)`, `requests()`, `headers()`. */
export async function startFakeModel() {
  const python = path.join(REPO, '.venv', 'bin', 'python');
  const proc = spawn(python, [path.join(EXT_DIR, 'test', 'e2e', 'fake_model.py')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const line = await new Promise((resolve, reject) => {
    const rl = readline.createInterface({ input: proc.stdout });
    rl.once('line', resolve);
    proc.once('exit', (code) => reject(new Error(`fake model server exited (${code})`)));
  });
  const { url, control } = JSON.parse(line);
  const post = async (route, body) => {
    const r = await fetch(`${control}${route}`, { method: 'POST', body: JSON.stringify(body) });
    if (!r.ok) throw new Error(`${route}: ${r.status}`);
  };
  return {
    url,
    control,
    script: (...texts) => post('/script', { replies: texts.map((t) => (typeof t === 'string' ? { text: t } : t)) }),
    fault: (f) => post('/fault', f),
    reset: () => post('/reset', {}),
    /** A paced reply (`{paced: true}`) streams `events` more events. */
    release: (events) => post('/release', { events }),
    listModels: (models) => post('/models', { models }),
    /** Each code reviewer's replies, by reviewer (they ask in parallel). */
    reviewers: (script) => post('/reviewers', script),
    requests: async () => (await fetch(`${control}/requests`)).json(),
    headers: async () => (await fetch(`${control}/headers`)).json(),
    stop: () => proc.stdin.end(),
  };
}

/** Waits until `url` answers 200 (code-server has no readiness event; bounded and said why). */
async function waitHealthy(url, ms = 60_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`${url} did not come up`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * An isolated code-server with the extension installed, settings pointing at the fake
 * model. `fresh`: as a new user has it (docs/install.md): no `karyi.server.command`, a
 * fresh HOME, nothing of this checkout on PATH, so the extension sets up its own server.
 */
export async function startCodeServer({ codeServer, vsix, fake, folders, fresh = false }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), fresh ? 'karyi-e2e-fresh-' : 'karyi-e2e-'));
  const userData = path.join(dir, 'user');
  fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
  for (const sub of ['config', 'data', 'tmp', 'karyi-config', 'home']) fs.mkdirSync(path.join(dir, sub));
  const settings = {
    'workbench.startupEditor': 'none',
    'telemetry.telemetryLevel': 'off',
    'extensions.autoUpdate': false,
    'update.mode': 'none',
    'security.workspace.trust.enabled': false,
    'workbench.tips.enabled': false,
    'chat.commandCenter.enabled': false,
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    // VS Code for the Web saves after a delay by default; desktop VS Code does not. The
    // inline-diff steps check that a pending preview never reaches the disk.
    'files.autoSave': 'off',
    'karyi.model': 'openai:fake-model',
    'karyi.baseUrl': fake.url,
    // KARYI_MANAGED_SETTINGS: the organisation's file, absent unless a step writes it
    // (pinned_steps.mjs).
    'karyi.server.env': { KARYI_API_KEY: 'test-key', KARYI_CONFIG_DIR: path.join(dir, 'karyi-config'), KARYI_MANAGED_SETTINGS: path.join(dir, 'managed-settings.json') },
  };
  if (!fresh) settings['karyi.server.command'] = path.join(REPO, '.venv', 'bin', 'karyi');
  fs.writeFileSync(path.join(userData, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
  if (!fresh) {
    // Karyi's own user settings: one real MCP server (the test server of tests/support).
    const calc = {
      command: path.join(REPO, '.venv', 'bin', 'python'),
      args: ['-m', 'tests.support.mcp_server', 'stdio'],
      cwd: REPO,
      includeTools: ['add'],
    };
    fs.writeFileSync(path.join(dir, 'karyi-config', 'settings.json'), JSON.stringify({ mcpServers: { calc } }, null, 2));
  }
  const server = { dir, fresh, codeServer, folder: folders[0], fakeControl: fake.control };
  execFileSync(codeServer, [...profileArgs(dir), '--install-extension', vsix], { env: serverEnv(server), stdio: ['ignore', 'pipe', 'inherit'] });
  return launch(server);
}

function profileArgs(dir) {
  return ['--user-data-dir', path.join(dir, 'user'), '--extensions-dir', path.join(dir, 'ext')];
}

/** The environment code-server (and so the extension and the Karyi server) runs in. */
function serverEnv({ dir, fresh, fakeControl }) {
  const env = {
    ...process.env,
    XDG_CONFIG_HOME: path.join(dir, 'config'),
    XDG_DATA_HOME: path.join(dir, 'data'),
    TMPDIR: path.join(dir, 'tmp'),
    KARYI_E2E_CONTROL: fakeControl,
    KARYI_CONFIG_DIR: path.join(dir, 'karyi-config'),
  };
  delete env.VSCODE_IPC_HOOK_CLI;
  if (fresh) {
    env.HOME = path.join(dir, 'home');
    env.PATH = (env.PATH ?? '').split(path.delimiter).filter((p) => p && !path.resolve(p).startsWith(REPO)).join(path.delimiter);
    for (const k of ['VIRTUAL_ENV', 'PYTHONPATH', 'PYTHONHOME', 'XDG_CACHE_HOME']) delete env[k];
  }
  return env;
}

/** Start (or start again, same profile) code-server; `stop()` ends it, `restart()` starts it anew. */
export async function launch(server) {
  const port = await freePort();
  const logFile = fs.openSync(path.join(server.dir, 'code-server.log'), 'a');
  const proc = spawn(
    server.codeServer,
    ['--bind-addr', `127.0.0.1:${port}`, '--auth', 'none', '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', ...profileArgs(server.dir), server.folder],
    { env: serverEnv(server), detached: true, stdio: ['ignore', logFile, logFile] },
  );
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  const base = `http://127.0.0.1:${port}`;
  await waitHealthy(`${base}/healthz`);
  log(`code-server on ${base} (${server.dir})`);
  return {
    base,
    dir: server.dir,
    stop: async () => {
      try {
        process.kill(-proc.pid, 'SIGTERM');
      } catch {
        return; /* already gone */
      }
      await exited;
    },
    restart: async () => launch(server),
    logText: () => fs.readFileSync(path.join(server.dir, 'code-server.log'), 'utf8'),
  };
}

export async function launchBrowser(dir) {
  const profile = fs.mkdtempSync(path.join(dir, 'chromium-'));
  return chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
