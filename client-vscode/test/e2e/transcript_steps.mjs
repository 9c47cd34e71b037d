// docs/sessions.md and docs/vscode.md#while-karyi-works in real VS Code: a ToolsXML
// session with a command and an edit, brought back from History and after Restart
// Server, reads as it did live (cards, no markup, no tool results as user messages);
// Fork from here; Rewind to here (code and conversation, the user's own file kept);
// a message queued while a turn runs (edited, then sent when the turn ends) and one
// steered into the running turn (read at its next tool step).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const GREET = 'def greet(name):\n    return "Helo, " + name\n';
const ASK = 'Check the greeting and fix its typo';
const REPLY = `Let me run a check first, then fix the typo.
<tools>
  <command>echo ran-in-sandbox</command>
  <edit>
    <file src="src/greet.py">
      <find>    return "Helo, " + name</find>
      <replace>    return "Hello, " + name</replace>
    </file>
  </edit>
</tools>`;

/** What the chat shows of the session: user messages, cards, and no dialect markup. */
async function readsAsLive(chat) {
  const text = await chat.locator('#log').innerText();
  assert.doesNotMatch(text, /<tools|<\/tools>|tools_result|<command>/, 'no dialect markup in the chat');
  const users = await chat.locator('.item.user .bubble').allInnerTexts();
  assert.deepEqual(users, [ASK], 'only what the user typed shows as a user message');
  await chat.locator('.item.turn .tool', { hasText: 'ran-in-sandbox' }).first().waitFor();
  await chat.locator('.item.turn .tool', { hasText: 'command' }).first().waitFor();
  await chat.locator('.item.turn .tool .file', { hasText: 'src/greet.py' }).first().waitFor();
  await chat.locator('.item.turn .md', { hasText: 'Fixed the typo.' }).waitFor();
  assert.match(text, /Let me run a check first/);
}

async function fromHistory(chat, title, WAIT) {
  await chat.locator('#history').click();
  const session = chat.locator('#panel li a', { hasText: title }).filter({ hasNotText: '(fork)' });
  await session.first().waitFor({ timeout: WAIT });
  await session.first().click();
  await chat.locator('.item.user', { hasText: title }).waitFor({ timeout: WAIT });
}

export async function transcriptSteps(page, ws, fake, { step, send, chatFrame, shot, palette, WAIT }) {
  const chat = chatFrame(page);
  const greet = path.join(ws, 'src', 'greet.py');
  const pick = (label) => page.locator('.quick-input-list .monaco-list-row', { hasText: label }).first();

  await step('a ToolsXML session with a command and an edit reads as it did live, from History and after Restart Server', async () => {
    await fake.reset();
    fs.writeFileSync(greet, GREET);
    // The Agents view below the chat folded, so the chat has the sidebar's height.
    const agents = page.locator('.pane-header[aria-expanded="true"]', { hasText: 'Agents' });
    if (await agents.count()) await agents.first().click();
    await chat.locator('#new').click();
    await fake.script(REPLY, 'Fixed the typo.');
    await send(chat, ASK);
    await chat.locator('.tool.tool-awaiting button[data-action="acceptAll"]').click({ timeout: WAIT });
    await chat.locator('.item.turn.done .md', { hasText: 'Fixed the typo.' }).waitFor({ timeout: WAIT });
    assert.equal(fs.readFileSync(greet, 'utf8'), GREET.replace('Helo', 'Hello'));
    await readsAsLive(chat);
    await chat.locator('#new').click();
    await chat.locator('.item.user').first().waitFor({ state: 'detached', timeout: WAIT });
    await fromHistory(chat, ASK, WAIT);
    await readsAsLive(chat);
    await page.mouse.move(900, 600);
    await shot(page, 'vscode-history-loaded.png');
    await palette(page, 'Karyi: Restart Server');
    await chat.locator('.item.notice', { hasText: 'The Karyi server was restarted' }).waitFor({ timeout: WAIT });
    await readsAsLive(chat);
    // The restarted server reads it back from the store the same way.
    await chat.locator('#new').click();
    await chat.locator('.item.user').first().waitFor({ state: 'detached', timeout: WAIT });
    await fromHistory(chat, ASK, WAIT);
    await readsAsLive(chat);
  });

  await step('Fork from here: the chat shows a new session with the same first turn', async () => {
    await chat.locator('.item.user', { hasText: ASK }).hover();
    await chat.locator('.item.user button[data-action="fork"]').first().click();
    await chat.locator('#status', { hasText: '(fork)' }).waitFor({ timeout: WAIT });
    await chat.locator('.item.notice', { hasText: 'Forked' }).waitFor({ timeout: WAIT });
    await readsAsLive(chat);
    await page.mouse.move(900, 600);
    await shot(page, 'vscode-fork.png');
  });

  await step('Rewind to here, code and conversation: the files come back, your own file is kept, the message is in the input', async () => {
    await fromHistory(chat, ASK, WAIT);
    const readme = path.join(ws, 'README.md');
    const mine = `${fs.readFileSync(readme, 'utf8')}\nMy own note, written after the turn.\n`;
    fs.writeFileSync(readme, mine);
    await chat.locator('.item.user', { hasText: ASK }).hover();
    await chat.locator('.item.user button[data-action="rewind"]').first().click();
    await pick('Code and conversation').waitFor({ timeout: WAIT });
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Conversation only' }).waitFor({ timeout: WAIT });
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Code only' }).waitFor({ timeout: WAIT });
    await shot(page, 'vscode-rewind.png');
    await pick('Code and conversation').click();
    // README.md changed since, by the user: offered, kept unless picked.
    await pick('README.md').waitFor({ timeout: WAIT });
    await shot(page, 'vscode-rewind-yours.png');
    await page.keyboard.press('Enter');
    await chat.locator('.item.notice', { hasText: '↶ Rewound:' }).waitFor({ timeout: WAIT });
    await chat.locator('.item.notice', { hasText: '1 turn rewound' }).first().waitFor({ timeout: WAIT });
    assert.equal(fs.readFileSync(greet, 'utf8'), GREET, 'the edit is undone');
    assert.equal(fs.readFileSync(readme, 'utf8'), mine, "the user's own change is kept");
    assert.equal(await chat.locator('#input').inputValue(), ASK, 'the message is back in the input');
    assert.equal(await chat.locator('.item.turn .tool').count(), 0, 'the rewound turn is no longer shown');
    await page.mouse.move(900, 600);
    await shot(page, 'vscode-rewound.png');
    await chat.locator('#input').fill('');
  });

  await step('Enter while a turn runs queues the message: shown, edited, sent when the turn ends', async () => {
    await fake.reset();
    await chat.locator('#new').click();
    await fake.script({ text: 'The first answer.', paced: true }, 'The second answer.');
    await send(chat, 'First question');
    await chat.locator('#send.stop').waitFor({ timeout: WAIT });
    await send(chat, 'Second question');
    const queued = chat.locator('#queue li.queued', { hasText: 'Second question' });
    await queued.waitFor({ timeout: WAIT });
    await queued.locator('button[data-action="edit"]').click();
    const box = chat.locator('#queue textarea.edit');
    await box.fill('Second question, edited while queued');
    await box.press('Enter');
    await chat.locator('#queue li.queued .text', { hasText: 'Second question, edited while queued' }).waitFor({ timeout: WAIT });
    await send(chat, 'A third one I change my mind about');
    const third = chat.locator('#queue li.queued', { hasText: 'A third one' });
    await third.waitFor({ timeout: WAIT });
    await page.mouse.move(900, 600);
    await shot(page, 'vscode-queued.png');
    await third.locator('button[data-action="remove"]').click();
    await third.waitFor({ state: 'detached', timeout: WAIT });
    await fake.release(100);
    await chat.locator('.item.turn.done .md', { hasText: 'The second answer.' }).waitFor({ timeout: WAIT });
    await chat.locator('.item.user .bubble', { hasText: 'Second question, edited while queued' }).waitFor({ timeout: WAIT });
    await chat.locator('#queue').waitFor({ state: 'hidden', timeout: WAIT });
    const asked = JSON.stringify((await fake.requests()).at(-1).messages.at(-1));
    assert.match(asked, /Second question, edited while queued/);
    assert.doesNotMatch(JSON.stringify(await fake.requests()), /A third one/, 'a removed message is never sent');
  });

  await step('Send now (Ctrl+Enter) steers the running turn: the model reads it after the next tool result', async () => {
    await fake.reset();
    await fake.script({ text: 'Running the tests.\n<tools><command>echo step-one</command></tools>', paced: true }, 'Ran them with pytest, as you asked.');
    await send(chat, 'Run the tests');
    await chat.locator('#send.stop').waitFor({ timeout: WAIT });
    const input = chat.locator('#input');
    await input.fill('use pytest -q please');
    await input.press('Control+Enter');
    await chat.locator('#queue li.steering', { hasText: 'use pytest -q please' }).waitFor({ timeout: WAIT });
    await page.mouse.move(900, 600);
    await shot(page, 'vscode-steering.png');
    await fake.release(100);
    await chat.locator('.item.turn.done .md', { hasText: 'Ran them with pytest' }).waitFor({ timeout: WAIT });
    await chat.locator('.item.turn .steer', { hasText: 'use pytest -q please' }).waitFor({ timeout: WAIT });
    const messages = JSON.stringify((await fake.requests()).at(-1).messages);
    assert.match(messages, /The user adds, while you work:[^]*use pytest -q please/);
    assert.ok(messages.indexOf('step-one') < messages.indexOf('use pytest -q please'), 'after the tool result');
    assert.equal(await chat.locator('.item.user .bubble', { hasText: 'use pytest' }).count(), 0, 'not a turn of its own');
    await page.mouse.move(900, 600);
    await shot(page, 'vscode-steered.png');
  });

  await step('During a turn, Rewind is refused, not raced; a queued message survives Restart Server and is sent after', async () => {
    await fake.reset();
    await chat.locator('#new').click();
    await fake.script({ text: 'Half an answer', paced: true }, 'Answered after the restart.');
    await send(chat, 'A long question');
    await chat.locator('#send.stop').waitFor({ timeout: WAIT });
    const asked = chat.locator('.item.user', { hasText: 'A long question' });
    await asked.locator('button[data-action="rewind"]').waitFor({ state: 'attached', timeout: WAIT });
    await asked.hover();
    await asked.locator('button[data-action="rewind"]').click();
    await page.locator('.notification-toast', { hasText: 'Karyi is working: stop the turn' }).waitFor({ timeout: WAIT });
    assert.equal(await page.locator('.quick-input-widget:visible').count(), 0, 'no rewind choices offered');
    await send(chat, 'Asked before the restart');
    const queued = chat.locator('#queue li.queued', { hasText: 'Asked before the restart' });
    await queued.waitFor({ timeout: WAIT });
    await palette(page, 'Karyi: Restart Server');
    await chat.locator('.item.notice', { hasText: 'The Karyi server was restarted' }).last().waitFor({ timeout: WAIT });
    await chat.locator('#send.stop').waitFor({ state: 'detached', timeout: WAIT });
    await queued.waitFor({ timeout: WAIT }); // still queued, now with Send
    await page.mouse.move(900, 600);
    await shot(page, 'vscode-queue-after-restart.png');
    await queued.locator('button[data-action="send"]').click();
    await chat.locator('.item.turn.done .md', { hasText: 'Answered after the restart.' }).waitFor({ timeout: WAIT });
    const sent = JSON.stringify((await fake.requests()).at(-1).messages.at(-1));
    assert.match(sent, /Asked before the restart/);
    await chat.locator('#queue').waitFor({ state: 'hidden', timeout: WAIT });
  });
}
