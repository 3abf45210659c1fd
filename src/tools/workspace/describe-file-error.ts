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
    case 'ENAMETOOLONG':
      return `The path "${shownPath.slice(0, 200)}…" is too long; use a shorter path.`;
    default:
      return `Could not access "${shownPath}": ${error instanceof Error ? error.message : String(error)}.`;
  }
}
