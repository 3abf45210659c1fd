import type { FileHandle } from 'node:fs/promises';
import { describeFileError } from './describe-file-error';
import { openInWorkspace } from './open-in-workspace';

export { describeFileError } from './describe-file-error';

/** Bytes looked at to decide whether a file is binary, as `git` and `grep` do. */
const binarySniffBytes = 8000;

/** Whether file contents look binary: a NUL byte near the start, which text encodings other than UTF-16 never have. */
export function looksBinary(contents: Buffer): boolean {
  return contents.subarray(0, binarySniffBytes).includes(0);
}

/** A text file of the workspace as a tool read it. */
export interface WorkspaceText {
  /** The contents. */
  text: string;
  /** The path as the model should see it. */
  shownPath: string;
}

/**
 * Reads a text file of the workspace for a tool, confined by `openInWorkspace`, with errors the model can act on:
 * a path outside, a missing file, a folder, or a binary file.
 */
export async function readWorkspaceText(root: string, requested: string): Promise<WorkspaceText> {
  const { handle, shownPath } = await openInWorkspace(root, requested, 'read');
  try {
    return { text: await readTextThrough(handle, shownPath), shownPath };
  } finally {
    await handle.close();
  }
}

/** Reads a whole text file through an open descriptor, refusing binary content. */
export async function readTextThrough(handle: FileHandle, shownPath: string): Promise<string> {
  let contents: Buffer;
  try {
    contents = await handle.readFile();
  } catch (error) {
    throw new Error(describeFileError(error, shownPath));
  }
  if (looksBinary(contents)) {
    throw new Error(`File "${shownPath}" is binary, not text; this tool only reads text files.`);
  }
  return contents.toString('utf8');
}
