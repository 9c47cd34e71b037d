// Code navigation answered by the editor (docs/context.md#where-navigation-answers-come-from):
// in a small TypeScript project whose `.karyi/settings.json` says `navigation.source:
// editor` (so no language server of Karyi's own may answer), the agent's `references`
// comes from VS Code's built-in TypeScript features through `karyi/navigate`, and its
// `rename` (the editor's rename provider) is previewed with per-hunk Accept/Reject lenses,
// then applied to both files, the doc comment left alone. KARYI_E2E_ONLY=nav runs these alone.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const SHAPES = `/** The area of a rectangle. */
export function area(width: number, height: number): number {
  return width * height;
}
`;

const MAIN = `import { area } from './shapes';

export const total = area(2, 3) + area(4, 5);
`;

function makeProject(dir) {
  const ws = path.join(dir, 'nav');
  fs.mkdirSync(path.join(ws, 'src'), { recursive: true });
  fs.mkdirSync(path.join(ws, '.karyi'), { recursive: true });
  fs.writeFileSync(path.join(ws, 'src', 'shapes.ts'), SHAPES);
  fs.writeFileSync(path.join(ws, 'src', 'main.ts'), MAIN);
  fs.writeFileSync(path.join(ws, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, target: 'ES2022' }, include: ['src'] }, null, 2));
  fs.writeFileSync(path.join(ws, '.karyi', 'settings.json'), JSON.stringify({ navigation: { source: 'editor' } }, null, 2));
  // While it loads a project, VS Code's TypeScript answers from the open file alone
  // (partial semantic mode, its syntax server): wait for the whole project instead.
  fs.mkdirSync(path.join(ws, '.vscode'), { recursive: true });
  fs.writeFileSync(path.join(ws, '.vscode', 'settings.json'), JSON.stringify({ 'typescript.tsserver.useSyntaxServer': 'never' }, null, 2));
  return ws;
}

export async function navSteps(page, ws, fake, { step, send, chatFrame, shot, openChat, base, WAIT }) {
  const project = makeProject(path.dirname(ws));
  const chat = chatFrame(page);

  await step("references: answered by the editor's TypeScript provider", async () => {
    await fake.reset(); // the steps before may leave the fake model answering as code reviewers
    await openChat(page, base, project);
    await fake.script('<tools><references symbol="area"/></tools>', '`area` is declared in src/shapes.ts and called twice in src/main.ts.');
    await send(chat, 'Who uses area?');
    await chat.locator('.item.turn.done .md', { hasText: 'called twice' }).waitFor({ timeout: 2 * WAIT });
    const told = JSON.stringify((await fake.requests()).at(-1).messages);
    const expected = [
      'References of area: 4 in 2 files',
      'src/shapes.ts:2:17: export function area(width: number, height: number): number {',
      "src/main.ts:1:10: import { area } from './shapes';",
      'src/main.ts:3:22: export const total = area(2, 3) + area(4, 5);',
      'src/main.ts:3:35: export const total = area(2, 3) + area(4, 5);',
    ].join('\n');
    assert.ok(told.includes(JSON.stringify(expected).slice(1, -1)), `the model got the editor's references:\n${told.slice(-1500)}`);
  });

  await step("rename: the editor's rename previewed with per-hunk Accept/Reject, then applied", async () => {
    await fake.script('<tools><rename symbol="area" new_name="surface"/></tools>', 'Renamed area to surface.');
    await send(chat, 'Rename area to surface');
    const card = chat.locator('.tool.tool-awaiting');
    await card.locator('.file', { hasText: 'src/shapes.ts' }).waitFor({ timeout: 2 * WAIT });
    await card.locator('.file', { hasText: 'src/main.ts' }).waitFor({ timeout: WAIT });
    await page.locator('.codelens-decoration a', { hasText: /^Accept \(/ }).first().waitFor({ timeout: WAIT });
    await page.locator('.codelens-decoration a', { hasText: /^Reject \(/ }).first().waitFor({ timeout: WAIT });
    await page.mouse.move(900, 600);
    await shot(page, 'vscode-rename.png');
    await card.locator('button[data-action="acceptAll"]').click();
    await chat.locator('.item.turn.done .md', { hasText: 'Renamed area to surface.' }).waitFor({ timeout: WAIT });
    const shapes = fs.readFileSync(path.join(project, 'src', 'shapes.ts'), 'utf8');
    const main = fs.readFileSync(path.join(project, 'src', 'main.ts'), 'utf8');
    assert.equal(shapes, SHAPES.replace('function area', 'function surface'), 'the declaration renamed, the comment left');
    assert.equal(main, MAIN.replaceAll('area', 'surface'), 'the import and both calls renamed');
  });
}
