/**
 * The editor's diagnostics for the agent (`karyi/diagnostics`, docs/context.md#diagnostics).
 * After an edit the server asks for the problems of the edited files; the language
 * servers of the editor need a moment to look at the new text, so the answer waits until
 * they have settled: QUIET_MS without a change to those files' diagnostics once a change
 * was seen, or IDLE_MS when none comes (the edit changed nothing they report), and never
 * longer than the server's `waitMs`. Before an edit (`changed: false`) the diagnostics of
 * documents already open are answered at once: they have settled on the current text. No URIs: every diagnostic the editor has, at once.
 */
import * as vscode from 'vscode';
import { lspDiagnostic } from './lspShapes';
import { settled } from './settle';

export interface DiagnosticsParams {
  uris: string[];
  waitMs: number;
  /** False before an edit: diagnostics of documents already open have settled. */
  changed?: boolean;
}

export interface DiagnosticsResult {
  diagnostics: { uri: string; diagnostics: ReturnType<typeof lspDiagnostic>[] }[];
}

/** Open each file (so its language servers look at it), wait for them to settle, answer. */
export async function editorDiagnostics(params: DiagnosticsParams): Promise<DiagnosticsResult> {
  if (!params.uris.length) {
    // every file the editor has diagnostics for (`@problems`), as they are now
    const all = vscode.languages.getDiagnostics().filter(([, ds]) => ds.length);
    return { diagnostics: all.map(([u, ds]) => ({ uri: u.toString(), diagnostics: ds.map(lspDiagnostic) })) };
  }
  const uris = params.uris.map((u) => vscode.Uri.parse(u));
  const keys = new Set(uris.map((u) => u.toString()));
  const open = new Set(vscode.workspace.textDocuments.map((d) => d.uri.toString()));
  if (params.changed === false && [...keys].every((k) => open.has(k))) return current(uris);
  const start = Date.now();
  let lastChange: number | undefined;
  const listener = vscode.languages.onDidChangeDiagnostics((e) => {
    if (e.uris.some((u) => keys.has(u.toString()))) lastChange = Date.now();
  });
  try {
    await Promise.all(uris.map((u) => vscode.workspace.openTextDocument(u).then(undefined, () => undefined)));
    await new Promise<void>((resolve) => {
      const tick = () => {
        const now = Date.now();
        if (settled(now - start, lastChange === undefined ? undefined : now - lastChange, params.waitMs)) resolve();
        else timer = setTimeout(tick, 50);
      };
      let timer = setTimeout(tick, 50);
      void timer;
    });
  } finally {
    listener.dispose();
  }
  return current(uris);
}

function current(uris: vscode.Uri[]): DiagnosticsResult {
  return {
    diagnostics: uris.map((u) => ({ uri: u.toString(), diagnostics: vscode.languages.getDiagnostics(u).map(lspDiagnostic) })),
  };
}
