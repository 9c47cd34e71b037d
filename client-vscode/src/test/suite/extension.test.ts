/**
 * Integration tests in the real extension host, with the real Karyi server and the
 * fake model server (its control URL in KARYI_E2E_CONTROL).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { ChatState } from '../../shared/chat/state';
import type { KaryiApi } from '../../extension';
import type { ConfirmParams, FileProposal, Hunk, TurnUpdate } from '../../protocol';

const CONTROL = process.env.KARYI_E2E_CONTROL ?? '';

async function script(...texts: string[]): Promise<void> {
  await fetch(`${CONTROL}/script`, { method: 'POST', body: JSON.stringify({ replies: texts.map((text) => ({ text })) }) });
}

async function fault(body: object): Promise<void> {
  await fetch(`${CONTROL}/fault`, { method: 'POST', body: JSON.stringify(body) });
}

/** Resolves when `check(state)` holds (checked on every state change; no polling). */
function until(api: KaryiApi, check: (s: ChatState) => boolean, what: string, ms = 30_000): Promise<void> {
  if (check(api.chat.state)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`timed out waiting for ${what}`));
    }, ms);
    const sub = api.chat.onDidChange((s) => {
      if (check(s)) {
        clearTimeout(timer);
        sub.dispose();
        resolve();
      }
    });
  });
}

function serverRunning(api: KaryiApi, ms = 30_000): Promise<void> {
  if (api.server.running) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server state ${api.server.state}`)), ms);
    const sub = api.server.onState(({ state }) => {
      if (state === 'running') {
        clearTimeout(timer);
        sub.dispose();
        resolve();
      }
    });
  });
}

function root(): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'the test opens a workspace folder');
  return folder.uri;
}

async function api(): Promise<KaryiApi> {
  const ext = vscode.extensions.getExtension<KaryiApi>('karyi.karyi');
  assert.ok(ext, 'the extension is installed');
  const a = await ext.activate();
  await serverRunning(a);
  return a;
}

/** A hunk putting `newText` in place of `oldLines` lines from line `line` (0-based). */
function lineHunk(id: string, line: number, newText: string, oldLines = 1): Hunk {
  const range = { start: { line, character: 0 }, end: { line: line + oldLines, character: 0 } };
  const newLines = newText.split('\n').length - 1;
  return { id, header: '', range, newText, oldStart: line + 1, oldLines, newStart: line + 1, newLines, lines: [] };
}

type ProposedChange = Pick<FileProposal, 'original' | 'proposed' | 'added' | 'removed' | 'hunks'>;

/** The server's permission request for call `callId` to change `doc` (a `toolAwaitingPermission` update), as the chat and the inline preview get it. */
function editRequest(callId: string, doc: vscode.TextDocument, change: ProposedChange): TurnUpdate {
  const path = doc.uri.path.split('/').pop() ?? '';
  const file: FileProposal = { uri: doc.uri.toString(), path, version: doc.version, created: false, deleted: false, edits: [], unified: '', ...change };
  return {
    sessionId: 's',
    turnId: 't',
    event: {
      type: 'toolAwaitingPermission',
      call: { index: 0, id: callId, name: 'edit', params: {}, error: null },
      description: `Edit ${path}`,
      reason: '',
      confirmation: { kind: 'edit', title: '', details: '', diff: null, url: null, sandboxed: null, always: true, files: [file] },
    },
  };
}

type Answers = Omit<ConfirmParams, 'sessionId'>[];

/**
 * Runs `body` with `update`'s proposal shown inline and the chat's answers kept in `sent`
 * instead of going to the server; after it, even when it fails, the chat answers the
 * server again, the previews are forgotten and `close` (a command) closes the editor.
 */
async function withProposal(a: KaryiApi, update: TurnUpdate, body: (sent: Answers) => Promise<void>, opts: { close?: string; onAnswer?: () => void } = {}): Promise<void> {
  assert.equal(update.event.type, 'toolAwaitingPermission');
  const callId = update.event.type === 'toolAwaitingPermission' ? update.event.call.id : '';
  const sent: Answers = [];
  const realConfirm = a.chat.confirm.bind(a.chat);
  a.chat.confirm = async (p) => (sent.push(p), opts.onAnswer?.(), true);
  try {
    a.chat.dispatch({ kind: 'update', update });
    a.previews.open(update.sessionId, update);
    await a.previews.whenShown(callId);
    await body(sent);
  } finally {
    a.chat.confirm = realConfirm;
    a.previews.forgetAll();
    if (opts.close) await vscode.commands.executeCommand(opts.close);
  }
}

/** The karyi server processes that are children of this extension host. */
function serverPids(): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const cmd = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (ppid === process.pid && cmd.includes('karyi') && cmd.includes('lsp')) pids.push(Number(entry));
    } catch {
      /* gone */
    }
  }
  return pids;
}

describe('Karyi extension (in the real extension host)', () => {
  beforeEach(async () => {
    await fetch(`${CONTROL}/reset`, { method: 'POST', body: '{}' });
  });
  after(async () => {
    await fetch(`${CONTROL}/reset`, { method: 'POST', body: '{}' });
  });

  it('activates, starts the server and registers every command', async () => {
    const a = await api();
    assert.equal(a.server.state, 'running');
    const commands = await vscode.commands.getCommands(true);
    for (const id of ['karyi.newChat', 'karyi.explainSelection', 'karyi.fixDiagnostics', 'karyi.writeTests', 'karyi.init', 'karyi.addFileToChat', 'karyi.acceptAll', 'karyi.rejectAll', 'karyi.cancel', 'karyi.showTerminal', 'karyi.restoreCheckpoint', 'karyi.setApiKey', 'karyi.restartServer', 'karyi.showServerLog', 'karyi.showTools', 'karyi.review', 'karyi.dismissFinding']) {
      assert.ok(commands.includes(id), `${id} is registered`);
    }
  });

  it('sends a chat message and keeps the streamed answer', async () => {
    const a = await api();
    a.chat.newChat();
    await script('Hello from **the fake model**.');
    const result = await a.chat.send('hi');
    assert.ok(result, 'the chat request answered');
    assert.equal(result.stopReason, 'end_turn');
    const turn = a.chat.state.items.find((i) => i.kind === 'turn');
    assert.ok(turn && turn.kind === 'turn' && turn.blocks.some((b) => b.kind === 'text' && b.text.includes('fake model')));
    assert.ok(a.chat.state.sessionId);
  });

  it('mirrors the agent terminal and lists, loads and deletes sessions', async () => {
    const a = await api();
    a.chat.newChat();
    await script('<tools><command>echo mirrored-$((40 + 2))</command></tools>', 'Ran it.');
    const allow = a.chat.onDidChange((s) => {
      for (const card of Object.values(s.tools)) if (card.status === 'awaiting') void a.chat.permission(card.id, 'allowOnce');
    });
    try {
      const result = await a.chat.send('run it');
      assert.equal(result?.finalAnswer ?? 'Ran it.', 'Ran it.');
    } finally {
      allow.dispose();
    }
    assert.match(a.terminal.backlog, /mirrored-42/, 'the pty output reached the terminal mirror');
    a.terminal.show();
    const id = a.chat.state.sessionId;
    assert.ok(id);
    const sessions = await a.chat.sessions();
    assert.ok(sessions.some((s) => s.id === id), 'the session is listed');
    a.chat.newChat();
    await a.chat.loadSession(id);
    assert.equal(a.chat.state.sessionId, id);
    assert.ok(a.chat.state.items.some((i) => i.kind === 'user' && i.text === 'run it'), 'the loaded transcript has the message');
    await a.chat.deleteSession(id);
    assert.ok(!(await a.chat.sessions()).some((s) => s.id === id), 'the session is deleted');
    assert.equal(a.chat.state.sessionId, null);
  });

  it('Fix Problems in This File sends the file\'s diagnostics', async () => {
    const a = await api();
    a.chat.newChat();
    const uri = vscode.Uri.joinPath(root(), 'broken.py');
    await vscode.workspace.fs.writeFile(uri, Buffer.from('def f(:\n    pass\n'));
    await vscode.window.showTextDocument(uri);
    const diagnostics = vscode.languages.createDiagnosticCollection('test-lint');
    diagnostics.set(uri, [new vscode.Diagnostic(new vscode.Range(0, 6, 0, 7), 'invalid syntax near "("', vscode.DiagnosticSeverity.Error)]);
    try {
      await script('Fixed the signature.');
      await vscode.commands.executeCommand('karyi.fixDiagnostics');
      await until(a, (s) => !s.busy && s.items.some((i) => i.kind === 'turn' && i.done), 'the task to finish');
      const requests = (await (await fetch(`${CONTROL}/requests`)).json()) as { messages: { content: unknown }[] }[];
      const sent = JSON.stringify(requests.at(-1)?.messages);
      assert.match(sent, /Fix the problems reported in the current file/);
      assert.match(sent, /error at line 1: invalid syntax near/);
    } finally {
      diagnostics.dispose();
    }
  });

  it('an allowed edit is applied and saved, and a checkpoint restores the file', async () => {
    const a = await api();
    a.chat.newChat();
    const uri = vscode.Uri.joinPath(root(), 'restore_me.txt');
    await vscode.workspace.fs.writeFile(uri, Buffer.from('before\n'));
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc);
    await script('<tools><edit><file src="restore_me.txt"><find>before</find><replace>after</replace></file></edit></tools>', 'Edited.');
    const allow = a.chat.onDidChange((s) => {
      for (const card of Object.values(s.tools)) if (card.status === 'awaiting') void a.previews.acceptAll(card.id);
    });
    try {
      await a.chat.send('edit it');
    } finally {
      allow.dispose();
    }
    assert.equal(Buffer.from(await vscode.workspace.fs.readFile(uri)).toString(), 'after\n');
    assert.equal(doc.getText(), 'after\n', 'the editor shows the applied edit');
    await new Promise<void>((resolve) => {
      if (!doc.isDirty) return resolve();
      const sub = vscode.workspace.onDidSaveTextDocument((d) => {
        if (d === doc) {
          sub.dispose();
          resolve();
        }
      });
    });
    const checkpoints = await a.chat.checkpoints();
    assert.ok(checkpoints.length > 0, 'a checkpoint was taken before the change');
    await a.chat.restoreCheckpoint(checkpoints[0].id);
    assert.equal(Buffer.from(await vscode.workspace.fs.readFile(uri)).toString(), 'before\n');
    assert.ok(a.chat.state.items.some((i) => i.kind === 'notice' && /Restored checkpoint/.test(i.text)));
  });

  it("the editor's own diagnostics of an edited file reach the model", async () => {
    const a = await api();
    a.chat.newChat();
    const uri = vscode.Uri.joinPath(root(), 'lint_me.txt');
    await vscode.workspace.fs.writeFile(uri, Buffer.from('fine\n'));
    // A linter of the editor, as a language server would be: it reports every line that
    // says "broken", a moment after the document changes.
    const lints = vscode.languages.createDiagnosticCollection('e2e-lint');
    const timers = new Set<NodeJS.Timeout>();
    const lint = (doc: vscode.TextDocument) => {
      if (doc.uri.toString() !== uri.toString()) return;
      const timer = setTimeout(() => {
        timers.delete(timer);
        const found = doc.getText().split('\n').flatMap((line, i) => {
          const at = line.indexOf('broken');
          if (at < 0) return [];
          const d = new vscode.Diagnostic(new vscode.Range(i, at, i, at + 6), 'this line is broken', vscode.DiagnosticSeverity.Error);
          d.source = 'e2e-lint';
          d.code = 'B1';
          return [d];
        });
        lints.set(doc.uri, found);
      }, 200);
      timers.add(timer);
    };
    const subs = [vscode.workspace.onDidOpenTextDocument(lint), vscode.workspace.onDidChangeTextDocument((e) => lint(e.document))];
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc);
    lint(doc);
    await script('<tools><edit><file src="lint_me.txt"><find>fine</find><replace>broken</replace></file></edit></tools>', 'I see the problem.');
    const allow = a.chat.onDidChange((s) => {
      for (const card of Object.values(s.tools)) if (card.status === 'awaiting') void a.previews.acceptAll(card.id);
    });
    try {
      await a.chat.send('break it');
    } finally {
      allow.dispose();
      for (const sub of subs) sub.dispose();
      for (const timer of timers) clearTimeout(timer); // none may fire on the disposed collection
      lints.dispose();
    }
    const requests = (await (await fetch(`${CONTROL}/requests`)).json()) as { messages: { content: unknown }[] }[];
    const sent = JSON.stringify(requests.at(-1)?.messages);
    assert.match(sent, /New problems after this edit \(the editor\); fix them:\\n- lint_me.txt:1:1: error: this line is broken \(e2e-lint B1\)/);
  });

  it('shows hunks as real lines, follows typing, answers per hunk and hands the buffer back', async () => {
    const a = await api();
    a.chat.newChat();
    const uri = vscode.Uri.joinPath(root(), 'preview.py');
    const original = Array.from({ length: 30 }, (_, i) => `line${i}\n`).join('');
    await vscode.workspace.fs.writeFile(uri, Buffer.from(original));
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc);
    const hunk = (id: string, l: number) => lineHunk(id, l, `LINE${l}\n`);
    const update = editRequest('call_preview', doc, { original, proposed: '', added: 2, removed: 2, hunks: [hunk('h1', 3), hunk('h2', 20)] });
    await withProposal(a, update, async (sent) => {
      const lensLines = async () => {
        const lenses = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri)) ?? [];
        return lenses.filter((l) => l.command?.command === 'karyi.acceptHunk').map((l) => l.range.start.line);
      };
      const lines = (text: string) => text.split('\n');
      assert.deepEqual(await lensLines(), [3, 21]);
      assert.deepEqual(lines(doc.getText()).slice(3, 5), ['line3', 'LINE3'], 'the proposed line is a real line below the old one');
      assert.deepEqual(lines(doc.getText()).slice(21, 23), ['line20', 'LINE20']);
      const edit = new vscode.WorkspaceEdit();
      edit.insert(uri, new vscode.Position(0, 0), 'new0\nnew1\n');
      assert.ok(await vscode.workspace.applyEdit(edit));
      assert.deepEqual(await lensLines(), [5, 23], 'the hunks follow the inserted lines');
      await vscode.commands.executeCommand('karyi.acceptHunk', 'call_preview', uri.toString(), 'h1');
      assert.deepEqual(lines(doc.getText()).slice(4, 7), ['line2', 'LINE3', 'line4'], 'accepting takes the old line out');
      assert.equal(sent.length, 0, 'nothing is sent while a hunk is undecided');
      await vscode.commands.executeCommand('undo');
      assert.deepEqual(lines(doc.getText()).slice(5, 7), ['line3', 'LINE3'], 'one undo step takes the decision back');
      await vscode.commands.executeCommand('redo');
      await vscode.commands.executeCommand('karyi.rejectHunk', 'call_preview', uri.toString(), 'h2');
      // The buffer's version once the preview is out goes along: the server waits for it.
      assert.deepEqual(sent, [{ toolCallId: 'call_preview', outcome: 'allowOnce', acceptedHunks: ['h1'], feedback: undefined, documents: [{ uri: uri.toString(), version: doc.version }] }]);
      assert.equal(doc.getText(), 'new0\nnew1\n' + original, 'the server gets the buffer back as it was, with the typing');
      assert.equal(a.chat.state.tools.call_preview.files?.[0].state, 'partial');
    }, { close: 'workbench.action.revertAndCloseActiveEditor' });
  });

  it('typing inside an accepted proposed line and above it is sent as the user\'s text, once', async () => {
    const a = await api();
    a.chat.newChat();
    const uri = vscode.Uri.joinPath(root(), 'typed.py');
    const original = 'a = 1\nb = 2\n';
    await vscode.workspace.fs.writeFile(uri, Buffer.from(original));
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc);
    const update = editRequest('call_typed', doc, { original, proposed: 'a = 10\nb = 2\n', added: 1, removed: 1, hunks: [lineHunk('h1', 0, 'a = 10\n')] });
    await withProposal(a, update, async (sent) => {
      assert.equal(doc.getText(), 'a = 1\na = 10\nb = 2\n');
      const typing = new vscode.WorkspaceEdit();
      typing.insert(uri, new vscode.Position(1, 6), ' # mine');
      assert.ok(await vscode.workspace.applyEdit(typing));
      const above = new vscode.WorkspaceEdit();
      above.insert(uri, new vscode.Position(0, 0), 'import os\n');
      assert.ok(await vscode.workspace.applyEdit(above));
      await vscode.commands.executeCommand('karyi.acceptHunk', 'call_typed', uri.toString(), 'h1');
      assert.deepEqual(sent, [{ toolCallId: 'call_typed', outcome: 'allowOnce', modifiedContent: [{ uri: 'typed.py', text: 'import os\na = 10 # mine\nb = 2\n' }], feedback: undefined, documents: [{ uri: uri.toString(), version: doc.version }] }]);
      assert.equal(doc.getText(), original, 'handed back as the server proposed on: it writes the user\'s text, typing included, once');
    }, { close: 'workbench.action.revertAndCloseActiveEditor' });
  });

  it('Reject all on a CRLF file leaves the buffer byte-identical and clean', async () => {
    const a = await api();
    a.chat.newChat();
    const uri = vscode.Uri.joinPath(root(), 'crlf.py');
    const original = 'a = 1\r\nb = 2\r\nc = 3\r\n';
    await vscode.workspace.fs.writeFile(uri, Buffer.from(original));
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc);
    const update = editRequest('call_crlf', doc, { original, proposed: '', added: 3, removed: 1, hunks: [lineHunk('h1', 1, 'b = 20\nb2 = 4\nb3 = 5\n')] });
    await withProposal(a, update, async (sent) => {
      assert.equal(doc.getText(), 'a = 1\r\nb = 2\r\nb = 20\r\nb2 = 4\r\nb3 = 5\r\nc = 3\r\n', 'shown with the file\'s own line breaks');
      assert.ok(doc.isDirty);
      await a.previews.rejectAll('call_crlf');
      assert.deepEqual(sent, [{ toolCallId: 'call_crlf', outcome: 'reject', feedback: undefined, documents: [{ uri: uri.toString(), version: doc.version }] }]);
      assert.equal(doc.getText(), original, 'byte-identical');
      assert.equal(doc.isDirty, false, 'and not dirty');
    }, { close: 'workbench.action.closeActiveEditor' });
  });

  it('the user edits the proposal and their text is sent as modifiedContent', async () => {
    const a = await api();
    a.chat.newChat();
    const uri = vscode.Uri.joinPath(root(), 'draft.py');
    await vscode.workspace.fs.writeFile(uri, Buffer.from('x = 1\ny = 2\n'));
    const doc = await vscode.workspace.openTextDocument(uri);
    const update = editRequest('call_draft', doc, { original: 'x = 1\ny = 2\n', proposed: 'x = 10\ny = 2\n', added: 1, removed: 1, hunks: [lineHunk('h1', 0, 'x = 10\n')] });
    await withProposal(a, update, async (sent) => {
      await vscode.commands.executeCommand('karyi.editProposal', 'call_draft', uri.toString());
      const draft = vscode.window.activeTextEditor;
      assert.ok(draft && draft.document.isUntitled, 'the proposal opens in an editor of its own');
      assert.equal(draft.document.getText(), 'x = 10\ny = 2\n');
      await draft.edit((e) => e.replace(new vscode.Range(0, 0, 0, 6), 'x = 100'));
      await vscode.commands.executeCommand('karyi.useDraft', 'call_draft', uri.toString());
      assert.deepEqual(sent, [{ toolCallId: 'call_draft', outcome: 'allowOnce', modifiedContent: [{ uri: 'draft.py', text: 'x = 100\ny = 2\n' }], feedback: undefined, documents: [{ uri: uri.toString(), version: doc.version }] }]);
      assert.equal(a.chat.state.tools.call_draft.files?.[0].state, 'edited');
      assert.equal(doc.getText(), 'x = 1\ny = 2\n', 'the file itself is untouched until the server applies it');
    });
  });

  it('a file deleted while previewed is said so and rejected', async () => {
    const a = await api();
    a.chat.newChat();
    const uri = vscode.Uri.joinPath(root(), 'doomed.py');
    await vscode.workspace.fs.writeFile(uri, Buffer.from('a\nb\nc\n'));
    const doc = await vscode.workspace.openTextDocument(uri);
    const update = editRequest('call_doomed', doc, { original: 'a\nb\nc\n', proposed: 'a\nB\nc\n', added: 1, removed: 1, hunks: [lineHunk('h1', 1, 'B\n')] });
    let answered!: () => void;
    const answer = new Promise<void>((resolve) => (answered = resolve));
    await withProposal(a, update, async (sent) => {
      const wsEdit = new vscode.WorkspaceEdit();
      wsEdit.deleteFile(uri);
      assert.ok(await vscode.workspace.applyEdit(wsEdit));
      await until(a, (s) => s.tools.call_doomed?.files?.[0].state === 'gone', 'the card to say the file is gone');
      await answer; // the preview is taken out of the (orphaned) buffer first
      assert.equal(sent.length, 1);
      assert.equal(sent[0].outcome, 'reject');
      assert.match(sent[0].feedback ?? '', /deleted doomed\.py/);
    }, { onAnswer: () => answered() });
  });

  it('a server crash mid-turn is shown, keeps the chat, and a restart goes on in the same session', async () => {
    const a = await api();
    a.chat.newChat();
    await script('First answer.');
    await a.chat.send('first');
    const session = a.chat.state.sessionId;
    assert.ok(session);
    await fault({ stall: true, after: 3 });
    await script('never finished');
    const pending = a.chat.send('second');
    await until(a, (s) => s.items.some((i) => i.kind === 'turn' && !i.done && i.blocks.length > 0), 'the second turn to stream');
    const pids = serverPids();
    assert.ok(pids.length >= 1, 'found the server process');
    for (const pid of pids) process.kill(pid, 'SIGKILL');
    await until(a, (s) => !s.busy && s.items.some((i) => i.kind === 'notice' && i.action === 'restart'), 'the crash notice');
    await pending;
    assert.ok(a.chat.state.items.some((i) => i.kind === 'user' && i.text === 'first'), 'the transcript survives');
    await vscode.commands.executeCommand('karyi.restartServer');
    await serverRunning(a);
    await script('Back again.');
    const result = await a.chat.send('third');
    assert.equal(result?.sessionId, session, 'the same session goes on');
  });

  it('a server that cannot start gets an actionable message, and the fixed setting works again', async () => {
    const a = await api();
    const cfg = vscode.workspace.getConfiguration('karyi');
    const good = cfg.get<string>('server.command');
    const failure = new Promise<string>((resolve) => {
      const sub = a.server.onState(({ state, message }) => {
        if (state === 'failed') {
          sub.dispose();
          resolve(message ?? '');
        }
      });
    });
    await cfg.update('server.command', '/nonexistent/karyi', vscode.ConfigurationTarget.Global);
    try {
      await vscode.commands.executeCommand('karyi.restartServer');
      const message = await failure;
      assert.match(message, /was not found/);
      assert.match(message, /karyi\.server\.command/);
      assert.ok(a.chat.state.items.some((i) => i.kind === 'notice' && i.action === 'restart'), 'the chat offers a restart');
    } finally {
      await cfg.update('server.command', good, vscode.ConfigurationTarget.Global);
    }
    await vscode.commands.executeCommand('karyi.restartServer');
    await serverRunning(a);
  });
});
