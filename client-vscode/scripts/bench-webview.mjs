// The chat webview's cost to a person: the size of the production bundle dist/webview.js
// (bytes and gzip), and in headless Chromium its start-up (script evaluated until it
// posts `ready`), the first render of a realistic 200-item transcript (markdown, code,
// tool cards, edit cards, a permission request) and 100 streamed text deltas onto it.
// A blank page run the same way is the baseline: what the harness itself costs.
//
//   node scripts/bench-webview.mjs [--runs N] [--no-build] [--against DIR]
//
// --against DIR: another client-vscode checkout (its dist/webview.js already built with
// --production) measured in the same run, pages interleaved, as the baseline of a change.
//
// Wall times run to the first frame that shows the result (layout included); `cpu` is
// the main thread's task time over the same span (Chromium's own counter, so a waiting
// frame costs nothing). Medians of N fresh pages (default 9).
// docs/architecture.md#the-chat-webview
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';

const EXT = path.resolve(import.meta.dirname, '..');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? dflt : process.argv[i + 1];
};
const RUNS = Number(arg('--runs', 9));
const against = arg('--against', undefined);

if (!process.argv.includes('--no-build')) execFileSync('node', ['esbuild.mjs', '--production'], { cwd: EXT, stdio: ['ignore', 'ignore', 'inherit'] });

/** A checkout's webview: its bundle, stylesheet and <body> markup. */
function webview(ext) {
  return { bundle: readFileSync(path.join(ext, 'dist', 'webview.js'), 'utf8'), css: readFileSync(path.join(ext, 'media', 'chat.css'), 'utf8'), body: bodyMarkup(ext) };
}

/** The webview's <body> as the extension writes it (the source file that names dist/webview.js). */
function bodyMarkup(ext) {
  const files = [];
  const walk = (dir) => {
    for (const f of readdirSync(dir)) {
      const p = path.join(dir, f);
      if (statSync(p).isDirectory()) {
        if (f !== 'test') walk(p);
      } else if (p.endsWith('.ts')) files.push(p);
    }
  };
  walk(path.join(ext, 'src'));
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    const m = /<body>([\s\S]*?)<script nonce/.exec(text);
    if (m && text.includes("'webview.js'")) return m[1];
  }
  throw new Error('no webview HTML found under src/');
}

const MARKDOWN = [
  '## What I found',
  '',
  'The converter adds **32** before it multiplies, so `to_fahrenheit(100)` returns the wrong value. The fix:',
  '',
  '1. multiply by `9/5` first;',
  '2. then add the offset;',
  '3. run the tests again.',
  '',
  '```python',
  'def to_fahrenheit(celsius: float) -> float:',
  '    """Celsius to Fahrenheit."""',
  '    return celsius * 9 / 5 + 32',
  '',
  '',
  'def to_kelvin(celsius: float) -> float:',
  '    return celsius + 273.15',
  '',
  'for c in (0, 37, 100):',
  '    print(c, to_fahrenheit(c), to_kelvin(c))',
  '```',
  '',
  'See [the docs](https://example.com/docs) and the table:',
  '',
  '| input | before | after |',
  '| --- | --- | --- |',
  '| 0 | 32 | 32 |',
  '| 100 | 3260 | 212 |',
].join('\n');

function file(p, state) {
  return { path: p, uri: `file:///w/${p}`, added: 3, removed: 1, hunks: 2, created: false, deleted: false, state };
}

/** 200 items: 100 questions and 100 answers, each with tool cards; the last turn is open. */
function transcript() {
  const items = [];
  const tools = {};
  for (let i = 0; i < 100; i++) {
    items.push({ kind: 'user', id: `u${i}`, text: `Question ${i}: why does the converter give the wrong value for 100 °C?`, context: i % 7 === 0 ? 'src/convert.py:1-7' : undefined });
    const blocks = [];
    if (i % 5 === 0) blocks.push({ kind: 'text', channel: 'thinking', text: 'Let me read the file first, then the tests.' });
    const read = `r${i}`;
    tools[read] = { id: read, name: 'read', description: 'Read src/convert.py', status: 'done', output: 'def to_fahrenheit(c):\n    return (c + 32) * 9 / 5\n'.repeat(4), seconds: 0.1, decision: 'auto', display: '12 lines' };
    blocks.push({ kind: 'tool', id: read });
    blocks.push({ kind: 'text', channel: 'text', text: MARKDOWN });
    const edit = `e${i}`;
    const last = i === 99;
    tools[edit] = {
      id: edit, name: 'edit', description: 'Edit src/convert.py', status: last ? 'awaiting' : 'done', output: '', seconds: last ? undefined : 2.5,
      decision: last ? undefined : 'accepted by the user', reason: last ? 'edits need your approval' : undefined,
      files: [file('src/convert.py', last ? 'pending' : 'accepted'), file('tests/test_convert.py', last ? 'pending' : 'partial')],
    };
    blocks.push({ kind: 'tool', id: edit });
    if (i % 10 === 3) blocks.push({ kind: 'notice', level: 'info', text: 'Checkpoint taken before the edit.' });
    const run = `c${i}`;
    if (!last) {
      tools[run] = { id: run, name: 'run_command', description: 'pytest -q', status: i % 9 === 4 ? 'failed' : 'done', output: '....F.\n1 failed, 5 passed in 0.12s\n', seconds: 1.2, sandboxed: true, error: i % 9 === 4 ? 'exit code 1' : undefined };
      blocks.push({ kind: 'tool', id: run });
      blocks.push({ kind: 'text', channel: 'answer', text: `Fixed it: the tests pass (${i}).` });
    }
    items.push({
      kind: 'turn', id: `t${i}`, turnId: `turn${i}`, blocks, done: !last, stopReason: last ? undefined : 'end_turn', steps: last ? undefined : 3,
      usage: last ? undefined : { inputTokens: 1200 + i, outputTokens: 300, cachedTokens: 800, turnCost: 0.0042 },
    });
  }
  return {
    sessionId: 's1', title: 'Fix the converter', items, tools, busy: true, step: 3, model: 'openai:gpt-4.1', seq: 300, mode: 'act', plan: '', cost: 0.42,
    todos: [{ id: '1', text: 'Fix the offset', status: 'done' }, { id: '2', text: 'Run the tests', status: 'in_progress' }],
    contextUse: { used: 31000, window: 1047576 },
  };
}

const delta = (n) => ({ type: 'action', action: { kind: 'update', update: { sessionId: 's1', turnId: 'turn99', event: { type: 'text', channel: 'text', text: ` word${n}` } } } });

function page(app) {
  const body = app ? app.body : '<div id="app"></div>';
  const stub = `window.__posted=[];window.acquireVsCodeApi=()=>({postMessage(m){window.__posted.push(m);if(m.type==='ready')window.__ready=performance.now()},getState(){},setState(){}});`;
  const script = app ? `<script>${app.bundle.replace(/<\/script/gi, '<\\/script')}</script>` : `<script>window.__ready=performance.now()</script>`;
  return `<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8"><style>${(app ?? here).css}</style></head><body>${body}<script>${stub}window.__t0=performance.now()</script>${script}</body></html>`;
}

/** One fresh page: start-up, first render and streaming figures (ms). */
async function once(browser, app, state) {
  const p = await browser.newPage({ viewport: { width: 420, height: 900 } });
  const cdp = await p.context().newCDPSession(p);
  await cdp.send('Performance.enable');
  const cpu = async () => (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'TaskDuration').value * 1000;
  await p.setContent(page(app));
  await p.waitForFunction(() => window.__ready !== undefined);
  const start = await p.evaluate(() => window.__ready - window.__t0);
  // The next frame that shows what `done()` says is there.
  const frame = (done) => new Promise((resolve) => {
    const tick = () => (done() ? (document.body.offsetHeight, resolve(performance.now())) : requestAnimationFrame(tick));
    requestAnimationFrame(tick);
  });
  await p.evaluate(`window.__frame=${frame.toString()}`);
  const cpu0 = await cpu();
  const first = await p.evaluate(async (s) => {
    const t0 = performance.now();
    window.dispatchEvent(new MessageEvent('message', { data: { type: 'state', state: s, serverRunning: true } }));
    const t1 = await window.__frame(() => document.querySelectorAll('#log .item').length >= s.items.length || !document.getElementById('log'));
    return t1 - t0;
  }, state);
  const cpu1 = await cpu();
  const stream = await p.evaluate(async (deltas) => {
    const times = [];
    for (const [i, d] of deltas.entries()) {
      const t0 = performance.now();
      window.dispatchEvent(new MessageEvent('message', { data: d }));
      const last = () => document.querySelector('#log .item.turn:last-child')?.textContent?.includes(`word${i}`) ?? true;
      times.push((await window.__frame(last)) - t0);
    }
    return times.sort((a, b) => a - b)[times.length >> 1];
  }, Array.from({ length: 100 }, (_, i) => delta(i)));
  const cpu2 = await cpu();
  const items = await p.evaluate(() => document.querySelectorAll('#log .item').length);
  await p.close();
  return { start, first, firstCpu: cpu1 - cpu0, stream, streamCpu: cpu2 - cpu1, items };
}

const here = webview(EXT);
const med = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const state = transcript();
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const apps = { blank: undefined, webview: here };
if (against) apps[`against ${path.basename(path.resolve(against, '..'))}`] = webview(path.resolve(against));
const runs = Object.fromEntries(Object.keys(apps).map((k) => [k, []]));
for (let r = 0; r < RUNS; r++) for (const [name, app] of Object.entries(apps)) runs[name].push(await once(browser, app, state));
await browser.close();

for (const [name, app] of Object.entries(apps)) {
  if (!app) continue;
  const gz = gzipSync(app.bundle, { level: 9 }).length;
  console.log(`${name} dist/webview.js: ${app.bundle.length.toLocaleString('en')} bytes, gzip ${gz.toLocaleString('en')} bytes`);
}
console.log(`median of ${RUNS} pages (ms)       start-up  first-200 (cpu)  stream-delta (cpu for 100)`);
for (const [name, rs] of Object.entries(runs)) {
  const f = (k) => med(rs.map((x) => x[k])).toFixed(1);
  console.log(`${name.padEnd(30)} ${f('start').padStart(8)} ${f('first').padStart(10)} (${f('firstCpu')}) ${f('stream').padStart(8)} (${f('streamCpu')})`);
}
for (const [name, rs] of Object.entries(runs)) {
  if (apps[name] && rs[0].items !== state.items.length) throw new Error(`${name} showed ${rs[0].items} of ${state.items.length} items`);
}
