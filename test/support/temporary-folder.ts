import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// Folders made for one test file, removed once the file's tests are done (before the file's own `afterAll` hooks, which
// come later: not for folders a server the file stops there still writes to). Jest gives every test file its own
// instance of this module, and so its own hook.
const made: string[] = [];
afterAll(() => {
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/**
 * A new folder in `parent` (the system's temporary folder unless given) named `prefix` and random letters, removed
 * after the test file.
 */
export function temporaryFolder(prefix: string, parent = os.tmpdir()): string {
  const folder = mkdtempSync(path.join(parent, prefix));
  made.push(folder);
  return folder;
}
