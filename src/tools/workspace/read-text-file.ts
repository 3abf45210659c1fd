import fs from 'node:fs/promises';

/** Bytes looked at to decide whether a file is binary, as `git` and `grep` do. */
const binarySniffBytes = 8000;

/** Whether file contents look binary: a NUL byte near the start, which text encodings other than UTF-16 never have. */
export function looksBinary(contents: Buffer): boolean {
  return contents.subarray(0, binarySniffBytes).includes(0);
}

/**
 * Reads a text file for a tool, with errors the model can act on: a missing file, a folder, or a binary file.
 * `shownPath` is the path as the model should see it.
 */
export async function readTextFile(target: string, shownPath: string): Promise<string> {
  let contents: Buffer;
  try {
    contents = await fs.readFile(target);
  } catch (error) {
    throw new Error(describeFileError(error, shownPath));
  }
  if (looksBinary(contents)) {
    throw new Error(`File "${shownPath}" is binary, not text; this tool only reads text files.`);
  }
  return contents.toString('utf8');
}

/** A file system error as a sentence that says what was wrong with the path and what to do instead. */
export function describeFileError(error: unknown, shownPath: string): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return `Nothing exists at "${shownPath}"; use listDir or glob to find the right path.`;
    case 'EISDIR':
      return `"${shownPath}" is a folder, not a file; use listDir to see what it contains.`;
    case 'ENOTDIR':
      return `"${shownPath}" goes through something that is not a folder; use listDir to check the path.`;
    case 'EACCES':
    case 'EPERM':
      return `Permission denied for "${shownPath}"; use a file the agent may access.`;
    default:
      return `Could not access "${shownPath}": ${error instanceof Error ? error.message : String(error)}.`;
  }
}
