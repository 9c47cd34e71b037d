// scripts/check-structure.mjs on small trees written here: each rule fails at its limit
// plus one with a message naming file:line, and passes at its limit.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { check } from './check-structure.mjs';

/** A tree of files (relative path -> text) under a fresh temporary src/. */
function tree(files) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'structure-'));
  const src = path.join(root, 'src');
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(src, rel)), { recursive: true });
    fs.writeFileSync(path.join(src, rel), text);
  }
  return { src, problems: () => check(src, { base: root }) };
}

/** A function declaration of exactly `lines` lines. */
const fn = (name, lines) => `export function ${name}(): number {\n${'  void 0;\n'.repeat(lines - 2)}}\n`;

test('a function of 61 lines fails, naming file:line', () => {
  const t = tree({ 'shared/long.ts': `// a comment\n${fn('long', 61)}` });
  assert.deepEqual(t.problems(), ['src/shared/long.ts:2: function long is 61 lines, over 60: split it into named steps']);
});

test('a function of 60 lines passes', () => {
  assert.deepEqual(tree({ 'shared/ok.ts': fn('ok', 60) }).problems(), []);
});

test('methods and arrow functions are measured too', () => {
  const method = `export class A {\n  m(): void {\n${'    void 0;\n'.repeat(59)}  }\n}\n`;
  const arrow = `export const f = (): void => {\n${'  void 0;\n'.repeat(59)}};\n`;
  const t = tree({ 'shared/a.ts': method, 'shared/f.ts': arrow });
  assert.deepEqual(t.problems(), [
    'src/shared/a.ts:2: function m is 61 lines, over 60: split it into named steps',
    'src/shared/f.ts:1: function f is 61 lines, over 60: split it into named steps',
  ]);
});

test('a file of 401 lines fails, 400 passes; generated files and tests are exempt', () => {
  const t = tree({
    'shared/big.ts': 'export const x = 1;\n'.repeat(401),
    'shared/fits.ts': 'export const y = 1;\n'.repeat(400),
    'protocol/protocol.gen.ts': 'export const z = 1;\n'.repeat(900),
    'test/unit/long.test.ts': 'void 0;\n'.repeat(900),
  });
  assert.deepEqual(t.problems(), ['src/shared/big.ts:1: 401 lines, over 400: split the file by responsibility']);
});

test('an import back up the layers fails, naming file:line; one down passes', () => {
  const t = tree({
    'protocol/index.ts': 'export type P = number;\n',
    'server/index.ts': "import type { P } from '../protocol';\nimport { go } from '../features/chat';\nexport const s: P = go();\n",
    'features/chat.ts': 'export const go = (): number => 1;\n',
  });
  assert.deepEqual(t.problems(), [
    'src/server/index.ts:2: imports src/features/chat.ts (features) from server: an import back up the layers (protocol < shared < server < features < views < commands < extension)',
  ]);
});

test('the webview imports only protocol and shared, and only it imports itself; shared never imports vscode', () => {
  const t = tree({
    'shared/state.ts': "import * as vscode from 'vscode';\nexport const s = vscode;\n",
    'server/index.ts': 'export const conn = 1;\n',
    'views/chat/webview/main.ts': "import { s } from '../../../shared/state';\nimport { conn } from '../../../server';\nexport const m = [s, conn];\n",
    'views/chat/provider.ts': "import { m } from './webview/main';\nexport const p = m;\n",
  });
  assert.deepEqual(t.problems(), [
    'src/shared/state.ts:1: imports vscode, but shared also runs outside the extension host',
    'src/views/chat/provider.ts:1: imports src/views/chat/webview/main.ts (webview) from views: the webview is a browser bundle of its own: only its files import it',
    'src/views/chat/webview/main.ts:2: imports src/server/index.ts (server) from webview: the webview runs in the browser and imports only protocol and shared',
  ]);
});

test('a file in no layer fails', () => {
  assert.deepEqual(tree({ 'loose.ts': 'export const x = 1;\n' }).problems(), [
    'src/loose.ts:1: in no layer: put it under one of protocol/, shared/, server/, features/, views/, commands/, extension.ts (scripts/check-structure.mjs)',
  ]);
});

test('an import cycle fails, named import by import', () => {
  const t = tree({
    'features/a.ts': "import { b } from './b';\nexport const a = b + 1;\n",
    'features/b.ts': "import type { C } from './c';\nexport const b: C = 1;\n",
    'features/c.ts': "// c\nimport { a } from './a';\nexport type C = typeof a;\n",
    'features/d.ts': "import { a } from './a';\nexport const d = a;\n",
  });
  const problems = t.problems();
  assert.equal(problems.length, 1);
  assert.match(problems[0], /^src\/features\/[abc]\.ts:\d: import cycle among 3 files: /);
  for (const step of ['src/features/a.ts:1', 'src/features/b.ts:1', 'src/features/c.ts:2']) assert.ok(problems[0].includes(step), problems[0]);
  assert.ok(!problems[0].includes('d.ts'));
});

test('.tsx components are measured and followed: a cycle through one fails', () => {
  const t = tree({
    'views/chat/webview/app.tsx': "import { s } from './store';\nexport const App = () => <div>{s}</div>;\n",
    'views/chat/webview/store.ts': "import { App } from './app';\nexport const s = String(App);\n",
  });
  const [problem, ...rest] = t.problems();
  assert.deepEqual(rest, []);
  assert.match(problem, /import cycle among 2 files: .*app\.tsx.*store\.ts|import cycle among 2 files: .*store\.ts.*app\.tsx/);
});

test("the extension's own src/ passes", () => {
  const src = path.join(import.meta.dirname, '..', 'src');
  assert.deepEqual(check(src), []);
});
