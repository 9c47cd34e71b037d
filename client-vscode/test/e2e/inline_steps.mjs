// Inline diffs as real lines (docs/vscode.md, "Inline diffs"), in real VS Code: a
// 15-line insertion and a 3-to-8-line replacement shown as lines, one accepted with the
// keyboard and the other rejected, the disk and the model's next request agreeing;
// Reject all leaving the buffer clean.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

export const STATS = `"""Small statistics helpers."""
import math


def clamp(x: float, lo: float, hi: float) -> float:
    """x limited to [lo, hi]."""
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


def mean(values: list[float]) -> float:
    """The arithmetic mean."""
    total = 0.0
    for v in values:
        total += v
    return total / len(values)
`;

const INSERTED = [
  '',
  '',
  'def median(values: list[float]) -> float:',
  '    """The middle value (the mean of the two middle ones for an even count)."""',
  '    ordered = sorted(values)',
  '    n = len(ordered)',
  '    if n == 0:',
  '        raise ValueError("median of no values")',
  '    mid = n // 2',
  '    if n % 2:',
  '        return ordered[mid]',
  '    return (ordered[mid - 1] + ordered[mid]) / 2',
  '',
  '',
  'SQRT2 = math.sqrt(2)',
];

const REPLACED = [
  '    if not values:',
  '        raise ValueError("mean of no values")',
  '    total = math.fsum(values)',
  '    count = len(values)',
  '    if count == 1:',
  '        return values[0]',
  '    result = total / count',
  '    return result',
];

/** The model's edit: an insertion after `import math` (15 lines) and a 3-to-8 replacement. */
export const STATS_EDIT = `Two changes.
<tools>
  <edit>
    <file src="src/stats.py">
      <find>import math</find>
      <replace>import math
${INSERTED.join('\n')}</replace>
      <find>    total = 0.0
    for v in values:
        total += v</find>
      <replace>${REPLACED.join('\n')}</replace>
    </file>
  </edit>
</tools>`;

const REJECT_EDIT = `<tools>
  <edit>
    <file src="src/stats.py">
      <find>    if x < lo:</find>
      <replace>    if x <= lo:</replace>
      <find>    total = 0.0</find>
      <replace>    total = 0.0  # running sum
    count = 0</replace>
    </file>
  </edit>
</tools>`;

const GROWTH = `def total(values):
    return sum(values)
`;

const WRITTEN = [
  'def total(values):',
  '    """The sum, written out."""',
  '    result = 0.0',
  '    for v in values:',
  '        result += v',
  '    return result',
];

/**
 * The edit as the paced fake model streams it: the head through the replacement's first
 * line, then one line per event. A line shows in the draft once text after it arrived
 * (the parser keeps back what might be the start of `</replace>`).
 */
const GROWTH_PIECES = [
  `Writing it out.\n<tools>\n  <edit>\n    <file src="src/growth.py">\n      <find>${GROWTH.trimEnd()}</find>\n      <replace>${WRITTEN[0]}\n`,
  ...WRITTEN.slice(1, -1).map((line) => `${line}\n`),
  `${WRITTEN.at(-1)}</replace>\n    </file>\n  </edit>\n</tools>`,
];

export async function inlineSteps(page, ws, fake, { step, send, chatFrame, shot, WAIT }) {
  const chat = chatFrame(page);
  const file = path.join(ws, 'src', 'stats.py');
  const editor = page.locator('.editor-group-container.active .monaco-editor .view-lines');
  const lens = (re) => page.locator('.editor-group-container.active .codelens-decoration a', { hasText: re });
  // A new proposal waits for the user: its card says so in the chat and its lenses show.
  // (A lens of the last step can linger a moment, and a key pressed while the turn still
  // runs would land before the proposal: an Escape in the chat then stops the turn.)
  const proposalWaits = async () => {
    await chat.locator('.tool.tool-awaiting').waitFor({ timeout: WAIT });
    await lens(/^Accept \(/).first().waitFor({ timeout: WAIT });
  };
  // Focus the editor through its tab: a click in the text could land on a lens (Accept or
  // Reject) that the preview has just scrolled to the middle of the editor.
  // Click the file's tab (the middle of the editor may hold a lens), then wait until the
  // editor has the keyboard: a key pressed before lands where the focus was (the chat).
  const focusEditor = async (name = 'stats.py') => {
    await page.locator('.editor-group-container.active .tab.active', { hasText: name }).click();
    await page.locator('.editor-group-container.active .monaco-editor.focused').waitFor({ timeout: WAIT });
  };

  await step('inline diff: a 15-line insertion and a 3-to-8 replacement as real lines; one accepted by key, one rejected', async () => {
    fs.writeFileSync(file, STATS);
    await fake.script(STATS_EDIT, 'Added median; left mean as it was.');
    await send(chat, 'Add median to src/stats.py and harden mean');
    await page.locator('.tab.active', { hasText: 'stats.py' }).waitFor({ timeout: WAIT });
    await proposalWaits();
    assert.equal(await lens(/^Accept \(/).count(), 2, 'one Accept lens per hunk');
    // Real lines: the proposed code is in the editor, next to the lines it replaces.
    await editor.locator('.view-line', { hasText: 'def median(values' }).waitFor({ timeout: WAIT });
    await editor.locator('.view-line', { hasText: 'total = math.fsum(values)' }).waitFor({ timeout: WAIT });
    await editor.locator('.view-line', { hasText: 'total = 0.0' }).waitFor({ timeout: WAIT });
    assert.equal(fs.readFileSync(file, 'utf8'), STATS, 'nothing is written before a decision');
    // The Changes view lists the file and both hunks.
    const changes = page.locator('.pane-body .monaco-list-row');
    await changes.filter({ hasText: 'stats.py' }).filter({ hasText: '2 of 2 to review' }).waitFor({ timeout: WAIT });
    await changes.filter({ hasText: 'Hunk 1: line' }).filter({ hasText: '+15 −0' }).waitFor({ timeout: WAIT });
    await changes.filter({ hasText: 'Hunk 2: line' }).filter({ hasText: '+8 −3' }).waitFor({ timeout: WAIT });
    // An older step's toast (the MCP server restarted) is left out of the picture.
    const hideToasts = await page.addStyleTag({ content: '.notifications-toasts { visibility: hidden !important; }' });
    await shot(page, 'vscode-inline-diff.png');
    await hideToasts.evaluate((el) => el.remove());
    // Keyboard: into the editor, next hunk (the insertion), accept it.
    await focusEditor();
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('Alt+F5');
    await page.keyboard.press('Control+Alt+y');
    await page.locator('.codelens-decoration', { hasText: 'Hunk 1: accepted' }).waitFor({ timeout: WAIT });
    await lens(/^Reject \(/).first().click();
    await chat.locator('.item.turn.done .md', { hasText: 'Added median' }).waitFor({ timeout: WAIT });
    const disk = fs.readFileSync(file, 'utf8');
    assert.match(disk, /def median\(values/, 'the accepted insertion is on disk');
    assert.match(disk, /SQRT2 = math\.sqrt\(2\)/);
    assert.match(disk, /    total = 0\.0\n    for v in values:/, 'the rejected replacement is not');
    assert.doesNotMatch(disk, /math\.fsum/);
    await page.locator('.tab.dirty', { hasText: 'stats.py' }).waitFor({ state: 'detached', timeout: WAIT });
    await editor.locator('.view-line', { hasText: 'total = math.fsum(values)' }).waitFor({ state: 'detached', timeout: WAIT });
    const told = JSON.stringify((await fake.requests()).at(-1).messages);
    assert.match(told, /rejected/i, 'the model is told the replacement was rejected');
    assert.doesNotMatch(told.split('rejected')[0].slice(-4000), /fsum[^"]*applied/);
    await shot(page, 'vscode-inline-decided.png');
  });

  await step('inline diff: Reject all by key leaves the buffer as it was and clean', async () => {
    const before = fs.readFileSync(file, 'utf8');
    await fake.script(REJECT_EDIT, 'Left it.');
    await send(chat, 'Try again');
    await proposalWaits();
    await page.locator('.tab.dirty', { hasText: 'stats.py' }).waitFor({ timeout: WAIT });
    await focusEditor();
    await page.keyboard.press('Control+Alt+Backspace');
    await chat.locator('.item.turn.done .md', { hasText: 'Left it.' }).waitFor({ timeout: WAIT });
    await page.locator('.tab.dirty', { hasText: 'stats.py' }).waitFor({ state: 'detached', timeout: WAIT });
    assert.equal(fs.readFileSync(file, 'utf8'), before, 'the disk is unchanged');
    await editor.locator('.view-line', { hasText: 'running sum' }).waitFor({ state: 'detached', timeout: WAIT });
  });

  await step('Escape in the chat keeps a pending proposal; Shift+Escape stops the turn, the card reads cancelled', async () => {
    const RETURN_EDIT = `<tools>
  <edit>
    <file src="src/stats.py">
      <find>    return x</find>
      <replace>    return float(x)</replace>
    </file>
  </edit>
</tools>`;
    await fake.script(RETURN_EDIT, 'Returned a float.');
    await send(chat, 'Return a float from clamp');
    await proposalWaits();
    const input = chat.locator('#input');
    await input.press('Escape'); // meant for the editor: must not cancel the turn
    await focusEditor();
    await page.keyboard.press('Control+Alt+Enter');
    await chat.locator('.item.turn.done .md', { hasText: 'Returned a float.' }).waitFor({ timeout: WAIT });
    assert.match(fs.readFileSync(file, 'utf8'), /    return float\(x\)\n/, 'the proposal survived Escape and was applied');

    const before = fs.readFileSync(file, 'utf8');
    await fake.script(RETURN_EDIT.replace('    return x', '    return float(x)').replace('return float(x)</replace>', 'return round(float(x), 6)</replace>'));
    await send(chat, 'Round it');
    await proposalWaits();
    assert.match(await input.getAttribute('placeholder'), /Shift\+Esc/, 'the input says which key ends the turn');
    await input.press('Shift+Escape');
    await chat.locator('.item.turn').last().locator('.usage', { hasText: 'stopped: cancelled' }).waitFor({ timeout: WAIT });
    const card = chat.locator('.tool.tool-cancelled').last();
    await card.locator('.tool-status', { hasText: 'cancelled' }).waitFor({ timeout: WAIT });
    await card.locator('.file-state', { hasText: 'rejected' }).waitFor({ timeout: WAIT });
    assert.equal(await card.locator('.file-state', { hasText: 'accepted' }).count(), 0, 'no "accepted" beside "cancelled"');
    const text = await card.innerText();
    assert.ok((text.match(/cancelled/g) ?? []).length <= 2, `the cancellation is said once besides the status: ${text}`);
    await page.locator('.tab.dirty', { hasText: 'stats.py' }).waitFor({ state: 'detached', timeout: WAIT });
    await editor.locator('.view-line', { hasText: 'round(float(x), 6)' }).waitFor({ state: 'detached', timeout: WAIT });
    assert.equal(fs.readFileSync(file, 'utf8'), before, 'nothing was written');
  });

  await step('inline chat: Ctrl+I on a selection sends it with the instruction; the edit shows in place', async () => {
    await fake.script(`<tools>
  <edit>
    <file src="src/stats.py">
      <find>    if x < lo:
        return lo</find>
      <replace>    if x <= lo:
        return lo  # bounds are inclusive</replace>
    </file>
  </edit>
</tools>`, 'Bounds are inclusive now.');
    await editor.locator('.view-line', { hasText: 'if x < lo:' }).click();
    await page.keyboard.press('Home');
    await page.keyboard.press('Shift+ArrowDown');
    await page.keyboard.press('Shift+ArrowDown');
    await page.keyboard.press('Control+i');
    const box = page.locator('.quick-input-widget input.input');
    await box.waitFor({ state: 'visible', timeout: WAIT });
    await page.locator('.quick-input-widget', { hasText: 'Karyi: change src/stats.py:' }).waitFor({ timeout: WAIT });
    await box.fill('make the lower bound inclusive');
    await page.keyboard.press('Enter');
    await proposalWaits();
    await editor.locator('.view-line', { hasText: 'bounds are inclusive' }).waitFor({ timeout: WAIT });
    const asked = JSON.stringify((await fake.requests()).at(-1).messages.at(-1));
    assert.match(asked, /make the lower bound inclusive/);
    assert.match(asked, /if x < lo:/, 'the selected code goes along');
    await shot(page, 'vscode-inline-chat.png');
    await focusEditor();
    await page.keyboard.press('Control+Alt+Enter');
    await chat.locator('.item.turn.done .md', { hasText: 'Bounds are inclusive now.' }).waitFor({ timeout: WAIT });
    assert.match(fs.readFileSync(file, 'utf8'), /    if x <= lo:\n        return lo  # bounds are inclusive\n/);
    await page.locator('.tab.dirty', { hasText: 'stats.py' }).waitFor({ state: 'detached', timeout: WAIT });
  });

  await step('a preview that grows while the model streams the edit slowly, then settles into the proposal', async () => {
    const growth = path.join(ws, 'src', 'growth.py');
    fs.writeFileSync(growth, GROWTH);
    const line = (text) => editor.locator('.view-line', { hasText: text });
    await fake.script({ pieces: GROWTH_PIECES, paced: true }, 'Wrote it out.');
    await send(chat, 'Write total out as a loop in src/growth.py');
    await fake.release(1 + 3); // the role, the head, two more lines: the draft shows through WRITTEN[1]
    await page.locator('.tab.active', { hasText: 'growth.py' }).waitFor({ timeout: WAIT });
    await line('The sum, written out.').waitFor({ timeout: WAIT });
    assert.equal(await line('result = 0.0').count(), 0, 'a line not yet complete is not shown');
    assert.equal(await lens(/^Accept \(/).count(), 0, 'a draft has nothing to decide');
    await chat.locator('.tool .tool-desc, .tool', { hasText: 'Writing src/growth.py' }).first().waitFor({ timeout: WAIT });
    assert.equal(fs.readFileSync(growth, 'utf8'), GROWTH, 'a draft writes nothing');
    await shot(page, 'vscode-draft-growing.png');

    await fake.release(2); // two more lines: the draft grows through WRITTEN[3]
    await line('for v in values:').waitFor({ timeout: WAIT });
    await line('result = 0.0').waitFor({ timeout: WAIT });
    assert.equal(await line('result += v').count(), 0);
    await line('return sum(values)').waitFor({ timeout: WAIT }); // the old line, marked removed
    await shot(page, 'vscode-draft-grown.png');

    await fake.release(6); // the rest of the reply: the call is complete, its proposal takes over
    await proposalWaits();
    assert.equal(await lens(/^Accept \(/).count(), 1, 'one hunk, made on the file\'s own text');
    await line('return result').waitFor({ timeout: WAIT });
    assert.equal(await line('The sum, written out.').count(), 1, 'the draft lines gave way: each line once');
    await shot(page, 'vscode-draft-settled.png');
    await focusEditor('growth.py');
    await page.keyboard.press('Control+Alt+Enter');
    await chat.locator('.item.turn.done .md', { hasText: 'Wrote it out.' }).waitFor({ timeout: WAIT });
    assert.equal(fs.readFileSync(growth, 'utf8'), `${WRITTEN.join('\n')}\n`, 'the proposal, accepted, is on disk');
    await page.locator('.tab.dirty', { hasText: 'growth.py' }).waitFor({ state: 'detached', timeout: WAIT });
    await fake.reset();
  });
}
