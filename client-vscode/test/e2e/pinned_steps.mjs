// Settings pinned by the organisation (docs/security.md#managed-settings) in real VS
// Code: with a managed settings file (KARYI_MANAGED_SETTINGS, set by the harness, points
// to it), after Karyi: Restart Server the status bar says how many settings are pinned;
// a click lists each key, its value and the file; without the file the item is gone.
// KARYI_E2E_ONLY=pinned runs these alone.
import * as fs from 'node:fs';
import * as path from 'node:path';

const MANAGED = {
  maxSteps: 40,
  web: { allowPrivate: false },
  shell: { sandbox: { deniedDomains: ['evil.example'] } },
};

export async function pinnedSteps(page, dir, { step, shot, palette, WAIT }) {
  const file = path.join(dir, 'managed-settings.json');
  // The status item says `· idle` once the restarted server runs (`· starting…` before).
  const idle = page.locator('.statusbar-item', { hasText: 'openai:fake-model · idle' });
  const item = page.locator('.statusbar-item', { hasText: '3 pinned' });
  await step('Pinned settings: the status bar counts them, a click lists key, value and the managed file', async () => {
    fs.writeFileSync(file, JSON.stringify(MANAGED, null, 2));
    await palette(page, 'Karyi: Restart Server');
    await item.waitFor({ timeout: WAIT });
    await item.click();
    const rows = page.locator('.quick-input-list .monaco-list-row');
    for (const key of ['maxSteps', 'web.allowPrivate', 'shell.sandbox.deniedDomains']) {
      await rows.filter({ hasText: key }).first().waitFor({ timeout: WAIT });
    }
    await rows.filter({ hasText: '["evil.example"]' }).first().waitFor({ timeout: WAIT });
    await page.locator('.quick-input-widget', { hasText: file }).first().waitFor({ timeout: WAIT });
    await shot(page, 'vscode-pinned-settings.png');
    await page.keyboard.press('Escape');
  });
  await step('Pinned settings: without a managed file nothing is pinned and the item is gone', async () => {
    fs.rmSync(file);
    await palette(page, 'Karyi: Restart Server');
    await item.waitFor({ state: 'detached', timeout: WAIT });
    await idle.waitFor({ timeout: WAIT });
  });
}
