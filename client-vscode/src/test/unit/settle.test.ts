import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IDLE_MS, QUIET_MS, settled } from '../../server/settle';

test('diagnostics settle after a quiet spell once they changed', () => {
  assert.equal(settled(100, 0, 5000), false);
  assert.equal(settled(100 + QUIET_MS, QUIET_MS, 5000), true);
});

test('with no change at all they settle after the idle time', () => {
  assert.equal(settled(IDLE_MS - 1, undefined, 5000), false);
  assert.equal(settled(IDLE_MS, undefined, 5000), true);
});

test('never later than the server asked', () => {
  assert.equal(settled(1000, 10, 1000), true);
  assert.equal(settled(800, undefined, 800), true);
});
