import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { envDir, envPython, MARKER, readBundle, readyEnv, removeOthers } from '../../server/bundled/environment';
import { choosePython, parseProbe, pathCandidates, type Probed, pythonNames } from '../../server/bundled/python';
import { isDefaultCommand } from '../../server/config';

const SUPPORTED = ['3.11', '3.12', '3.13', '3.14'];

function probes(table: Record<string, Probed | undefined>) {
  return async (command: string) => table[command];
}

const py = (minor: number, executable: string): Probed => ({ major: 3, minor, micro: 4, executable });

describe('choosing the Python for the bundled server', () => {
  it('tries python3, python, then versioned names newest first', () => {
    assert.deepEqual(pythonNames(SUPPORTED, 'linux'), ['python3', 'python', 'python3.14', 'python3.13', 'python3.12', 'python3.11']);
    assert.equal(pythonNames(['3.11'], 'win32')[0], 'python3.exe');
  });
  it('lists each name in PATH order, each file once', () => {
    const exists = new Set(['/a/python3', '/b/python3', '/b/python3.12']);
    const found = pathCandidates(['python3', 'python', 'python3.12', 'python3'], '/a:/b:', (f) => exists.has(f));
    assert.deepEqual(found.map((c) => c.command), ['/a/python3', '/b/python3', '/b/python3.12']);
  });
  it('takes the first supported one and reports the real executable behind a shim', async () => {
    const choice = await choosePython(
      [{ command: '/ext/python', source: 'the Python extension' }, { command: '/shims/python3', source: 'PATH' }],
      SUPPORTED,
      probes({ '/ext/python': undefined, '/shims/python3': py(12, '/opt/py/bin/python3.12') }),
    );
    assert.deepEqual(choice, { ok: true, executable: '/opt/py/bin/python3.12', version: '3.12.4', source: 'PATH' });
  });
  it('prefers the Python extension\'s interpreter when it fits', async () => {
    const choice = await choosePython(
      [{ command: '/venv/bin/python', source: 'the Python extension' }, { command: '/usr/bin/python3', source: 'PATH' }],
      SUPPORTED,
      probes({ '/venv/bin/python': py(13, '/venv/bin/python'), '/usr/bin/python3': py(11, '/usr/bin/python3') }),
    );
    assert.equal(choice.ok && choice.source, 'the Python extension');
  });
  it('says what was found and what to install when nothing fits', async () => {
    const tooOld = await choosePython([{ command: '/usr/bin/python3', source: 'PATH' }], SUPPORTED, probes({ '/usr/bin/python3': py(9, '/usr/bin/python3.9') }));
    assert.equal(tooOld.ok, false);
    assert.match(!tooOld.ok ? tooOld.message : '', /needs Python 3\.11–3\.14 .* found only Python 3\.9\.4 \(\/usr\/bin\/python3\)\. Install Python 3\.12/);
    const none = await choosePython([], SUPPORTED, probes({}));
    assert.match(!none.ok ? none.message : '', /found no Python on PATH\. Install Python 3\.12 .*karyi\.server\.command/);
  });
  it('parses the probe line and refuses anything else', () => {
    assert.deepEqual(parseProbe('3 11 7 /usr/bin/python3.11\n'), { major: 3, minor: 11, micro: 7, executable: '/usr/bin/python3.11' });
    assert.equal(parseProbe('Python 3.11.7'), undefined);
  });
  it('uses the bundle only when karyi.server.command is left at its default', () => {
    assert.ok(isDefaultCommand('karyi') && isDefaultCommand(' ') && isDefaultCommand(''));
    assert.ok(!isDefaultCommand('/opt/karyi/bin/karyi') && !isDefaultCommand('karyi-dev'));
  });
});

describe('the bundled environment on disk', () => {
  const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'karyi-env-test-'));

  it('reads the manifest of a bundle, and nothing from a checkout without one', () => {
    const ext = tmp();
    assert.equal(readBundle(ext), undefined);
    fs.mkdirSync(path.join(ext, 'server'));
    const manifest = { target: 'linux-x64', pythons: SUPPORTED, package: 'karyi-agent', wheel: 'k.whl', uv: '0.13.9', wheels: ['k.whl'] };
    fs.writeFileSync(path.join(ext, 'server', 'manifest.json'), JSON.stringify(manifest));
    assert.deepEqual(readBundle(ext), { dir: path.join(ext, 'server'), manifest });
  });

  it('is ready only with its marker, for this version, while its Python resolves', () => {
    const storage = tmp();
    const dir = envDir(storage, '1.0.0');
    assert.equal(readyEnv(storage, '1.0.0'), undefined);
    fs.mkdirSync(path.dirname(envPython(dir)), { recursive: true });
    const base = path.join(storage, 'base-python');
    fs.writeFileSync(base, '');
    fs.symlinkSync(base, envPython(dir));
    const marker = { extensionVersion: '1.0.0', python: base, pythonVersion: '3.11.7', createdAt: 'then' };
    assert.equal(readyEnv(storage, '1.0.0'), undefined, 'no marker: a half-made environment');
    fs.writeFileSync(path.join(dir, MARKER), JSON.stringify(marker));
    assert.deepEqual(readyEnv(storage, '1.0.0'), { python: envPython(dir), marker });
    assert.equal(readyEnv(storage, '1.0.1'), undefined, 'another extension version makes its own');
    fs.rmSync(base);
    assert.equal(readyEnv(storage, '1.0.0'), undefined, 'the Python it was made from is gone');
  });

  it('removes other versions and day-old leftovers, never a set-up under way', () => {
    const storage = tmp();
    for (const d of ['env-1.0.0', 'env-0.9.0', '.new-env-old', '.new-env-young', 'other']) fs.mkdirSync(path.join(storage, d));
    const old = (Date.now() - 2 * 24 * 3600 * 1000) / 1000;
    fs.utimesSync(path.join(storage, '.new-env-old'), old, old);
    removeOthers(storage, 'env-1.0.0');
    assert.deepEqual(fs.readdirSync(storage).sort(), ['.new-env-young', 'env-1.0.0', 'other']);
  });
});
