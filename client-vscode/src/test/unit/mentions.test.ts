import assert from 'node:assert/strict';
import { test } from 'node:test';
import { complete, isSpecial } from '../../shared/mentions';

const FILES = ['README.md', 'src/app.py', 'src/util/dates.py', 'tests/test_app.py'];

test('the special mentions come first, then files', () => {
  assert.deepEqual(complete('', FILES).slice(0, 5), ['problems', 'terminal', 'diff', 'folder:', 'url:']);
  assert.deepEqual(complete('d', FILES)[0], 'diff');
  assert.ok(complete('app', FILES).includes('src/app.py'));
});

test('after @folder: the folders that hold files', () => {
  assert.deepEqual(complete('folder:ut', FILES), ['folder:src/util']);
  assert.ok(complete('folder:', FILES).includes('folder:tests'));
});

test('special mentions are not attached as files', () => {
  for (const m of ['problems', 'terminal', 'diff', 'folder:src', 'url:https://x.org', 'https://x.org']) assert.ok(isSpecial(m), m);
  for (const m of ['README.md', 'src/diff.py', 'problems.md']) assert.ok(!isSpecial(m), m);
});
