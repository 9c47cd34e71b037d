/**
 * Mentions beyond files (docs/context.md#mentions): the words the server expands itself.
 * `@problems`, `@terminal`, `@diff` stand alone; `@folder:` and `@url:` take an argument.
 */
import { rankPaths } from './rank';

export const SPECIAL = ['problems', 'terminal', 'diff', 'folder:', 'url:'] as const;

/** True for a mention the server expands (not a file to attach). */
export function isSpecial(mention: string): boolean {
  return /^(problems|terminal|diff)$/.test(mention) || /^(folder|url):/.test(mention) || /^https?:\/\//.test(mention);
}

/** The completions for what follows `@`: the special words first, then files; after
 * `@folder:` the folders that hold the files. */
export function complete(query: string, files: string[]): string[] {
  if (query.startsWith('folder:')) {
    const dirs = new Set<string>();
    for (const f of files) {
      const parts = f.split('/');
      for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
    }
    return rankPaths([...dirs], query.slice('folder:'.length)).map((d) => `folder:${d}`);
  }
  if (query.startsWith('url:')) return [];
  const words = SPECIAL.filter((w) => w.startsWith(query.toLowerCase()));
  return [...words, ...rankPaths(files, query)];
}
