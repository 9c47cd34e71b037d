/**
 * Inline chat (docs/vscode.md, "Inline chat"): Ctrl+I / Cmd+I in an editor asks for an
 * instruction about the selection (or, with nothing selected, the function around the
 * cursor) and sends it to the agent in the current session with that code as context.
 * The agent's edit then shows in the same editor as an inline diff; Escape in the input
 * cancels before anything is sent. The input is VS Code's quick input: an extension
 * cannot put a text field inside the editor (Continue's Cmd+I does the same).
 */
import * as vscode from 'vscode';
import type { ChatController } from './controller';

/** The instruction the agent gets around the user's words. */
export function inlineInstruction(instruction: string, file: string, first: number, last: number): string {
  return (
    `${instruction.trim()}\n\n` +
    `This is about ${file} lines ${first}-${last} (the code is attached). Change that code in place with an ` +
    'edit of the file; do not rewrite the rest of the file, and keep the answer short.'
  );
}

const CODE_SYMBOLS = new Set([vscode.SymbolKind.Function, vscode.SymbolKind.Method, vscode.SymbolKind.Constructor, vscode.SymbolKind.Class]);

function innermost(symbols: readonly vscode.DocumentSymbol[], pos: vscode.Position): vscode.DocumentSymbol | undefined {
  for (const s of symbols) {
    if (!s.range.contains(pos)) continue;
    const inner = innermost(s.children, pos);
    if (inner) return inner;
    if (CODE_SYMBOLS.has(s.kind)) return s;
  }
  return undefined;
}

/** The lines around `line` up to the blank lines that bound them (no symbol provider). */
function paragraph(doc: vscode.TextDocument, line: number): vscode.Range {
  let first = line;
  let last = line;
  while (first > 0 && !doc.lineAt(first - 1).isEmptyOrWhitespace) first--;
  while (last < doc.lineCount - 1 && !doc.lineAt(last + 1).isEmptyOrWhitespace) last++;
  return new vscode.Range(first, 0, last, doc.lineAt(last).text.length);
}

/** The code an inline instruction is about: the selection, else the enclosing function. */
export async function inlineTarget(editor: vscode.TextEditor): Promise<vscode.Range> {
  if (!editor.selection.isEmpty) return editor.selection;
  const pos = editor.selection.active;
  try {
    const symbols = await vscode.commands.executeCommand<vscode.DocumentSymbol[] | undefined>('vscode.executeDocumentSymbolProvider', editor.document.uri);
    const found = symbols && innermost(symbols, pos);
    if (found) return found.range;
  } catch {
    /* no symbol provider for this language: fall back to the paragraph */
  }
  return paragraph(editor.document, pos.line);
}

/** Ask for the instruction and send it; the edit shows as an inline diff in `editor`. */
export async function inlineChat(chat: ChatController): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.uri.scheme !== 'file') {
    void vscode.window.showInformationMessage('Karyi: inline chat works in a file editor.');
    return;
  }
  const range = await inlineTarget(editor);
  const file = vscode.workspace.asRelativePath(editor.document.uri, false);
  const label = `${file}:${range.start.line + 1}-${range.end.line + 1}`;
  editor.selection = new vscode.Selection(range.start, range.end);
  const instruction = await vscode.window.showInputBox({
    title: `Karyi: change ${label}`,
    prompt: 'What should change? Enter sends, Escape cancels.',
    placeHolder: 'e.g. make this async, add type hints, handle the empty case',
  });
  if (!instruction?.trim()) return;
  // The proposal goes into the buffer as lines: a selection over it would grow with it.
  editor.selection = new vscode.Selection(range.start, range.start);
  const lsp = { start: { line: range.start.line, character: range.start.character }, end: { line: range.end.line, character: range.end.character } };
  await chat.send(inlineInstruction(instruction, file, range.start.line + 1, range.end.line + 1), {
    context: { uri: editor.document.uri.toString(), selection: lsp, text: editor.document.getText(range) },
    contextLabel: label,
    display: instruction.trim(),
  });
}
