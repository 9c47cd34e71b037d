// The one-download install (docs/install.md) as a new user meets it: the packaged .vsix in
// a fresh profile with a fresh HOME, no `karyi` on PATH, no `karyi.server.command` and no
// checkout of this repository in sight. The first start sets up the server from the
// bundled wheels under a progress notification and a chat task completes; a second start
// of code-server reuses that environment.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { launchBrowser, startCodeServer } from './harness.mjs';

const WAIT = 120_000;

/** Processes (Linux /proc) whose command line starts with `prefix`: which server runs. */
function processes(prefix) {
  const out = [];
  for (const pid of fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
      if (cmd.startsWith(prefix)) out.push(pid);
    } catch {
      /* the process ended meanwhile */
    }
  }
  return out;
}

function chatFrame(page) {
  return page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
}

async function openChat(context, base, ws) {
  const page = await context.newPage();
  await page.goto(`${base}/?folder=${encodeURIComponent(ws)}`);
  await page.locator('.monaco-workbench').waitFor({ timeout: WAIT });
  await page.locator('.activitybar a[aria-label^="Karyi"]').click({ timeout: WAIT });
  await chatFrame(page).locator('#input').waitFor({ timeout: WAIT });
  return { page, chat: chatFrame(page) };
}

/** A turn with a tool call (a read of README.md) that the bundled server runs. */
async function chatTask(chat, fake, answer) {
  await fake.script('<tools><read><file src="README.md"/></read></tools>', answer);
  const input = chat.locator('#input');
  await input.fill('What does the README say?');
  await input.press('Enter');
  await chat.locator('.item.turn.done .md', { hasText: answer }).waitFor({ timeout: WAIT });
  assert.match(JSON.stringify((await fake.requests()).at(-1).messages), /Temperature conversions/, 'the read went to the model');
}

export async function freshInstallSteps({ step, shot, codeServer, vsix, fake, ws }) {
  const server = await startCodeServer({ codeServer, vsix, fake, folders: [ws], fresh: true });
  const storage = path.join(server.dir, 'user', 'User', 'globalStorage', 'karyi.karyi');
  const version = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')).version;
  const marker = path.join(storage, `env-${version}`, 'karyi-env.json');
  const serverCmd = `${path.join(storage, `env-${version}`, 'bin', 'python')} -m karyi lsp --stdio`;
  let context = await launchBrowser(server.dir);
  let again;
  let onStep;
  let firstServers = [];
  try {
    await step('fresh install: the first start sets up the server under a progress notification', async () => {
      const { page } = await openChat(context, server.base, ws);
      onStep = page;
      const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'setting up the server' });
      await toast.waitFor({ timeout: WAIT });
      await shot(page, 'vscode-setup.png');
      await page.locator('.statusbar-item', { hasText: 'Karyi: openai:fake-model' }).waitFor({ timeout: WAIT });
      await toast.waitFor({ state: 'detached', timeout: WAIT });
      assert.ok(fs.existsSync(marker), 'the environment is in the global storage');
    });
    await step('fresh install: a chat task completes with the bundled server', async () => {
      await chatTask(chatFrame(onStep), fake, 'The README describes temperature conversions.');
      firstServers = processes(serverCmd);
      assert.ok(firstServers.length > 0, `the server runs as ${serverCmd}`);
    });
    const madeAt = fs.statSync(marker).mtimeMs;
    await context.close();
    await server.stop();
    again = await server.restart();
    context = await launchBrowser(server.dir);
    await step('fresh install: a second start reuses the environment', async () => {
      const { chat } = await openChat(context, again.base, ws);
      await chatTask(chat, fake, 'Still here, same environment.');
      assert.equal(fs.statSync(marker).mtimeMs, madeAt, 'the environment was not made again');
      const fresh = processes(serverCmd).filter((pid) => !firstServers.includes(pid));
      assert.ok(fresh.length > 0, `a new server runs as ${serverCmd}`);
      assert.deepEqual(fs.readdirSync(storage).filter((n) => n.includes('env-')), [`env-${version}`]);
    });
  } finally {
    await context.close().catch(() => undefined);
    await (again ?? server).stop();
  }
}
