/** Workspace files for @mentions: a cached listing, filtered by what the user typed. */
import * as vscode from 'vscode';

const EXCLUDE = '**/{node_modules,.git,.venv,__pycache__,.karyi,dist,out,build}/**';

/** Rank `paths` for `query`: substring of the name first, then of the path, then subsequence. */
export function rankPaths(paths: readonly string[], query: string, limit = 20): string[] {
  const q = query.toLowerCase();
  if (!q) return [...paths].sort((a, b) => a.length - b.length || a.localeCompare(b)).slice(0, limit);
  const scored: [number, string][] = [];
  for (const p of paths) {
    const lower = p.toLowerCase();
    const name = lower.slice(lower.lastIndexOf('/') + 1);
    let score: number;
    if (name.startsWith(q)) score = 0;
    else if (name.includes(q)) score = 1;
    else if (lower.includes(q)) score = 2;
    else {
      let i = 0;
      for (const ch of lower) if (ch === q[i]) i++;
      if (i < q.length) continue;
      score = 3;
    }
    scored.push([score * 10_000 + p.length, p]);
  }
  scored.sort((a, b) => a[0] - b[0] || a[1].localeCompare(b[1]));
  return scored.slice(0, limit).map(([, p]) => p);
}

export class WorkspaceFiles {
  private cache: { at: number; paths: string[] } | undefined;

  async complete(query: string): Promise<string[]> {
    if (!this.cache || Date.now() - this.cache.at > 5000) {
      const uris = await vscode.workspace.findFiles('**/*', EXCLUDE, 5000);
      this.cache = { at: Date.now(), paths: uris.map((u) => vscode.workspace.asRelativePath(u, false)) };
    }
    return rankPaths(this.cache.paths, query);
  }

  /** A mentioned path (relative to the first folder, or absolute) as a file URI. */
  static toUri(path: string): string | undefined {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (path.startsWith('/')) return vscode.Uri.file(path).toString();
    return folder ? vscode.Uri.joinPath(folder.uri, path).toString() : undefined;
  }
}
