/**
 * Settings: which server to start, and the `karyi.*` keys the server understands.
 * `resolveServerCommand` is pure (the file checks are passed in) and unit-tested.
 */
import * as path from 'node:path';

export interface ServerCommand {
  command: string;
  args: string[];
  /** Where the command came from, for messages: `setting`, `PATH`, a found venv. */
  source: string;
}

export interface ResolveOptions {
  setting: string;
  args: string[];
  extensionPath: string;
  workspaceFolders: string[];
  home: string;
  pathEnv: string;
  isExecutable(file: string): boolean;
}

function onPath(cmd: string, pathEnv: string, isExecutable: (f: string) => boolean): string | undefined {
  for (const dir of pathEnv.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, cmd);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/** True when `karyi.server.command` is left at its default (empty or `karyi`). */
export function isDefaultCommand(setting: string): boolean {
  return (setting.trim() || 'karyi') === 'karyi';
}

/**
 * The server command. An explicit `karyi.server.command` (anything but the default
 * `karyi`) is used as given (`~` and `${workspaceFolder}` expanded, a bare name looked up
 * on PATH). The default `karyi` is looked up on PATH, then in the virtualenv of the
 * Karyi checkout the extension runs from (development), then in each workspace
 * folder's `.venv`. Undefined when nothing is found.
 */
export function resolveServerCommand(o: ResolveOptions): ServerCommand | undefined {
  const setting = o.setting.trim() || 'karyi';
  const expand = (p: string) =>
    p.replace(/^~(?=$|\/)/, o.home).replace(/\$\{workspaceFolder\}/g, o.workspaceFolders[0] ?? '');
  if (setting !== 'karyi') {
    const cmd = expand(setting);
    if (cmd.includes('/') || cmd.includes('\\')) return o.isExecutable(cmd) ? { command: cmd, args: o.args, source: 'setting' } : undefined;
    const found = onPath(cmd, o.pathEnv, o.isExecutable);
    return found ? { command: found, args: o.args, source: 'setting' } : undefined;
  }
  const found = onPath('karyi', o.pathEnv, o.isExecutable);
  if (found) return { command: found, args: o.args, source: 'PATH' };
  const candidates = [
    path.join(o.extensionPath, '..', '.venv', 'bin', 'karyi'),
    ...o.workspaceFolders.map((f) => path.join(f, '.venv', 'bin', 'karyi')),
  ];
  for (const c of candidates) if (o.isExecutable(c)) return { command: path.normalize(c), args: o.args, source: path.dirname(path.dirname(c)) };
  return undefined;
}

/** Compare dotted versions: negative when a < b. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.+-]/).map((x) => parseInt(x, 10) || 0);
  const pb = b.split(/[.+-]/).map((x) => parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d) return d;
  }
  return 0;
}

/** The oldest server this extension speaks to. */
export const MIN_SERVER_VERSION = '0.1.0';

/** `karyi.*` keys passed to the server as its editor settings layer (SPEC §10). */
export const SERVER_KEYS = ['model', 'models', 'baseUrl', 'apiKeyEnv', 'dialect', 'profile', 'permissions', 'maxSteps'] as const;
/** Keys that only the user's own settings may set (a workspace must not redirect the API key). */
export const USER_ONLY = new Set(['baseUrl', 'apiKeyEnv']);

export interface Inspected {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/** The settings the user actually set (defaults stay out so the server's own files apply). */
export function serverSettings(inspect: (key: string) => Inspected | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of SERVER_KEYS) {
    const i = inspect(key);
    if (!i) continue;
    const value = USER_ONLY.has(key) ? i.globalValue : (i.workspaceFolderValue ?? i.workspaceValue ?? i.globalValue);
    if (value === undefined || value === null || value === '') continue;
    if (typeof value === 'object' && !Array.isArray(value) && Object.keys(value as object).length === 0) continue;
    out[key] = value;
  }
  return out;
}
