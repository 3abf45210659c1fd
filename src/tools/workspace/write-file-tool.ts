import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineTool, type Tool } from '../define-tool';
import { describeFileError } from './read-text-file';
import type { WorkspaceSettings } from './workspace-settings';
import { workspacePath, workspaceRelativePath } from './workspace-path';

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
      const target = workspacePath(settings.root, input.path);
      const shownPath = workspaceRelativePath(settings.root, target);
      await writeWorkspaceFile(target, shownPath, input.content);
      return `Wrote ${Buffer.byteLength(input.content, 'utf8')} bytes to ${shownPath}.`;
    },
  });
}

/** Writes a file, creating its folders, with errors the model can act on. */
export async function writeWorkspaceFile(target: string, shownPath: string, content: string): Promise<void> {
  try {
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.writeFile(target, content, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR') {
      throw new Error(`Cannot write "${shownPath}": a file is in the way of a folder on its path; use another path.`);
    }
    throw new Error(describeFileError(error, shownPath));
  }
}
