import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Params } from '../../protocol';
import type { KaryiServer } from '../../server';
import { imageParam } from '../../shared/images';

/** Compiled by `make vscode-unit` (tsc) and never run: a request whose parameters do not
 * match the server's types must not compile. */
export async function misspelt(server: KaryiServer): Promise<void> {
  // @ts-expect-error `sesionId` is no field of karyi/loadSession's parameters
  await server.request('karyi/loadSession', { sesionId: 'x' });
  // @ts-expect-error karyi/chat needs its `message`
  await server.request('karyi/chat', { sessionId: 'x' });
  // @ts-expect-error a mode is plan or act
  await server.request('karyi/setMode', { mode: 'plann' });
  const cancel: Params['karyi/cancel'] = { sessionId: 'x' };
  await server.request('karyi/cancel', cancel);
}

describe('request parameters', () => {
  it('a picture goes to karyi/chat with a media type the server knows, or none', () => {
    assert.deepEqual(imageParam({ mimeType: 'image/png', data: 'AA', name: 'a.png' }), { mimeType: 'image/png', data: 'AA', name: 'a.png' });
    assert.deepEqual(imageParam({ mimeType: 'image/tiff', data: 'AA', name: 'a.tif' }), { mimeType: undefined, data: 'AA', name: 'a.tif' });
  });
});
