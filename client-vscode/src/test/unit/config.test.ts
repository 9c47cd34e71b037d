import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rankPaths } from '../../shared/rank';
import { parseFromWebview } from '../../shared/chat/messages';
import { compareVersions, resolveServerCommand, serverSettings } from '../../server/config';

const base = { args: ['lsp', '--stdio'], extensionPath: '/repo/client-vscode', workspaceFolders: ['/ws'], home: '/home/u', pathEnv: '/usr/bin:/bin' };

describe('resolveServerCommand', () => {
  it('finds karyi on PATH first', () => {
    const r = resolveServerCommand({ ...base, setting: 'karyi', isExecutable: (f) => f === '/bin/karyi' || f === '/repo/.venv/bin/karyi' });
    assert.deepEqual(r, { command: '/bin/karyi', args: ['lsp', '--stdio'], source: 'PATH' });
  });
  it('falls back to the checkout venv, then the workspace venv', () => {
    let r = resolveServerCommand({ ...base, setting: '', isExecutable: (f) => f === '/repo/.venv/bin/karyi' });
    assert.equal(r?.command, '/repo/.venv/bin/karyi');
    r = resolveServerCommand({ ...base, setting: 'karyi', isExecutable: (f) => f === '/ws/.venv/bin/karyi' });
    assert.equal(r?.command, '/ws/.venv/bin/karyi');
  });
  it('uses an explicit setting as given, expanding ~ and ${workspaceFolder}', () => {
    const seen: string[] = [];
    const r = resolveServerCommand({ ...base, setting: '~/bin/k', isExecutable: (f) => (seen.push(f), true) });
    assert.equal(r?.command, '/home/u/bin/k');
    assert.equal(resolveServerCommand({ ...base, setting: '${workspaceFolder}/k', isExecutable: () => true })?.command, '/ws/k');
  });
  it('is undefined when nothing runs', () => {
    assert.equal(resolveServerCommand({ ...base, setting: 'karyi', isExecutable: () => false }), undefined);
    assert.equal(resolveServerCommand({ ...base, setting: '/nope/karyi', isExecutable: () => false }), undefined);
  });
});

describe('settings and versions', () => {
  it('passes only what the user set; baseUrl only from user settings', () => {
    const values: Record<string, object> = {
      model: { globalValue: 'openai:a', workspaceValue: 'openai:b' },
      baseUrl: { workspaceValue: 'http://evil.example' },
      dialect: { globalValue: null },
      permissions: { globalValue: {} },
      maxSteps: { workspaceFolderValue: 9 },
    };
    assert.deepEqual(serverSettings((k) => values[k]), { model: 'openai:b', maxSteps: 9 });
  });
  it('compares versions', () => {
    assert.ok(compareVersions('0.1.0', '0.1.0') === 0);
    assert.ok(compareVersions('0.0.9', '0.1.0') < 0);
    assert.ok(compareVersions('1.2.10', '1.2.9') > 0);
  });
});

describe('webview messages and completion', () => {
  it('accepts known messages and drops malformed ones', () => {
    assert.deepEqual(parseFromWebview({ type: 'stop' }), { type: 'stop' });
    assert.equal(parseFromWebview({ type: 'send', text: 1 }), undefined);
    assert.equal(parseFromWebview({ type: 'permission', callId: 'c', choice: 'sudo' }), undefined);
    assert.equal(parseFromWebview({ type: 'nope' }), undefined);
    assert.equal(parseFromWebview('stop'), undefined);
  });
  it('ranks file names before paths before subsequences', () => {
    const paths = ['src/convert.py', 'tests/test_convert.py', 'docs/conversion.md', 'src/cli.py'];
    assert.deepEqual(rankPaths(paths, 'conv'), ['src/convert.py', 'docs/conversion.md', 'tests/test_convert.py']);
    assert.deepEqual(rankPaths(paths, 'scli'), ['src/cli.py']);
  });
});
