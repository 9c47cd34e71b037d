// The extension's import graph has no cycles (`make lint`), as import-linter checks the
// Python side. Reads every .ts and .tsx file under src/ with the TypeScript compiler (already a
// dev dependency), follows every relative import and re-export (`import type` too: a
// cycle of types is still a tangle a reader has to hold in their head), and prints
// each cycle found as a chain of files. Exit 1 when there is one.
import * as fs from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';

const root = path.resolve(process.argv[2] ?? path.join(import.meta.dirname, '..', 'src'));

function sources(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

function resolve(from, spec) {
  if (!spec.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), spec.replace(/\.js$/, ''));
  for (const c of [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')]) if (fs.existsSync(c)) return c;
  return undefined;
}

function importsModule(node) {
  return (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && !!node.moduleSpecifier;
}

const graph = new Map();
for (const file of sources(root)) {
  const text = fs.readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const deps = new Set();
  for (const node of sf.statements) {
    if (!importsModule(node)) continue;
    const target = resolve(file, node.moduleSpecifier.text);
    if (target) deps.add(target);
  }
  graph.set(file, deps);
}

// Tarjan's strongly connected components: every component of more than one file (or a
// file importing itself) is a cycle.
let index = 0;
const stack = [];
const info = new Map();
const cycles = [];
function visit(v) {
  info.set(v, { index, low: index, on: true });
  index++;
  stack.push(v);
  for (const w of graph.get(v) ?? []) {
    if (!graph.has(w)) continue;
    if (!info.has(w)) {
      visit(w);
      info.get(v).low = Math.min(info.get(v).low, info.get(w).low);
    } else if (info.get(w).on) {
      info.get(v).low = Math.min(info.get(v).low, info.get(w).index);
    }
  }
  if (info.get(v).low === info.get(v).index) {
    const component = [];
    let w;
    do {
      w = stack.pop();
      info.get(w).on = false;
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v).has(v)) cycles.push(component);
  }
}
for (const v of graph.keys()) if (!info.has(v)) visit(v);

const rel = (p) => path.relative(path.dirname(root), p);
if (cycles.length === 0) {
  console.log(`import cycles: none among ${graph.size} files of ${rel(root)}/`);
  process.exit(0);
}
for (const component of cycles) {
  const members = new Set(component);
  // one concrete loop through the component, for the message
  const start = component[component.length - 1];
  const chain = [start];
  const seen = new Set([start]);
  let at = start;
  for (;;) {
    const next = [...graph.get(at)].find((w) => members.has(w));
    chain.push(next);
    if (seen.has(next)) break;
    seen.add(next);
    at = next;
  }
  console.error(`import cycle among ${component.length} files: ${chain.map(rel).join(' -> ')}`);
}
console.error('Break it by moving what both sides need into a module of its own (docs/architecture.md).');
process.exit(1);
