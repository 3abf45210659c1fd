import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// Folders made for one test file, removed once the file's tests are done, so that `npm test` leaves nothing in the
// system's temporary folder. Jest gives every test file its own instance of this module, and so its own hook.
const made: string[] = [];
afterAll(() => {
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A new folder under the system's temporary folder (`prefix` and random letters), removed after the test file. */
export function temporaryFolder(prefix: string): string {
  const folder = mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(folder);
  return folder;
}
