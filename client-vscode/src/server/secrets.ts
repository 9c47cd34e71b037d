/**
 * The API key in VS Code's SecretStorage. It reaches the server only through the
 * environment of the server process (`KARYI_API_KEY`); it is never written to settings.
 */
import * as vscode from 'vscode';

const KEY = 'karyi.apiKey';

export class Secrets {
  constructor(private readonly storage: vscode.SecretStorage) {}

  apiKey(): Thenable<string | undefined> {
    return this.storage.get(KEY);
  }

  /** Ask for the key in a password box; true when it changed. */
  async promptApiKey(): Promise<boolean> {
    const value = await vscode.window.showInputBox({
      title: 'Karyi: API key',
      prompt: 'The key for your model provider. It is kept in VS Code\'s secret storage and given to the Karyi server as KARYI_API_KEY. Leave empty to remove it.',
      password: true,
      ignoreFocusOut: true,
    });
    if (value === undefined) return false;
    if (value) await this.storage.store(KEY, value);
    else await this.storage.delete(KEY);
    return true;
  }
}
