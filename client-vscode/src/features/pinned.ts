/**
 * The settings the organisation pins (docs/security.md#managed-settings): a status bar
 * item "N pinned", shown only when the managed file pins something, and "Karyi: Show
 * Pinned Settings", a quick pick of each pinned key with its value and the managed file
 * (picking one opens the file). Fed by `karyi/pinned`, asked again whenever the server
 * (re)starts or the settings change.
 */
import * as vscode from 'vscode';
import { Methods, type PinnedSettings } from '../protocol';
import type { KaryiServer } from '../server';

type Item = vscode.QuickPickItem & { open?: string };

/** The quick pick's rows: one per pinned key. */
export function pinnedItems(info: PinnedSettings): Item[] {
  return info.settings.map((s) => ({ label: `$(lock) ${s.key}`, description: s.value, detail: `pinned by ${info.file}`, open: info.file }));
}

export class PinnedItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('karyi.pinned', vscode.StatusBarAlignment.Right, 99);
  private readonly disposables: vscode.Disposable[] = [];
  /** What the server said last (undefined: not asked yet, or the server is down). */
  info: PinnedSettings | undefined;

  constructor(private readonly server: KaryiServer) {
    this.item.name = 'Karyi: pinned settings';
    this.item.command = 'karyi.showPinnedSettings';
    this.disposables.push(
      server.onState(({ state }) => void (state === 'running' ? this.refresh() : this.show(undefined))),
      vscode.workspace.onDidChangeConfiguration((e) => void (e.affectsConfiguration('karyi') && this.refresh())),
    );
    if (server.running) void this.refresh();
  }

  /** Ask the server again (a failure leaves the item hidden: the server log says why). */
  async refresh(): Promise<PinnedSettings | undefined> {
    try {
      this.show(await this.server.request(Methods.pinned, {}));
    } catch (e) {
      this.server.output.appendLine(`[pinned] ${e instanceof Error ? e.message : String(e)}`);
      this.show(undefined);
    }
    return this.info;
  }

  private show(info: PinnedSettings | undefined): void {
    this.info = info;
    const n = info?.settings.length ?? 0;
    if (!info || !n) {
      this.item.hide();
      return;
    }
    this.item.text = `$(lock) ${n} pinned`;
    this.item.tooltip = `Karyi: ${n} setting${n === 1 ? ' is' : 's are'} pinned by your organisation (${info.file}); your own values for them have no effect. Click to list them.`;
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
    for (const d of this.disposables) d.dispose();
  }
}

/** "Karyi: Show Pinned Settings". */
export async function showPinned(pinned: PinnedItem): Promise<void> {
  const info = (await pinned.refresh()) ?? pinned.info;
  if (!info?.settings.length) {
    void vscode.window.showInformationMessage('Karyi: your organisation pins no settings (no managed settings file).');
    return;
  }
  const pick = await vscode.window.showQuickPick(pinnedItems(info), {
    title: `Karyi: settings pinned by your organisation (${info.file})`,
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (pick?.open) await vscode.window.showTextDocument(vscode.Uri.file(pick.open), { preview: true });
}
