import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** What a workflow bundle is built from, as far as a start can tell without building it. */
export interface WorkflowCodeSources {
  /** The folder the workflows live in, with everything beside them (src/ in a checkout, dist/ when installed). */
  codeRoot: string;
  /** The project's lockfile, which pins every package the bundle takes in; absent when there is none. */
  lockFile?: string;
  /** The Temporal workflow SDK's version, which the bundle carries. */
  sdkVersion: string;
}

/**
 * A name for one version of the workflow code: the same while no file under the code root, no locked package and
 * not the SDK changed, different as soon as one did. Deliberately wider than what webpack takes in (every file under
 * the root, not only those the workflows import): a bundle kept too long would run old workflow code, one rebuilt
 * too often costs only seconds.
 */
export function workflowCodeKey(sources: WorkflowCodeSources): string {
  const hash = createHash('sha256');
  hash.update(`sdk ${sources.sdkVersion}\n`);
  for (const file of filesUnder(sources.codeRoot)) {
    hash.update(`file ${path.relative(sources.codeRoot, file)}\n`);
    hash.update(readFileSync(file));
  }
  if (sources.lockFile && existsSync(sources.lockFile)) {
    hash.update('lock\n');
    hash.update(readFileSync(sources.lockFile));
  }
  return hash.digest('hex').slice(0, 32);
}

/** Every file under `folder`, in a stable order. */
function filesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}
