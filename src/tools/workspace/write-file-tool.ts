import type { FileHandle } from 'node:fs/promises';
import { z } from 'zod';
import { defineTool, type Tool } from '../define-tool';
import { describeFileError } from './describe-file-error';
import { openInWorkspace } from './open-in-workspace';
import type { WorkspaceSettings } from './workspace-settings';

const writeFileInput = z.object({
  path: z.string().min(1).describe('File to write, relative to the workspace. Missing folders are created.'),
  content: z.string().describe('The whole new content of the file.'),
});

/**
 * `writeFile`: creates or replaces a file. It needs approval. Writing the same content twice gives the same
 * file, so a retried activity does no harm.
 */
export function createWriteFileTool(settings: WorkspaceSettings): Tool {
  return defineTool({
    name: 'writeFile',
    // Safe to repeat if a worker dies mid-call.
    idempotent: true,
    description:
      'Create a file in the workspace, or replace its whole content, creating missing folders. ' +
      'Returns a confirmation with the number of bytes written. To change part of a file, use editFile.',
    inputSchema: writeFileInput,
    needsApproval: true,
    execute: async (input) => {
      const { handle, shownPath } = await openInWorkspace(settings.root, input.path, 'write');
      try {
        await replaceContent(handle, shownPath, input.content);
      } finally {
        await handle.close();
      }
      return `Wrote ${Buffer.byteLength(input.content, 'utf8')} bytes to ${shownPath}.`;
    },
  });
}

/**
 * Replaces a file's whole content through its descriptor, never through its path again: the file written is the one
 * `openInWorkspace` opened and checked.
 */
export async function replaceContent(handle: FileHandle, shownPath: string, content: string): Promise<void> {
  const bytes = Buffer.from(content, 'utf8');
  try {
    await handle.truncate(0);
    let written = 0;
    while (written < bytes.length) {
      written += (await handle.write(bytes, written, bytes.length - written, written)).bytesWritten;
    }
  } catch (error) {
    throw new Error(describeFileError(error, shownPath));
  }
}
