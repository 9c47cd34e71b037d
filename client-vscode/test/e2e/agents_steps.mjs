// Background tasks in the Agents view (docs/parallel.md, "In VS Code"), in real VS Code:
// a task started from the palette runs in its own worktree while the workspace stays
// untouched, shows as running then done in the Agents view, is reviewed hunk by hunk in
// its file (one hunk accepted, one rejected: only the accepted one is applied); then one
// started with `/task` from the chat input shows in the Agents view too.
// KARYI_E2E_ONLY=agents runs these alone.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const KELVIN = `"""Kelvin conversions."""


def to_kelvin(celsius: float) -> float:
    """Celsius in Kelvin."""
    return celsius + 237.15


def from_kelvin(kelvin: float) -> float:
    """Kelvin in Celsius.

    The inverse of to_kelvin.
    """
    return kelvin - 237.15
`;

const TASK_EDIT = `I'll fix the constant.
<tools>
  <edit>
    <file src="src/kelvin.py">
      <find>    return celsius + 237.15</find>
      <replace>    return celsius + 273.15</replace>
      <find>    return kelvin - 237.15</find>
      <replace>    return kelvin - 273.15</replace>
    </file>
  </edit>
</tools>`;

const CHAT_TASK_EDIT = `I'll say which scale.
<tools>
  <edit>
    <file src="src/kelvin.py">
      <find>"""Kelvin conversions."""</find>
      <replace>"""Kelvin conversions, from Celsius."""</replace>
    </file>
  </edit>
</tools>`;

/** The workspace as a git repository with one commit: tasks start from it. */
function commitWorkspace(ws) {
  fs.writeFileSync(path.join(ws, 'src', 'kelvin.py'), KELVIN);
  const env = { ...process.env, GIT_AUTHOR_NAME: 'e2e', GIT_AUTHOR_EMAIL: 'e2e@localhost', GIT_COMMITTER_NAME: 'e2e', GIT_COMMITTER_EMAIL: 'e2e@localhost' };
  const git = (...args) => execFileSync('git', args, { cwd: ws, env, stdio: 'pipe' });
  if (!fs.existsSync(path.join(ws, '.git'))) git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'the e2e workspace');
}

export async function agentsSteps(page, ws, fake, { step, shot, palette, chatFrame, WAIT }) {
  const view = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Agents' }) });
  const row = view.locator('.monaco-list-row', { hasText: 'Fix the Kelvin constant' });
  const kelvin = path.join(ws, 'src', 'kelvin.py');
  // The task's check command reads a FIFO: the task stays running until the test
  // writes to it (an event, not a timer).
  const gate = path.join(fs.mkdtempSync(path.join(path.dirname(ws), 'gate-')), 'gate');
  execFileSync('mkfifo', [gate]);

  await step('a background task started from the palette runs in its worktree and shows running in the Agents view', async () => {
    commitWorkspace(ws);
    await fake.script(TASK_EDIT, 'Fixed the Kelvin offset.');
    // F1 reaches the workbench, not the chat webview that may hold the focus (KARYI_E2E_ONLY=agents).
    await page.locator('.part.editor').click();
    await palette(page, 'Karyi: Start Background Task');
    const box = page.locator('.quick-input-widget input.input');
    await page.locator('.quick-input-widget', { hasText: 'Start Background Task (1/2)' }).waitFor({ timeout: WAIT });
    await box.fill('Fix the Kelvin constant');
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-widget', { hasText: 'Start Background Task (2/2)' }).waitFor({ timeout: WAIT });
    await box.fill(`cat ${gate}`);
    await page.keyboard.press('Enter');
    await row.locator('.label-description', { hasText: /^running · check: cat / }).waitFor({ timeout: WAIT });
    // A wider sidebar, so the screenshots show the whole row.
    await row.click();
    for (let i = 0; i < 3; i++) await palette(page, 'Increase Current View Size');
    assert.equal(fs.readFileSync(kelvin, 'utf8'), KELVIN, 'the workspace is untouched while the task runs');
    await shot(page, 'vscode-agents-running.png');
  });

  await step('the task finishes with a notification, is reviewed hunk by hunk in its file, and only the accepted hunk is applied', async () => {
    const editor = page.locator('.editor-group-container.active .monaco-editor .view-lines');
    const lens = (re) => page.locator('.editor-group-container.active .codelens-decoration a', { hasText: re });
    fs.writeFileSync(gate, 'ok\n');
    await row.locator('.label-description', { hasText: /^done · 1 file, check passed/ }).waitFor({ timeout: WAIT });
    await page.locator('.notification-toast', { hasText: 'finished (1 file, check passed)' }).waitFor({ timeout: WAIT });
    await row.click();
    await page.locator('.tab.active', { hasText: 'kelvin.py' }).waitFor({ timeout: WAIT });
    await lens(/^Accept \(/).first().waitFor({ timeout: WAIT });
    assert.equal(await lens(/^Accept \(/).count(), 2, 'one Accept lens per hunk of the task');
    await editor.locator('.view-line', { hasText: 'return celsius + 273.15' }).waitFor({ timeout: WAIT });
    await editor.locator('.view-line', { hasText: 'return kelvin - 273.15' }).waitFor({ timeout: WAIT });
    assert.equal(fs.readFileSync(kelvin, 'utf8'), KELVIN, 'nothing is written before the review is answered');
    await shot(page, 'vscode-agents.png');
    await lens(/^Accept \(/).first().click();
    await page.locator('.codelens-decoration', { hasText: 'Hunk 1: accepted' }).waitFor({ timeout: WAIT });
    await lens(/^Reject \(/).first().click();
    await row.locator('.label-description', { hasText: /^applied/ }).waitFor({ timeout: WAIT });
    const disk = fs.readFileSync(kelvin, 'utf8');
    assert.match(disk, /celsius \+ 273\.15/, 'the accepted hunk is in the workspace');
    assert.match(disk, /kelvin - 237\.15/, 'the rejected one is not');
    await page.locator('.tab.dirty', { hasText: 'kelvin.py' }).waitFor({ state: 'detached', timeout: WAIT });
    await editor.locator('.view-line', { hasText: 'return kelvin - 273.15' }).waitFor({ state: 'detached', timeout: WAIT });
  });

  await step('/task in the chat input starts a background task that shows in the Agents view', async () => {
    const chat = chatFrame(page);
    const input = chat.locator('#input');
    const chatRow = view.locator('.monaco-list-row', { hasText: 'Name the scale in the docstring' });
    await fake.script(CHAT_TASK_EDIT, 'Named it.');
    await input.click();
    await input.pressSequentially('/ta');
    await chat.locator('.completion.active', { hasText: '/task' }).waitFor({ timeout: WAIT });
    await input.press('Enter');
    assert.equal(await input.inputValue(), '/task ');
    await input.pressSequentially('Name the scale in the docstring');
    await input.press('Enter');
    await chat.locator('.notice', { hasText: 'Started background task "Name the scale in the docstring"' }).waitFor({ timeout: WAIT });
    await chatRow.locator('.label-description', { hasText: /^done · 1 file/ }).waitFor({ timeout: WAIT });
    assert.doesNotMatch(fs.readFileSync(kelvin, 'utf8'), /from Celsius/, 'the task did not touch the workspace');
    await shot(page, 'vscode-agents-chat.png');
  });
}
