/**
 * The chat webview's entry: one store fed by the extension host's messages (the same
 * chat reducer it runs, on the same actions), the components rendered from it, and the
 * user's input and decisions posted back (docs/architecture.md#the-chat-webview).
 */
import DOMPurify from 'dompurify';
import { render } from 'preact';
import type { FromWebview, ToWebview } from '../../../shared/chat/messages';
import { App } from './app';
import { EnvContext, type Env } from './env';
import { createRenderer } from './markdown';
import { focused, initialView, receive, Store } from './store';

declare function acquireVsCodeApi(): { postMessage(m: unknown): void };

function main(): void {
  const vscode = acquireVsCodeApi();
  const store = new Store(initialView());
  const env: Env = { store, post: (m: FromWebview) => vscode.postMessage(m), markdown: createRenderer(DOMPurify) };
  window.addEventListener('message', (ev: MessageEvent<ToWebview>) => store.soon((view) => receive(view, ev.data)));
  const root = document.getElementById('root') ?? document.body;
  render(
    <EnvContext.Provider value={env}>
      <App />
    </EnvContext.Provider>,
    root,
  );
  env.post({ type: 'ready' });
  store.updateUi((ui) => focused(ui));
}

main();
