import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dataUrl, imageFrom, MAX_IMAGE_BYTES, sniff } from '../../shared/images';
import { emptyState, reduce, storable } from '../../shared/chat/state';
import { modelLabel } from '../../views/chat/webview/models';

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);

describe('pictures in the chat input', () => {
  it('knows the four kinds by their first bytes, not their names', () => {
    assert.equal(sniff(PNG), 'image/png');
    assert.equal(sniff(Uint8Array.from([0xff, 0xd8, 0xff, 0xe0])), 'image/jpeg');
    assert.equal(sniff(new TextEncoder().encode('GIF89a....')), 'image/gif');
    assert.equal(sniff(new TextEncoder().encode('RIFF\0\0\0\0WEBPVP8 ')), 'image/webp');
    assert.equal(imageFrom(new TextEncoder().encode('<svg/>'), 'logo.png'), 'logo.png is not a PNG, JPEG, GIF or WebP picture.');
  });

  it('refuses what the server would refuse for size', () => {
    const big = new Uint8Array(MAX_IMAGE_BYTES + 1);
    big.set(PNG);
    assert.equal(imageFrom(big, 'huge.png'), 'huge.png is 3.8 MiB; the limit is 3.75 MiB.');
  });

  it('encodes base64 the way the server decodes it', () => {
    const image = imageFrom(PNG, 'a.png');
    assert.deepEqual(image, { mimeType: 'image/png', data: Buffer.from(PNG).toString('base64'), name: 'a.png' });
    if (typeof image !== 'string') assert.equal(dataUrl(image), `data:image/png;base64,${image.data}`);
  });

  it('keeps sent pictures in the transcript, and by name only in the workspace state', () => {
    const image = { mimeType: 'image/png', data: 'iVBOR', name: 'a.png' };
    const s = reduce(emptyState(), { kind: 'user', text: 'look', images: [image] });
    assert.deepEqual(s.items[0], { kind: 'user', id: 'u1', text: 'look', context: undefined, images: [image] });
    const kept = storable(s).items[0];
    assert.ok(kept.kind === 'user' && kept.images?.[0].data === '' && kept.images[0].name === 'a.png');
  });
});

describe('the model picker', () => {
  it('shows the model and its context use; a new chat takes the session the server made', () => {
    const s = reduce(emptyState(), { kind: 'modelState', state: { sessionId: 's1', model: 'openai:gpt-4.1', contextWindow: 1_047_576, contextUsed: 31_000, acceptsImages: true } });
    assert.equal(s.sessionId, 's1');
    assert.equal(modelLabel(s), 'openai:gpt-4.1 · 3% of 1M');
    const other = reduce(s, { kind: 'modelState', state: { sessionId: 's2', model: 'x:y', contextWindow: 1, contextUsed: 0, acceptsImages: true } });
    assert.equal(other, s, "another session's answer is ignored");
    assert.equal(modelLabel(reduce(s, { kind: 'reset' })), 'openai:gpt-4.1');
  });
});
