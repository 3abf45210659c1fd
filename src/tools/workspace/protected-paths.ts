import fs from 'node:fs';
import path from 'node:path';

/**
 * Throws when a protected path (a file no tool may reach, e.g. the gateway's signing key) and a path the tools reach
 * (the workspace, HOME, a read-only mount; `reached`, keyed by what each is) contain one another. Links are resolved
 * first, so that a workspace reached through a link is compared where it really is.
 *
 * @throws Error naming both paths.
 *
 * @example
 * checkProtectedPathsApart(['/srv/.tollgate/gateway'], { workspace: ['/srv/.tollgate'] }); // throws
 */
export function checkProtectedPathsApart(protectedPaths: string[], reached: Record<string, string[]>): void {
  for (const secret of protectedPaths.map(realPathOf)) {
    for (const [what, entries] of Object.entries(reached)) {
      for (const entry of entries.map(realPathOf)) {
        if (isWithin(secret, entry) || isWithin(entry, secret)) {
          throw new Error(
            `Workspace tools: the ${what} ${entry} overlaps ${secret}, which no tool may reach; ` +
              `keep the ${what} and the gateway's files apart.`,
          );
        }
      }
    }
  }
}

function isWithin(inner: string, outer: string): boolean {
  const relative = path.relative(outer, inner);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** The real path of `entry`, or of its nearest existing parent joined with the rest. */
function realPathOf(entry: string): string {
  const resolved = path.resolve(entry);
  try {
    return fs.realpathSync(resolved);
  } catch {
    const parent = path.dirname(resolved);
    return parent === resolved ? resolved : path.join(realPathOf(parent), path.basename(resolved));
  }
}
