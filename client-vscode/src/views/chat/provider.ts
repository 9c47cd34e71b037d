/** The sidebar chat: a webview view with a strict CSP (nonce), talking typed messages. */
import * as crypto from 'node:crypto';
import * as vscode from 'vscode';
import { WorkspaceFiles } from '../../features/chat/workspaceFiles';
import type { ChatController, SendOptions } from '../../features/chat/controller';
import { handleMessage } from '../../features/chat/handlers';
import { type EditorContextInfo, parseFromWebview, type ToWebview } from '../../shared/chat/messages';

export const VIEW_ID = 'karyi.chat';

export class ChatViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private readonly files = new WorkspaceFiles();
  private readonly disposables: vscode.Disposable[] = [];
  private lastEditor: vscode.TextEditor | undefined = vscode.window.activeTextEditor;
  private queue: ToWebview[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly chat: ChatController,
  ) {
    chat.attach((m) => this.post(m));
    this.disposables.push(
      vscode.window.onDidChangeActiveTextEditor((e) => {
        if (e && e.document.uri.scheme === 'file') this.lastEditor = e;
        this.postSelection();
      }),
      vscode.window.onDidChangeTextEditorSelection((e) => {
        if (e.textEditor.document.uri.scheme === 'file') this.lastEditor = e.textEditor;
        this.postSelection();
      }),
    );
  }

  post(m: ToWebview): void {
    if (this.view) void this.view.webview.postMessage(m);
    else if (m.type !== 'action' && m.type !== 'state') this.queue.push(m);
  }

  /** Show the chat (and focus its input unless `preserveFocus`). */
  async reveal(preserveFocus = false): Promise<void> {
    if (this.view) this.view.show(preserveFocus);
    else await vscode.commands.executeCommand(`${VIEW_ID}.focus`);
    if (!preserveFocus) this.post({ type: 'focus' });
  }

  /** The selection of the last file editor as chat context. */
  selectionContext(): SendOptions | undefined {
    const e = this.lastEditor;
    if (!e || e.selection.isEmpty || e.document.isClosed) return undefined;
    const s = e.selection;
    const rel = vscode.workspace.asRelativePath(e.document.uri, false);
    return {
      context: {
        uri: e.document.uri.toString(),
        selection: { start: { line: s.start.line, character: s.start.character }, end: { line: s.end.line, character: s.end.character } },
        text: e.document.getText(s),
      },
      contextLabel: `${rel}:${s.start.line + 1}-${s.end.line + 1}`,
    };
  }

  private postSelection(): void {
    const sel = this.selectionContext();
    const info: EditorContextInfo = { label: sel?.contextLabel };
    this.post({ type: 'selection', context: info });
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const dist = vscode.Uri.joinPath(this.extensionUri, 'dist');
    const media = vscode.Uri.joinPath(this.extensionUri, 'media');
    view.webview.options = { enableScripts: true, localResourceRoots: [dist, media] };
    view.webview.html = this.html(view.webview);
    this.disposables.push(
      view.webview.onDidReceiveMessage((raw) => {
        const m = parseFromWebview(raw);
        if (!m) return;
        if (m.type === 'ready') {
          this.chat.sync();
          this.postSelection();
          for (const q of this.queue.splice(0)) void view.webview.postMessage(q);
          return;
        }
        void handleMessage(m, { chat: this.chat, files: this.files, selectionContext: () => this.selectionContext(), post: (x) => this.post(x) });
      }),
      view.onDidDispose(() => {
        this.view = undefined;
      }),
    );
  }

  private html(webview: vscode.Webview): string {
    const nonce = crypto.randomBytes(16).toString('base64');
    const script = webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview.js'));
    const style = webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'media', 'chat.css'));
    const csp = [
      "default-src 'none'",
      `style-src ${webview.cspSource}`,
      `script-src 'nonce-${nonce}'`,
      `img-src ${webview.cspSource} data:`,
      `font-src ${webview.cspSource}`,
    ].join('; ');
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style}">
<title>Karyi</title>
</head>
<body>
<div id="root"></div>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
