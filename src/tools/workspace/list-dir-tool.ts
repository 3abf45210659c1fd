import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineTool, type Tool } from '../define-tool';
import { joinLinesWithin } from './cap-text';
import { folderPathOf, openInWorkspace } from './open-in-workspace';
import type { WorkspaceSettings } from './workspace-settings';

const listDirInput = z.object({
  path: z.string().default('.').describe('Folder to list, relative to the workspace. Default: the workspace itself.'),
});

/** `listDir`: the entries of one folder in the workspace. */
export function createListDirTool(settings: WorkspaceSettings): Tool {
  return defineTool({
    name: 'listDir',
    // Safe to repeat if a worker dies mid-call.
    idempotent: true,
    description:
      'List the entries of a folder in the workspace, one per line, sorted; folders end with "/". ' +
      'Not recursive: use glob to find files at any depth.',
    inputSchema: listDirInput,
    needsApproval: false,
    execute: async (input) => {
      const { handle, target, shownPath } = await openInWorkspace(settings.root, input.path, 'folder');
      let names: string[];
      try {
        const listed = folderPathOf(handle, target);
        const entries = await fs.readdir(listed, { withFileTypes: true });
        names = await Promise.all(
          entries.map(async (entry) => ((await isFolder(entry, listed)) ? `${entry.name}/` : entry.name)),
        );
      } finally {
        await handle.close();
      }
      if (names.length === 0) return `[Folder "${shownPath}" is empty.]`;
      names.sort((left, right) => (left < right ? -1 : left > right ? 1 : 0));
      const listing = joinLinesWithin(names, settings.maxOutputBytes);
      if (listing.count === names.length) return listing.text;
      return (
        `${listing.text}\n[Listing capped at ${settings.maxOutputBytes} bytes: ${listing.count} of ${names.length} ` +
        'entries shown; use glob to narrow it down.]'
      );
    },
  });
}

/** A folder, or a link to one: shown with `/` so the model knows it can list it. */
async function isFolder(entry: { name: string; isDirectory(): boolean; isSymbolicLink(): boolean }, parent: string) {
  if (entry.isDirectory()) return true;
  if (!entry.isSymbolicLink()) return false;
  try {
    return (await fs.stat(path.join(parent, entry.name))).isDirectory();
  } catch {
    return false;
  }
}
