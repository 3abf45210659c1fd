import fs from 'node:fs/promises';
import path from 'node:path';

/** Folders a search never enters: they are large, generated, and rarely what the model is looking for. */
const skippedFolders = new Set(['node_modules', '.git']);

/**
 * Yields the regular files under `folder`, as `/`-separated paths relative to it, in sorted order.
 *
 * Symbolic links are not followed, neither to files nor to folders: a link can point outside the workspace, and
 * folder links can loop. `node_modules` and `.git` are skipped.
 */
export async function* walkFiles(folder: string, prefix = ''): AsyncGenerator<string> {
  let entries;
  try {
    entries = await fs.readdir(folder, { withFileTypes: true });
  } catch (error) {
    // The folder the model asked for must be readable; an unreadable subfolder is skipped, like `find` would.
    if (prefix === '') throw error;
    return;
  }
  entries.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
  for (const entry of entries) {
    const relative = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) {
      if (skippedFolders.has(entry.name)) continue;
      yield* walkFiles(path.join(folder, entry.name), relative);
    } else if (entry.isFile()) {
      yield relative;
    }
  }
}
