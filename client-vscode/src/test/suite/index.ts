/** Runs the mocha suites inside the real extension host (code-server's `extensionTestsPath`). */
import * as fs from 'node:fs';
import * as path from 'node:path';

export async function run(): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const m = require('mocha');
  const Mocha = m.default || m.Mocha || m;
  const mocha = new Mocha({ ui: 'bdd', timeout: 60_000, color: false, reporter: 'spec' });
  for (const f of fs.readdirSync(__dirname).sort()) if (f.endsWith('.test.js')) mocha.addFile(path.join(__dirname, f));
  await new Promise<void>((resolve, reject) => {
    mocha.run((failures: number) => (failures ? reject(new Error(`${failures} extension-host test(s) failed`)) : resolve()));
  });
}
