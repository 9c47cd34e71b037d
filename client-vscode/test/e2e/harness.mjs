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

/** The fake model server process; `script(...)`, `fault(...)`, `requests()`, `headers()`. */
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
    listModels: (models) => post('/models', { models }),
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

/** An isolated code-server with the extension installed, settings pointing at the fake model. */
export async function startCodeServer({ codeServer, vsix, fake, folders }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'karyi-e2e-'));
  const userData = path.join(dir, 'user');
  const extensions = path.join(dir, 'ext');
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
    'karyi.server.command': path.join(REPO, '.venv', 'bin', 'karyi'),
    'karyi.model': 'openai:fake-model',
    'karyi.baseUrl': fake.url,
    'karyi.server.env': { KARYI_API_KEY: 'test-key', KARYI_CONFIG_DIR: path.join(dir, 'karyi-config') },
  };
  fs.writeFileSync(path.join(userData, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
  // Karyi's own user settings: one real MCP server (the test server of tests/support).
  const calc = {
    command: path.join(REPO, '.venv', 'bin', 'python'),
    args: ['-m', 'tests.support.mcp_server', 'stdio'],
    cwd: REPO,
    includeTools: ['add'],
  };
  fs.writeFileSync(path.join(dir, 'karyi-config', 'settings.json'), JSON.stringify({ mcpServers: { calc } }, null, 2));
  const env = {
    ...process.env,
    XDG_CONFIG_HOME: path.join(dir, 'config'),
    XDG_DATA_HOME: path.join(dir, 'data'),
    TMPDIR: path.join(dir, 'tmp'),
    KARYI_E2E_CONTROL: fake.control,
    KARYI_CONFIG_DIR: path.join(dir, 'karyi-config'),
  };
  delete env.VSCODE_IPC_HOOK_CLI;
  const common = ['--user-data-dir', userData, '--extensions-dir', extensions];
  execFileSync(codeServer, [...common, '--install-extension', vsix], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await freePort();
  const logFile = fs.openSync(path.join(dir, 'code-server.log'), 'w');
  const proc = spawn(
    codeServer,
    ['--bind-addr', `127.0.0.1:${port}`, '--auth', 'none', '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', ...common, folders[0]],
    { env, detached: true, stdio: ['ignore', logFile, logFile] },
  );
  const base = `http://127.0.0.1:${port}`;
  await waitHealthy(`${base}/healthz`);
  log(`code-server on ${base} (${dir})`);
  return {
    base,
    dir,
    stop: () => {
      try {
        process.kill(-proc.pid, 'SIGTERM');
      } catch {
        /* already gone */
      }
    },
    logText: () => fs.readFileSync(path.join(dir, 'code-server.log'), 'utf8'),
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
