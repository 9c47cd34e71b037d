/**
 * Which Python the bundled server environment is made with (docs/install.md): the
 * interpreter the Python extension has chosen when it is installed, else the first
 * suitable one on PATH. Suitable means a CPython version the bundled wheels serve
 * (3.11 and newer, up to the newest in the bundle's manifest). The search is pure given
 * a `probe`, so it is unit-tested without any Python.
 */
import * as path from 'node:path';

/** What probing an interpreter tells: its version and the real executable behind shims. */
export interface Probed {
  major: number;
  minor: number;
  micro: number;
  executable: string;
}

export interface Candidate {
  command: string;
  /** For messages: `the Python extension` or `PATH`. */
  source: string;
}

export type PythonChoice =
  | { ok: true; executable: string; version: string; source: string }
  | { ok: false; message: string };

/** The one-liner a probe runs: `3 11 7 /usr/bin/python3.11`. */
export const PROBE_CODE = 'import sys; print(*sys.version_info[:3], sys.executable)';

/** Parse the probe's output; undefined when it is not what the probe prints. */
export function parseProbe(out: string): Probed | undefined {
  const m = /^(\d+) (\d+) (\d+) (.+)$/.exec(out.trim());
  if (!m) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]), micro: Number(m[3]), executable: m[4] };
}

/** Names tried on PATH, in order: the usual ones first, then versioned ones newest first. */
export function pythonNames(supported: string[], platform: NodeJS.Platform): string[] {
  const versioned = [...supported].reverse().map((v) => `python${v}`);
  const names = ['python3', 'python', ...versioned];
  return platform === 'win32' ? names.map((n) => `${n}.exe`) : names;
}

/** Every executable of `names` on PATH, in PATH order per name, each once. */
export function pathCandidates(
  names: string[],
  pathEnv: string,
  isExecutable: (file: string) => boolean,
): Candidate[] {
  const dirs = pathEnv.split(path.delimiter).filter(Boolean);
  const out: Candidate[] = [];
  for (const name of names) {
    for (const dir of dirs) {
      const file = path.join(dir, name);
      if (isExecutable(file) && !out.some((c) => c.command === file)) out.push({ command: file, source: 'PATH' });
    }
  }
  return out;
}

const INSTALL_HINT =
  'Install Python 3.12 (python.org, Homebrew `brew install python@3.12`, or your package manager, e.g. ' +
  '`sudo apt install python3.12`), or point the Python extension at one ("Python: Select Interpreter"), ' +
  'then run "Karyi: Restart Server". To use a Karyi you installed yourself, set `karyi.server.command`.';

/**
 * The first candidate whose probe shows a supported version. Candidates that fail to
 * run are skipped; when none fits, one message says what was found and what to install.
 */
export async function choosePython(
  candidates: Candidate[],
  supported: string[],
  probe: (command: string) => Promise<Probed | undefined>,
): Promise<PythonChoice> {
  const seen: string[] = [];
  for (const c of candidates) {
    const p = await probe(c.command);
    if (!p) continue;
    const version = `${p.major}.${p.minor}`;
    if (supported.includes(version)) {
      return { ok: true, executable: p.executable, version: `${version}.${p.micro}`, source: c.source };
    }
    seen.push(`Python ${version}.${p.micro} (${c.command})`);
  }
  const range = `${supported[0]}–${supported[supported.length - 1]}`;
  const found = seen.length ? `found only ${seen.join(', ')}` : 'found no Python on PATH';
  return { ok: false, message: `Karyi needs Python ${range} to set up its server and ${found}. ${INSTALL_HINT}` };
}
