/** Workspace files for @mentions: a cached listing, filtered by what the user typed. */
import * as vscode from 'vscode';
import { complete } from '../../shared/mentions';

const EXCLUDE = '**/{node_modules,.git,.venv,__pycache__,.karyi,dist,out,build}/**';

export class WorkspaceFiles {
  private cache: { at: number; paths: string[] } | undefined;

  async complete(query: string): Promise<string[]> {
    if (!this.cache || Date.now() - this.cache.at > 5000) {
      const uris = await vscode.workspace.findFiles('**/*', EXCLUDE, 5000);
      // With several folders a path starts with its folder's name, as the server writes it.
      const several = (vscode.workspace.workspaceFolders?.length ?? 0) > 1;
      this.cache = { at: Date.now(), paths: uris.map((u) => vscode.workspace.asRelativePath(u, several)) };
    }
    return complete(query, this.cache.paths);
  }

  /** A mentioned path (`folder/path` with several folders, else relative to the first
   * folder, or absolute) as a file URI. */
  static toUri(path: string): string | undefined {
    const folders = vscode.workspace.workspaceFolders ?? [];
    if (path.startsWith('/')) return vscode.Uri.file(path).toString();
    const [first, ...rest] = path.split('/');
    const named = folders.length > 1 ? folders.find((f) => f.name === first) : undefined;
    if (named) return vscode.Uri.joinPath(named.uri, ...rest).toString();
    return folders[0] ? vscode.Uri.joinPath(folders[0].uri, path).toString() : undefined;
  }
}
