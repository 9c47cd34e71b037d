/** Workspace files for @mentions: a cached listing, filtered by what the user typed. */
import * as vscode from 'vscode';
import { rankPaths } from './chat/rank';

const EXCLUDE = '**/{node_modules,.git,.venv,__pycache__,.karyi,dist,out,build}/**';

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
