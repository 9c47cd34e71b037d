/**
 * The server environment the extension makes for itself (docs/install.md): a virtual
 * environment in the extension's global storage, `env-<extension version>/`, installed
 * offline by the bundled uv from the wheels in `server/wheels/`. It is made in a fresh
 * folder and renamed into place once `python -m karyi --version` answers, so a half-made
 * environment is never used and two windows starting at once cannot mix their files.
 * No `vscode` import: the e2e tests and unit tests drive it with real files.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** `server/manifest.json`, written by client-vscode/scripts/bundle_server.py. */
export interface Manifest {
  target: string;
  pythons: string[];
  package: string;
  wheel: string;
  uv: string;
  wheels: string[];
}

export interface Bundle {
  dir: string;
  manifest: Manifest;
}

/** What the environment records about itself once it works. */
export interface EnvMarker {
  extensionVersion: string;
  python: string;
  pythonVersion: string;
  createdAt: string;
}

export const MARKER = 'karyi-env.json';

/** The bundle inside an installed extension, or undefined (a development checkout has none). */
export function readBundle(extensionPath: string): Bundle | undefined {
  const dir = path.join(extensionPath, 'server');
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
    return Array.isArray(manifest.pythons) && manifest.wheel ? { dir, manifest } : undefined;
  } catch {
    return undefined;
  }
}

/** The environment's interpreter, by platform. */
export function envPython(envDir: string, platform: NodeJS.Platform = process.platform): string {
  return platform === 'win32' ? path.join(envDir, 'Scripts', 'python.exe') : path.join(envDir, 'bin', 'python');
}

export function envDir(storage: string, extensionVersion: string): string {
  return path.join(storage, `env-${extensionVersion}`);
}

/**
 * The ready environment of this extension version: its marker is there and its
 * interpreter still resolves (the Python it was made from may have been removed).
 */
export function readyEnv(storage: string, extensionVersion: string): { python: string; marker: EnvMarker } | undefined {
  const dir = envDir(storage, extensionVersion);
  try {
    const marker = JSON.parse(fs.readFileSync(path.join(dir, MARKER), 'utf8')) as EnvMarker;
    const python = envPython(dir);
    if (marker.extensionVersion !== extensionVersion || !fs.statSync(python).isFile()) return undefined;
    return { python, marker };
  } catch {
    return undefined;
  }
}

/** Run a program; resolves with stdout, rejects with its stderr's tail. */
export function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { env, maxBuffer: 16 << 20, windowsHide: true }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${path.basename(command)} ${args[0] ?? ''} failed: ${(stderr || err.message).trim().slice(-1500)}`));
      else resolve(stdout);
    });
  });
}

export interface CreateOptions {
  bundle: Bundle;
  storage: string;
  extensionVersion: string;
  /** The real executable of the chosen Python and its version. */
  python: string;
  pythonVersion: string;
  report(message: string): void;
  log(line: string): void;
}

function uvPath(bundle: Bundle): string {
  const uv = path.join(bundle.dir, 'bin', process.platform === 'win32' ? 'uv.exe' : 'uv');
  // A .vsix is a zip: make sure the executable bit survived the unpacking.
  if (process.platform !== 'win32') fs.chmodSync(uv, 0o755);
  return uv;
}

/** Make the environment (or take the one another window just made); returns its interpreter. */
export async function createEnv(o: CreateOptions): Promise<string> {
  fs.mkdirSync(o.storage, { recursive: true });
  const final = envDir(o.storage, o.extensionVersion);
  const fresh = fs.mkdtempSync(path.join(o.storage, '.new-env-'));
  // uv reads no user or project configuration, downloads no Python, uses no cache.
  const env: NodeJS.ProcessEnv = { ...process.env, UV_NO_CONFIG: '1', UV_PYTHON_DOWNLOADS: 'never', UV_NO_CACHE: '1' };
  delete env.VIRTUAL_ENV;
  const uv = uvPath(o.bundle);
  try {
    o.report(`Python ${o.pythonVersion}`);
    o.log(`uv venv --python ${o.python} ${fresh}`);
    await run(uv, ['venv', '--quiet', '--python', o.python, fresh], env);
    const wheels = path.join(o.bundle.dir, 'wheels');
    o.report('installing Karyi, offline');
    const python = envPython(fresh);
    const install = ['pip', 'install', '--quiet', '--offline', '--no-index', '--find-links', wheels, '--python', python];
    await run(uv, [...install, path.join(wheels, o.bundle.manifest.wheel)], env);
    o.report('checking');
    o.log(`karyi in the new environment: ${(await run(python, ['-m', 'karyi', '--version'])).trim()}`);
    const marker: EnvMarker = {
      extensionVersion: o.extensionVersion,
      python: o.python,
      pythonVersion: o.pythonVersion,
      createdAt: new Date().toISOString(),
    };
    fs.writeFileSync(path.join(fresh, MARKER), JSON.stringify(marker, null, 2));
    const other = readyEnv(o.storage, o.extensionVersion);
    if (other) {
      fs.rmSync(fresh, { recursive: true, force: true });
      return other.python; // another window finished first
    }
    fs.rmSync(final, { recursive: true, force: true }); // a broken one: its Python is gone
    fs.renameSync(fresh, final);
  } catch (err) {
    fs.rmSync(fresh, { recursive: true, force: true });
    const ready = readyEnv(o.storage, o.extensionVersion);
    if (ready) return ready.python; // another window finished first
    throw err;
  }
  removeOthers(o.storage, path.basename(final));
  return envPython(final);
}

const DAY_MS = 24 * 3600 * 1000;

/**
 * Environments of other extension versions, and leftovers of set-ups interrupted more
 * than a day ago (a younger one may be another window's set-up under way).
 */
export function removeOthers(storage: string, keep: string, now = Date.now()): void {
  for (const name of fs.readdirSync(storage)) {
    const file = path.join(storage, name);
    const stale = name.startsWith('.new-env-') && now - fs.statSync(file).mtimeMs > DAY_MS;
    if (name !== keep && (name.startsWith('env-') || stale)) fs.rmSync(file, { recursive: true, force: true });
  }
}
