import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isMemoryCommand, memoryNote } from '../../shared/fromChat';

describe('/memory in the chat input', () => {
  it('is the whole message, spaces aside', () => {
    assert.equal(isMemoryCommand('/memory'), true);
    assert.equal(isMemoryCommand('  /memory \n'), true);
    assert.equal(isMemoryCommand('/memory please'), false);
    assert.equal(isMemoryCommand('what is /memory'), false);
  });

  it('lists every memory file, saying which are not written yet', () => {
    const note = memoryNote([
      { path: '/home/me/.config/karyi/KARYI.md', scope: 'user', exists: false },
      { path: '/src/app/KARYI.md', scope: 'workspace', exists: true },
    ]);
    assert.equal(
      note,
      'Memory files:\nuser: /home/me/.config/karyi/KARYI.md (not written yet)\nworkspace: /src/app/KARYI.md',
    );
  });
});
