// docs/images.md and docs/models.md#the-model-picker in real VS Code: a picture pasted
// into the chat input reaches the fake model's request as an image part, and the model
// picker in the chat header switches the model the fake server is asked for.
import * as assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';

/** A real PNG of `w`×`h` pixels in a colour gradient (so the thumbnail shows something). */
function png(w, h) {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type, data) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), body.length + 4);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(w, 0);
  header.writeUInt32BE(h, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const rows = [];
  for (let y = 0; y < h; y++) {
    rows.push(0);
    for (let x = 0; x < w; x++) rows.push((x * 255) / w, (y * 255) / h, 200);
  }
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(Buffer.from(rows))), chunk('IEND', Buffer.alloc(0))]);
}

/** Paste `bytes` as an image file into `locator` (a ClipboardEvent with a DataTransfer,
 * as the browser fires for Ctrl+V of a copied screenshot). */
async function pasteImage(locator, bytes, name) {
  await locator.evaluate((el, [b64, fileName]) => {
    const raw = atob(b64);
    const data = Uint8Array.from(raw, (c) => c.charCodeAt(0));
    const transfer = new DataTransfer();
    transfer.items.add(new File([data], fileName, { type: 'image/png' }));
    el.focus();
    el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: transfer, bubbles: true, cancelable: true }));
  }, [bytes.toString('base64'), name]);
}

/** Open the workbench and the chat (what the first UI step does, for KARYI_E2E_STEPS=media). */
export async function openChat({ page, base, ws, chat, WAIT }) {
  await page.goto(`${base}/?folder=${encodeURIComponent(ws)}`);
  await page.locator('.monaco-workbench').waitFor({ timeout: WAIT });
  await page.locator('.activitybar a[aria-label^="Karyi"]').click({ timeout: WAIT });
  await chat.locator('#input').waitFor({ timeout: WAIT });
}

export async function mediaSteps({ page, fake, chat, step, send, shot, WAIT }) {
  await step('an image pasted into the chat reaches the model as an image part', async () => {
    await chat.locator('#new').click();
    const picture = png(96, 64);
    const input = chat.locator('#input');
    await pasteImage(input, picture, 'screenshot.png');
    const thumb = chat.locator('#attachments .thumb img[alt="screenshot.png"]');
    await thumb.waitFor({ timeout: WAIT });
    await pasteImage(input, Buffer.from('not a picture at all'), 'notes.png');
    await chat.locator('#attachments .attach-error', { hasText: 'notes.png is not a PNG, JPEG, GIF or WebP picture.' }).waitFor({ timeout: WAIT });
    await input.fill('What does this screenshot show?');
    await shot(page, 'vscode-image-attached.png');
    await fake.script('A gradient from green to red: that is the test picture.');
    await input.press('Enter');
    await chat.locator('.item.turn.done .md', { hasText: 'A gradient from green' }).waitFor({ timeout: WAIT });
    await chat.locator('.item.user .thumbs img.thumb[alt="screenshot.png"]').waitFor({ timeout: WAIT });
    assert.equal(await chat.locator('#attachments .thumb').count(), 0, 'the tray is empty after sending');
    const user = (await fake.requests()).at(-1).messages.filter((m) => m.role === 'user').at(-1);
    const parts = user.content.filter((p) => p.type === 'image_url').map((p) => p.image_url.url);
    assert.deepEqual(parts, [`data:image/png;base64,${picture.toString('base64')}`]);
    assert.match(JSON.stringify(user.content), /What does this screenshot show\?/);
    await page.mouse.move(900, 600);
    await shot(page, 'vscode-image-sent.png');
  });

  await step('the model picker in the chat header switches the model for the next message', async () => {
    await fake.listModels(['fake-model', 'fake-vision-large']);
    const button = chat.locator('header #model');
    await button.filter({ hasText: /openai:fake-model · \d+% of 128k/ }).waitFor({ timeout: WAIT });
    await button.click();
    const pick = chat.locator('#panel ul.models a[data-model="openai:fake-vision-large"]');
    await pick.waitFor({ timeout: WAIT });
    await chat.locator('#panel ul.models li.current a', { hasText: 'openai:fake-model' }).waitFor({ timeout: WAIT });
    await shot(page, 'vscode-model-picker.png');
    await pick.click();
    await button.filter({ hasText: 'openai:fake-vision-large' }).waitFor({ timeout: WAIT });
    await fake.script('Answered by the larger model.');
    await send(chat, 'And with the other model?');
    await chat.locator('.item.turn.done .md', { hasText: 'Answered by the larger model.' }).waitFor({ timeout: WAIT });
    const sent = (await fake.requests()).at(-1);
    assert.equal(sent.model, 'fake-vision-large', 'the fake model server sees the new name');
    const images = sent.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((p) => p.type === 'image_url');
    assert.equal(images.length, 1, 'the session\'s picture goes to the new model with the history');
  });
}
