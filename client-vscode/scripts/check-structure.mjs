// The extension held to the server's readability rules (`make lint`, docs/architecture.md,
// "The VS Code extension"), as tests/docs/test_code_size.py and import-linter hold the
// server: no source file over 400 lines, no function over 60, imports only down the
// layers below, no import cycle. Reads every .ts file under src/ with the TypeScript
// compiler (already a dev dependency); tests (src/test/) and generated files (*.gen.ts)
// are exempt. Prints one line per problem, `file:line: what`, and exits 1 when there is one.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

export const MAX_FILE_LINES = 400;
export const MAX_FUNCTION_LINES = 60;

/** The layers, bottom to top, each a folder (or file) under src/: a file imports only its
 * own layer and those below. */
export const LAYERS = [
  ['protocol', 'protocol/'],
  ['shared', 'shared/'],
  ['server', 'server/'],
  ['features', 'features/'],
  ['views', 'views/'],
  ['commands', 'commands/'],
  ['extension', 'extension.ts'],
];

/** The chat webview's browser bundle: it imports only these layers and itself, and no
 * other file imports it. */
export const WEBVIEW = { path: 'views/chat/webview/', mayImport: ['protocol', 'shared'] };

/** Layers that run outside the extension host too (the webview, the unit tests), so they
 * never import `vscode`. */
const NO_VSCODE = ['protocol', 'shared', 'webview'];

/** Not tested here: tests import every layer, generated files are written by a program. */
const EXEMPT = [/^test\//, /\.gen\.ts$/];

function sources(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

function resolveImport(from, spec) {
  if (!spec.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), spec.replace(/\.js$/, ''));
  for (const c of [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')]) if (fs.existsSync(c)) return c;
  return undefined;
}

/** The layer of a file (a path relative to src/, with '/'), or undefined if it is in none. */
export function layerOf(rel) {
  if (rel.startsWith(WEBVIEW.path)) return 'webview';
  return LAYERS.find(([, p]) => (p.endsWith('/') ? rel.startsWith(p) : rel === p))?.[0];
}

const rank = (layer) => LAYERS.findIndex(([name]) => name === layer);
const order = LAYERS.map(([name]) => name).join(' < ');

/** Why an import from layer `from` of layer `to` is refused, or undefined if it is allowed. */
function refusal(from, to) {
  if (from === 'webview' && to !== 'webview' && !WEBVIEW.mayImport.includes(to)) {
    return `the webview runs in the browser and imports only ${WEBVIEW.mayImport.join(' and ')}`;
  }
  if (to === 'webview' && from !== 'webview') return 'the webview is a browser bundle of its own: only its files import it';
  if (from !== 'webview' && to !== 'webview' && rank(to) > rank(from)) return `an import back up the layers (${order})`;
  return undefined;
}

const FUNCTION_KINDS = new Set([
  ts.SyntaxKind.FunctionDeclaration,
  ts.SyntaxKind.MethodDeclaration,
  ts.SyntaxKind.Constructor,
  ts.SyntaxKind.GetAccessor,
  ts.SyntaxKind.SetAccessor,
  ts.SyntaxKind.ArrowFunction,
  ts.SyntaxKind.FunctionExpression,
]);

function functionName(node, sf) {
  if (node.kind === ts.SyntaxKind.Constructor) return 'constructor';
  if (node.name) return node.name.getText(sf);
  const p = node.parent;
  if ((ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) && p.name) {
    return p.name.getText(sf);
  }
  return node.kind === ts.SyntaxKind.ArrowFunction ? '(anonymous arrow function)' : '(anonymous function)';
}

/** Every function of `sf` longer than the limit, measured first to last line. */
function longFunctions(sf) {
  const found = [];
  const line = (pos) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const visit = (node) => {
    if (FUNCTION_KINDS.has(node.kind) && node.body) {
      const first = line(node.getStart(sf));
      const lines = line(node.getEnd()) - first + 1;
      if (lines > MAX_FUNCTION_LINES) found.push({ line: first, name: functionName(node, sf), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

function parse(root) {
  const files = new Map();
  for (const file of sources(root)) {
    const rel = path.relative(root, file).split(path.sep).join('/');
    if (rel.startsWith('test/')) continue;
    const text = fs.readFileSync(file, 'utf8');
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const imports = [];
    for (const node of sf.statements) {
      if (!(ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) || !node.moduleSpecifier) continue;
      const spec = node.moduleSpecifier.text;
      const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
      imports.push({ spec, line, target: resolveImport(file, spec) });
    }
    files.set(file, { rel, text, sf, imports });
  }
  return files;
}

function sizeProblems(files, show) {
  const problems = [];
  for (const [file, { rel, text, sf }] of files) {
    if (EXEMPT.some((re) => re.test(rel))) continue;
    const count = text.split('\n').length - 1;
    if (count > MAX_FILE_LINES) {
      problems.push(`${show(file)}:1: ${count} lines, over ${MAX_FILE_LINES}: split the file by responsibility`);
    }
    for (const f of longFunctions(sf)) {
      problems.push(`${show(file)}:${f.line}: function ${f.name} is ${f.lines} lines, over ${MAX_FUNCTION_LINES}: split it into named steps`);
    }
  }
  return problems;
}

function layerProblems(files, show) {
  const problems = [];
  for (const [file, { rel, imports }] of files) {
    const from = layerOf(rel);
    if (!from) {
      problems.push(`${show(file)}:1: in no layer: put it under one of ${LAYERS.map(([, p]) => p).join(', ')} (scripts/check-structure.mjs)`);
      continue;
    }
    for (const imp of imports) {
      if (imp.spec === 'vscode' && NO_VSCODE.includes(from)) {
        problems.push(`${show(file)}:${imp.line}: imports vscode, but ${from} also runs outside the extension host`);
      }
      if (!imp.target || !files.has(imp.target)) continue;
      const to = layerOf(files.get(imp.target).rel);
      const why = to && refusal(from, to);
      if (why) problems.push(`${show(file)}:${imp.line}: imports ${show(imp.target)} (${to}) from ${from}: ${why}`);
    }
  }
  return problems;
}

/** Tarjan's strongly connected components: each of more than one file (or a file importing
 * itself) is a cycle, named by one concrete loop through it with each import's line. */
function cycleProblems(files, show) {
  const graph = new Map([...files].map(([f, v]) => [f, v.imports.filter((i) => files.has(i.target))]));
  let index = 0;
  const stack = [];
  const info = new Map();
  const components = [];
  const visit = (v) => {
    info.set(v, { index, low: index, on: true });
    index++;
    stack.push(v);
    for (const { target: w } of graph.get(v)) {
      if (!info.has(w)) {
        visit(w);
        info.get(v).low = Math.min(info.get(v).low, info.get(w).low);
      } else if (info.get(w).on) {
        info.get(v).low = Math.min(info.get(v).low, info.get(w).index);
      }
    }
    if (info.get(v).low !== info.get(v).index) return;
    const component = [];
    let w;
    do {
      w = stack.pop();
      info.get(w).on = false;
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v).some((i) => i.target === v)) components.push(component);
  };
  for (const v of graph.keys()) if (!info.has(v)) visit(v);
  return components.map((component) => {
    const members = new Set(component);
    const start = component[component.length - 1];
    const steps = [];
    const seen = new Set([start]);
    for (let at = start; ; ) {
      const next = graph.get(at).find((i) => members.has(i.target));
      steps.push(`${show(at)}:${next.line}`);
      if (seen.has(next.target)) {
        steps.push(show(next.target));
        break;
      }
      seen.add(next.target);
      at = next.target;
    }
    return `${steps[0]}: import cycle among ${component.length} files: ${steps.join(' -> ')}: move what both sides need into a module of its own`;
  });
}

/** Every problem of the tree at `root` (src/), one line each, paths relative to `base`. */
export function check(root, { base = process.cwd() } = {}) {
  root = path.resolve(root);
  const files = parse(root);
  const show = (p) => path.relative(base, p).split(path.sep).join('/');
  return [...sizeProblems(files, show), ...layerProblems(files, show), ...cycleProblems(files, show)].sort();
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = path.resolve(process.argv[2] ?? path.join(import.meta.dirname, '..', 'src'));
  const problems = check(root);
  for (const p of problems) console.error(p);
  if (problems.length) process.exit(1);
  console.log(`extension structure: ${sources(root).filter((f) => !path.relative(root, f).startsWith('test')).length} files of ${path.relative(process.cwd(), root) || '.'} within the limits and layers (${order}), no import cycle`);
}
