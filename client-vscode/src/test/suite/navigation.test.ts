/**
 * `karyi/navigate` in the real extension host: the editor's providers (registered here
 * for the untitled plain-text document of the test) answered in LSP's shapes, as the server reads them
 * (docs/protocol.md#navigation-server--client-request).
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { editorNavigate } from '../../server/navigation';

const TEXT = 'class Shape:\n  def area(self): ...\n\narea()\n';

const range = (line: number, start: number, end: number) => new vscode.Range(line, start, line, end);
const lsp = (line: number, start: number, end: number) => ({ start: { line, character: start }, end: { line, character: end } });

describe('karyi/navigate (the editor answers the navigation tools)', () => {
  let doc: vscode.TextDocument;
  const subscriptions: vscode.Disposable[] = [];

  before(async () => {
    doc = await vscode.workspace.openTextDocument({ language: 'plaintext', content: TEXT });
    const selector = { scheme: 'untitled', language: 'plaintext' };
    const at = (line: number, start: number, end: number) => new vscode.Location(doc.uri, range(line, start, end));
    const method = new vscode.CallHierarchyItem(vscode.SymbolKind.Method, 'area', 'Shape', doc.uri, range(1, 2, 21), range(1, 6, 10));
    const caller = new vscode.CallHierarchyItem(vscode.SymbolKind.Module, 'main', '', doc.uri, range(3, 0, 6), range(3, 0, 4));
    subscriptions.push(
      vscode.languages.registerDefinitionProvider(selector, {
        provideDefinition: () => [{ targetUri: doc.uri, targetRange: range(1, 2, 21), targetSelectionRange: range(1, 6, 10) }],
      }),
      vscode.languages.registerReferenceProvider(selector, { provideReferences: () => [at(1, 6, 10), at(3, 0, 4)] }),
      vscode.languages.registerHoverProvider(selector, { provideHover: () => new vscode.Hover(new vscode.MarkdownString('`area(self)`')) }),
      vscode.languages.registerDocumentSymbolProvider(selector, {
        provideDocumentSymbols: () => {
          const shape = new vscode.DocumentSymbol('Shape', '', vscode.SymbolKind.Class, range(0, 0, 21), range(0, 6, 11));
          shape.children = [new vscode.DocumentSymbol('area', '', vscode.SymbolKind.Method, range(1, 2, 21), range(1, 6, 10))];
          return [shape];
        },
      }),
      vscode.languages.registerCallHierarchyProvider(selector, {
        prepareCallHierarchy: () => method,
        provideCallHierarchyIncomingCalls: (item) => (item.name === 'area' ? [new vscode.CallHierarchyIncomingCall(caller, [range(3, 0, 4)])] : []),
        provideCallHierarchyOutgoingCalls: () => [],
      }),
      vscode.languages.registerRenameProvider(selector, {
        provideRenameEdits: (_d, _p, newName) => {
          const edit = new vscode.WorkspaceEdit();
          edit.replace(doc.uri, range(1, 6, 10), newName);
          edit.replace(doc.uri, range(3, 0, 4), newName);
          return edit;
        },
      }),
    );
  });

  after(() => subscriptions.forEach((s) => s.dispose()));

  const at = (line: number, character: number) => ({ textDocument: { uri: doc.uri.toString() }, position: { line, character } });
  const ask = async (method: string, params: object) => (await editorNavigate({ method, params })).result;

  it('definition, references and hover in LSP shapes', async () => {
    const uri = doc.uri.toString();
    assert.deepEqual(await ask('textDocument/definition', at(3, 1)), [{ targetUri: uri, targetRange: lsp(1, 2, 21), targetSelectionRange: lsp(1, 6, 10) }]);
    assert.deepEqual(await ask('textDocument/references', at(3, 1)), [{ uri, range: lsp(1, 6, 10) }, { uri, range: lsp(3, 0, 4) }]);
    assert.deepEqual(await ask('textDocument/hover', at(3, 1)), { contents: [{ kind: 'markdown', value: '`area(self)`' }] });
  });

  it("an outline is a tree of DocumentSymbols with LSP's kinds", async () => {
    const outline = (await ask('textDocument/documentSymbol', { textDocument: { uri: doc.uri.toString() } })) as { name: string; kind: number; children: { name: string; kind: number }[] }[];
    assert.deepEqual(
      outline.map((s) => [s.name, s.kind, s.children.map((c) => [c.name, c.kind])]),
      [['Shape', 5, [['area', 6]]]],
    );
  });

  it("the call hierarchy follows the editor's own item", async () => {
    const [item] = (await ask('textDocument/prepareCallHierarchy', at(1, 7))) as { name: string; data: { karyiEditorItem: number } }[];
    assert.equal(item.name, 'area');
    const calls = (await ask('callHierarchy/incomingCalls', { item })) as { from: { name: string }; fromRanges: unknown[] }[];
    assert.deepEqual(calls.map((c) => [c.from.name, c.fromRanges]), [['main', [lsp(3, 0, 4)]]]);
    await assert.rejects(ask('callHierarchy/incomingCalls', { item: { data: { karyiEditorItem: -5 } } }), /no longer known/);
  });

  it('a rename is documentChanges; an unknown method is an error', async () => {
    const edit = (await ask('textDocument/rename', { ...at(1, 7), newName: 'surface' })) as { documentChanges: { textDocument: { uri: string }; edits: unknown[] }[] };
    assert.deepEqual(edit.documentChanges, [
      { textDocument: { uri: doc.uri.toString(), version: null }, edits: [{ range: lsp(1, 6, 10), newText: 'surface' }, { range: lsp(3, 0, 4), newText: 'surface' }] },
    ]);
    await assert.rejects(ask('textDocument/typeDefinition', at(1, 7)), /does not answer/);
  });
});
