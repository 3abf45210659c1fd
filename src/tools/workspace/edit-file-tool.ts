import type { FileHandle } from 'node:fs/promises';
import { z } from 'zod';
import { defineTool, type Tool } from '../define-tool';
import { openInWorkspace } from './open-in-workspace';
import { readTextThrough } from './read-text-file';
import { replaceContent } from './write-file-tool';
import type { WorkspaceSettings } from './workspace-settings';

const editFileInput = z.object({
  path: z.string().min(1).describe('File to edit, relative to the workspace.'),
  oldText: z.string().min(1).describe('Exact text to replace, including whitespace; must occur exactly once.'),
  newText: z.string().describe('Text to put in its place.'),
});

/** `editFile`: replaces one exact occurrence of a text in a file. It needs approval. */
export function createEditFileTool(settings: WorkspaceSettings): Tool {
  return defineTool({
    name: 'editFile',
    // Safe to repeat if a worker dies mid-call.
    idempotent: true,
    description:
      'Replace one exact occurrence of oldText with newText in a workspace file. oldText must match the file ' +
      'exactly (whitespace included) and occur exactly once: include surrounding lines to make it unique. ' +
      'Returns a confirmation; to rewrite a whole file, use writeFile.',
    inputSchema: editFileInput,
    needsApproval: true,
    execute: async (input) => {
      // One descriptor for the read and the write, so the edit lands in the very file that was read.
      const { handle, shownPath } = await openInWorkspace(settings.root, input.path, 'edit');
      try {
        return await applyEdit(handle, shownPath, input.oldText, input.newText);
      } finally {
        await handle.close();
      }
    },
  });
}

/** Replaces the one occurrence of oldText, or says why it cannot, with the file read and written through `handle`. */
async function applyEdit(handle: FileHandle, shownPath: string, oldText: string, newText: string): Promise<string> {
  const current = await readTextThrough(handle, shownPath);
  const found = countOccurrences(current, oldText);
  if (found === 1) {
    const index = current.indexOf(oldText);
    const edited = current.slice(0, index) + newText + current.slice(index + oldText.length);
    await replaceContent(handle, shownPath, edited);
    return `Edited ${shownPath}: replaced 1 occurrence (${Buffer.byteLength(edited, 'utf8')} bytes now).`;
  }
  if (found === 0 && isAlreadyApplied(current, oldText, newText)) {
    return `Edit already applied to ${shownPath}: newText is there once and oldText is gone; file unchanged.`;
  }
  if (found === 0) {
    throw new Error(
      `oldText was not found in "${shownPath}" (0 occurrences); read the file with readFile and copy the text ` +
        'exactly, including whitespace and indentation.',
    );
  }
  throw new Error(
    `oldText occurs ${found} times in "${shownPath}"; it must occur exactly once, so include more surrounding ` +
      'lines in oldText to make it unique.',
  );
}

/**
 * Whether the file is what this very edit produces. The activity running a tool may be retried after the edit was
 * written (a worker crash, a lost completion), and the retry then finds no oldText: reporting failure would tell
 * the model its edit did not happen when it did. So when newText occurs exactly once and putting oldText back in
 * its place gives a file in which the edit applies cleanly and yields the current file, the edit counts as done.
 *
 * Two retries cannot be recognised and fail or apply again: a deletion (empty newText) leaves nothing to find, and
 * when newText contains oldText a retry finds oldText again, which looks like a new edit.
 */
function isAlreadyApplied(current: string, oldText: string, newText: string): boolean {
  if (newText === '' || countOccurrences(current, newText) !== 1) return false;
  const index = current.indexOf(newText);
  const original = current.slice(0, index) + oldText + current.slice(index + newText.length);
  if (countOccurrences(original, oldText) !== 1) return false;
  const originalIndex = original.indexOf(oldText);
  return original.slice(0, originalIndex) + newText + original.slice(originalIndex + oldText.length) === current;
}

/** Non-overlapping occurrences, as a replace would see them. */
function countOccurrences(text: string, search: string): number {
  let count = 0;
  for (let index = text.indexOf(search); index !== -1; index = text.indexOf(search, index + search.length)) count++;
  return count;
}
