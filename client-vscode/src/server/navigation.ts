/**
 * The editor's own language features for the agent's navigation tools (`karyi/navigate`,
 * docs/context.md#where-navigation-answers-come-from). The server asks an LSP method with
 * its params; it is answered by the provider VS Code has for the file's language
 * (`vscode.executeReferenceProvider` and the others: Pylance, the built-in TypeScript
 * features, rust-analyzer, …), converted to LSP's JSON shapes. Nothing found is `null`
 * or `[]` (the server then asks its own language server); a provider's error is the
 * request's error.
 */
import * as vscode from 'vscode';
import { lspRange } from './lspShapes';

export interface NavigateParams {
  method: string;
  params: {
    textDocument?: { uri: string };
    position?: { line: number; character: number };
    query?: string;
    newName?: string;
    item?: { data?: { karyiEditorItem?: number } };
  };
}

export interface NavigateResult {
  result: unknown;
}

/** The key by which the server knows a call hierarchy item as the editor's (navigation/editor.py). */
const ITEM_KEY = 'karyiEditorItem';
const KEPT_ITEMS = 200;
/** VS Code's call hierarchy commands take the items they gave: kept here by number. */
const items = new Map<number, vscode.CallHierarchyItem>();
let nextItem = 1;

type Ask = (p: NavigateParams['params']) => Promise<unknown>;

const run = <T>(command: string, ...args: unknown[]) => vscode.commands.executeCommand<T>(command, ...args);

function where(p: NavigateParams['params']): [vscode.Uri, vscode.Position] {
  if (!p.textDocument || !p.position) throw new Error('a position is needed');
  return [vscode.Uri.parse(p.textDocument.uri), new vscode.Position(p.position.line, p.position.character)];
}

const ASK: Record<string, Ask> = {
  'textDocument/definition': async (p) => (await run<(vscode.Location | vscode.LocationLink)[]>('vscode.executeDefinitionProvider', ...where(p)))?.map(lspLocation) ?? [],
  'textDocument/references': async (p) => (await run<vscode.Location[]>('vscode.executeReferenceProvider', ...where(p)))?.map(lspLocation) ?? [],
  'textDocument/hover': async (p) => lspHover((await run<vscode.Hover[]>('vscode.executeHoverProvider', ...where(p))) ?? []),
  'textDocument/documentSymbol': async (p) => {
    const found = await run<(vscode.DocumentSymbol | vscode.SymbolInformation)[]>('vscode.executeDocumentSymbolProvider', vscode.Uri.parse(p.textDocument?.uri ?? ''));
    return (found ?? []).map(lspSymbol);
  },
  'workspace/symbol': async (p) => ((await run<vscode.SymbolInformation[]>('vscode.executeWorkspaceSymbolProvider', p.query ?? '')) ?? []).map(lspSymbol),
  'textDocument/prepareCallHierarchy': async (p) => ((await run<vscode.CallHierarchyItem[]>('vscode.prepareCallHierarchy', ...where(p))) ?? []).map(lspItem),
  'callHierarchy/incomingCalls': async (p) => {
    const calls = (await run<vscode.CallHierarchyIncomingCall[]>('vscode.provideIncomingCalls', keptItem(p))) ?? [];
    return calls.map((c) => ({ from: lspItem(c.from), fromRanges: c.fromRanges.map(lspRange) }));
  },
  'callHierarchy/outgoingCalls': async (p) => {
    const calls = (await run<vscode.CallHierarchyOutgoingCall[]>('vscode.provideOutgoingCalls', keptItem(p))) ?? [];
    return calls.map((c) => ({ to: lspItem(c.to), fromRanges: c.fromRanges.map(lspRange) }));
  },
  'textDocument/rename': async (p) => {
    // VS Code 1.100 hands `newName` over as an array when the document is not loaded yet
    // ("Unexpected type"): load it first
    const [uri, position] = where(p);
    await vscode.workspace.openTextDocument(uri);
    const edit = await run<vscode.WorkspaceEdit | undefined>('vscode.executeDocumentRenameProvider', uri, position, p.newName ?? '');
    if (!edit) return null;
    // documentChanges, not `changes`: a JSON object keyed by URIs does not survive pygls
    const documentChanges = edit.entries().map(([uri, edits]) => ({
      textDocument: { uri: uri.toString(), version: null },
      edits: edits.map((e) => ({ range: lspRange(e.range), newText: e.newText })),
    }));
    return { documentChanges };
  },
};

/** Answer one `karyi/navigate` request with the editor's providers. */
export async function editorNavigate(params: NavigateParams): Promise<NavigateResult> {
  const ask = ASK[params.method];
  if (!ask) throw new Error(`the editor does not answer ${params.method}`);
  return { result: await ask(params.params ?? {}) };
}

function lspLocation(l: vscode.Location | vscode.LocationLink) {
  if ('targetUri' in l) {
    const selection = l.targetSelectionRange ?? l.targetRange;
    return { targetUri: l.targetUri.toString(), targetRange: lspRange(l.targetRange), targetSelectionRange: lspRange(selection) };
  }
  return { uri: l.uri.toString(), range: lspRange(l.range) };
}

function lspHover(hovers: vscode.Hover[]) {
  const contents = hovers.flatMap((h) =>
    h.contents.map((c) => {
      if (typeof c === 'string') return c;
      if (c instanceof vscode.MarkdownString) return { kind: 'markdown', value: c.value };
      return { language: c.language, value: c.value };
    }),
  );
  return contents.length ? { contents } : null;
}

/** VS Code's SymbolKind counts from 0, LSP's from 1. */
interface LspSymbol {
  name: string;
  kind: number;
  range?: ReturnType<typeof lspRange>;
  selectionRange?: ReturnType<typeof lspRange>;
  children?: LspSymbol[];
  containerName?: string;
  location?: { uri: string; range: ReturnType<typeof lspRange> };
}

function lspSymbol(s: vscode.DocumentSymbol | vscode.SymbolInformation): LspSymbol {
  if ('selectionRange' in s) {
    // a DocumentSymbol (VS Code's may carry a location too: the outline's tree is what counts)
    return { name: s.name, kind: s.kind + 1, range: lspRange(s.range), selectionRange: lspRange(s.selectionRange), children: (s.children ?? []).map(lspSymbol) };
  }
  return { name: s.name, kind: s.kind + 1, containerName: s.containerName, location: { uri: s.location.uri.toString(), range: lspRange(s.location.range) } };
}

function lspItem(item: vscode.CallHierarchyItem) {
  const id = nextItem++;
  items.set(id, item);
  for (const old of items.keys()) {
    if (items.size <= KEPT_ITEMS) break;
    items.delete(old);
  }
  return {
    name: item.name,
    kind: item.kind + 1,
    detail: item.detail,
    uri: item.uri.toString(),
    range: lspRange(item.range),
    selectionRange: lspRange(item.selectionRange),
    data: { [ITEM_KEY]: id },
  };
}

function keptItem(p: NavigateParams['params']): vscode.CallHierarchyItem {
  const item = items.get(p.item?.data?.karyiEditorItem ?? -1);
  if (!item) throw new Error('the call hierarchy item is no longer known to the editor');
  return item;
}
