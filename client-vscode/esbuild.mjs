// Bundles: the extension (Node, CommonJS, `vscode` external), the webview (browser
// IIFE), and with --tests the unit tests (Node) and the extension-host suite (mocha).
import * as esbuild from 'esbuild';
import { readdirSync } from 'node:fs';

const watch = process.argv.includes('--watch');
const tests = process.argv.includes('--tests');
const production = process.argv.includes('--production');

const common = { bundle: true, sourcemap: !production, minify: production, logLevel: 'info', target: 'es2022' };
const builds = [
  { ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', platform: 'node', format: 'cjs', external: ['vscode'] },
  { ...common, entryPoints: ['src/views/chat/webview/main.tsx'], outfile: 'dist/webview.js', platform: 'browser', format: 'iife' },
];
if (tests) {
  const unit = readdirSync('src/test/unit').filter((f) => f.endsWith('.test.ts')).map((f) => `src/test/unit/${f}`);
  builds.push({ ...common, entryPoints: unit, outdir: 'out/unit', platform: 'node', format: 'cjs', external: ['vscode', 'jsdom'] });
  const suite = readdirSync('src/test/suite').filter((f) => f.endsWith('.ts')).map((f) => `src/test/suite/${f}`);
  builds.push({ ...common, entryPoints: suite, outdir: 'out/test/suite', platform: 'node', format: 'cjs', external: ['vscode', 'mocha'] });
}

if (watch) {
  for (const b of builds) await (await esbuild.context(b)).watch();
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
}
