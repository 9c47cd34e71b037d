// The ground truth for the navigation tests on TypeScript: TypeScript's own compiler
// API (the typescript beside typescript-language-server). For each question (a name
// and the file and line of its declaration) it prints the declaration's place and every
// identifier, under src/, whose symbol (through imports and exports) is that one.
// Usage: node ts_references.cjs TYPESCRIPT_DIR PROJECT_ROOT QUESTIONS_JSON
"use strict";
const path = require("path");
const ts = require(process.argv[2]);
const root = path.resolve(process.argv[3]);
const questions = JSON.parse(process.argv[4]);

const configPath = path.join(root, "tsconfig.json");
const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} };
const config = ts.getParsedCommandLineOfConfigFile(configPath, {}, host);
const program = ts.createProgram(config.fileNames, config.options);
const checker = program.getTypeChecker();
const sources = program
  .getSourceFiles()
  .filter((sf) => sf.fileName.startsWith(path.join(root, "src") + path.sep));

function resolve(id) {
  let symbol = ts.isShorthandPropertyAssignment(id.parent)
    ? checker.getShorthandAssignmentValueSymbol(id.parent)
    : checker.getSymbolAtLocation(id);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  return symbol;
}

function identifiers(name) {
  const found = [];
  for (const sf of sources) {
    const walk = (node) => {
      if (ts.isIdentifier(node) && node.text === name) found.push([sf, node]);
      ts.forEachChild(node, walk);
    };
    walk(sf);
  }
  return found;
}

function place(sf, node) {
  const at = sf.getLineAndCharacterOfPosition(node.getStart(sf));
  return [path.relative(root, sf.fileName), at.line + 1, at.character + 1];
}

const out = {};
for (const [name, file, line] of questions) {
  const all = identifiers(name);
  const declared = all.find(
    ([sf, node]) => path.relative(root, sf.fileName) === file && place(sf, node)[1] === line
  );
  if (!declared) throw new Error(`${name} is not written at ${file}:${line}`);
  const target = resolve(declared[1]);
  out[name] = {
    declaration: place(...declared),
    references: all.filter(([, node]) => resolve(node) === target).map((pair) => place(...pair)),
  };
}
process.stdout.write(JSON.stringify(out));
