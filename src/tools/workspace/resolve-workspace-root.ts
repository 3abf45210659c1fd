import fs from 'node:fs';
import path from 'node:path';

/** Where the workspace is when no option says, relative to the current directory. */
export const defaultWorkspaceFolder = '.tollgate/workspace';

/**
 * Picks the workspace folder, creates it if missing and returns its real absolute path.
 * The folder is `root` if given, else `.tollgate/workspace` under the current directory (`npm run worker` gives
 * `TOLLGATE_WORKSPACE`).
 *
 * @example
 * const root = resolveWorkspaceRoot(); // e.g. '/home/me/project/.tollgate/workspace'
 */
export function resolveWorkspaceRoot(root?: string): string {
  const chosen = root || defaultWorkspaceFolder;
  const absolute = path.resolve(chosen);
  if (fs.existsSync(absolute) && !fs.statSync(absolute).isDirectory()) {
    throw new Error(
      `Workspace root "${absolute}" is not a folder; name a folder (TOLLGATE_WORKSPACE or the root option).`,
    );
  }
  fs.mkdirSync(absolute, { recursive: true });
  // The real path, so that confinement checks and the paths shown to the model agree even when the root is a link.
  return fs.realpathSync(absolute);
}
