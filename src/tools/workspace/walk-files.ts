import { constants } from 'node:fs';
import fs, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { folderPathOf } from './open-in-workspace';

/** Folders a search never enters: they are large, generated, and rarely what the model is looking for. */
const skippedFolders = new Set(['node_modules', '.git']);

const subfolderFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/**
 * Yields the regular files under an open folder, as `/`-separated paths relative to it, in sorted order.
 *
 * Symbolic links are not followed, neither to files nor to folders: a link can point outside the workspace, and
 * folder links can loop. Subfolders are opened by descriptor with `O_NOFOLLOW` inside their parent, so a folder
 * swapped for a link while the walk runs is skipped, not entered. `node_modules` and `.git` are skipped.
 *
 * @param folder an open folder, from `openInWorkspace(root, path, 'folder')`; the caller closes it.
 * @param folderPath its path, used only where `/proc/self/fd` is missing.
 */
export async function* walkFiles(folder: FileHandle, folderPath: string, prefix = ''): AsyncGenerator<string> {
  const listed = folderPathOf(folder, folderPath);
  let entries;
  try {
    entries = await fs.readdir(listed, { withFileTypes: true });
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
      let subfolder: FileHandle;
      try {
        subfolder = await fs.open(path.join(listed, entry.name), subfolderFlags);
      } catch {
        continue;
      }
      try {
        yield* walkFiles(subfolder, path.join(folderPath, entry.name), relative);
      } finally {
        await subfolder.close();
      }
    } else if (entry.isFile()) {
      yield relative;
    }
  }
}
