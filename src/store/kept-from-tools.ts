import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { ContentStore } from './content-store';

/**
 * Throws when a place that holds what tools must not read or write (the content store's folder, the audit file, the
 * used email links, the access file; `places`, keyed by the setting that names each) is inside the tools' workspace,
 * or holds it. `readFile`, `listDir`, `glob` and `grep` ask nobody: a store inside the workspace hands every token
 * that may start a turn other people's stored outputs and the audit's records; a store above it lets approved writes
 * plant content where the store reads. Paths are compared after resolving them, links included where they exist, so
 * `workspace/../workspace/store` is caught too. `what` says, for the message, whose files these are.
 *
 * @throws TypeError naming the setting, both paths and the fix.
 *
 * @example
 * checkKeptFromTools('/srv/repo', { TOLLGATE_STORE_DIR: '/srv/repo/.tollgate/store' }, "the worker's content store");
 * // throws: TOLLGATE_STORE_DIR (/srv/repo/.tollgate/store) is inside the tools' workspace (/srv/repo); ...
 */
export function checkKeptFromTools(workspace: string, places: Record<string, string | undefined>, what: string): void {
  const root = realPath(path.resolve(workspace));
  for (const [name, place] of Object.entries(places)) {
    if (!place) continue;
    const resolved = realPath(path.resolve(place));
    const where = isWithin(resolved, root) ? 'is inside' : isWithin(root, resolved) ? 'holds' : undefined;
    if (where === undefined) continue;
    throw new TypeError(
      `${name} (${place}) ${where} the tools' workspace (${root}); keep ${what} where tools cannot reach: ` +
        'readFile, listDir, glob and grep read the workspace without asking anyone, and approved writes change it. ' +
        "Move one of them: the workspace (TOLLGATE_WORKSPACE; in code, createWorkspaceTools' root and createGateway's " +
        'workspace), or the place named here.',
    );
  }
}

/**
 * The folder a content store keeps its files in (a folder store's `folder`), or undefined for a store elsewhere (S3):
 * what {@link checkKeptFromTools} compares with the tools' workspace.
 */
export function folderOfStore(store: ContentStore): string | undefined {
  const folder = (store as { folder?: unknown }).folder;
  return typeof folder === 'string' ? folder : undefined;
}

function isWithin(inner: string, outer: string): boolean {
  const relative = path.relative(outer, inner);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

// The real path of the longest existing ancestor, joined with the rest: places not created yet still compare.
function realPath(absolute: string): string {
  let existing = absolute;
  const rest: string[] = [];
  while (!existsSync(existing)) {
    const parent = path.dirname(existing);
    if (parent === existing) return absolute;
    rest.unshift(path.basename(existing));
    existing = parent;
  }
  return path.join(realpathSync(existing), ...rest);
}
