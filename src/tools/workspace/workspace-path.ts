import fs from 'node:fs';
import path from 'node:path';

/** Symbolic links followed by hand before giving up, like the kernel's own limit. */
const maxLinkHops = 40;

/**
 * Resolves a path the model asked for against the workspace root and refuses it unless it stays inside.
 * It names the path and gives clear refusals; the file tools then reach the file through `openInWorkspace`,
 * which confines by descriptor, because a check of a path is out of date as soon as it returns.
 *
 * Relative paths are taken from the root; absolute paths are accepted only when they are inside it. Besides
 * the lexical check (`..`), the deepest part of the path that exists is resolved with `realpath`, so a symbolic
 * link inside the workspace that points outside is refused too, including a dangling link a write would create
 * its target through.
 *
 * @returns the absolute path to use, inside the root.
 * @throws Error with a message the model can act on when the path leaves the workspace.
 *
 * @example
 * workspacePath('/srv/workspace', 'src/index.ts'); // '/srv/workspace/src/index.ts'
 * workspacePath('/srv/workspace', '../etc/passwd'); // throws: Path "../etc/passwd" is outside the workspace ...
 */
export function workspacePath(root: string, requested: string): string {
  if (requested.includes('\0')) {
    throw new Error(`Path ${JSON.stringify(requested)} contains a NUL character; use a plain file path.`);
  }
  const lexicalRoot = path.resolve(root);
  const realRoot = realPathOf(lexicalRoot);
  const target = path.resolve(lexicalRoot, requested);
  // An absolute path may name the root by its real path (e.g. /private/tmp on macOS for /tmp).
  const lexicallyInside = isInside(lexicalRoot, target) || isInside(realRoot, target);
  if (!lexicallyInside || !isInside(realRoot, realPathOf(target))) {
    throw new Error(`Path "${requested}" is outside the workspace (${lexicalRoot}); use a path inside it.`);
  }
  return target;
}

/** How the tools show a path to the model: relative to the root, with `/`, `.` for the root itself. */
export function workspaceRelativePath(root: string, target: string): string {
  const relative = path.relative(path.resolve(root), target);
  return relative === '' ? '.' : relative.split(path.sep).join('/');
}

function isInside(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith(`..${path.sep}`) && relative !== '..' && !path.isAbsolute(relative));
}

/**
 * The real path `target` has or would have once created: `realpath` of its deepest existing ancestor plus the
 * missing rest. A dangling symbolic link counts as existing and is followed by hand, because writing to it
 * would create its target wherever it points.
 */
function realPathOf(target: string, hops = 0): string {
  let existing = target;
  const missing: string[] = [];
  while (!entryExists(existing)) {
    const parent = path.dirname(existing);
    if (parent === existing) break;
    missing.unshift(path.basename(existing));
    existing = parent;
  }
  let real: string;
  try {
    real = fs.realpathSync(existing);
  } catch (error) {
    if (!fs.lstatSync(existing).isSymbolicLink()) throw error;
    if (hops >= maxLinkHops) {
      throw new Error(`Path "${target}" goes through too many symbolic links; use a path without a link loop.`);
    }
    real = realPathOf(path.resolve(path.dirname(existing), fs.readlinkSync(existing)), hops + 1);
  }
  return path.join(real, ...missing);
}

function entryExists(target: string): boolean {
  try {
    fs.lstatSync(target);
    return true;
  } catch {
    return false;
  }
}
