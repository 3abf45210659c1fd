import path from 'node:path';

// The packages whose second copy breaks a worker: each holds native or module-level state (the Rust core's runtime,
// the workflow sandbox's globals) that another copy cannot see. "there is no reactor running" is how it shows.
const statefulPackages = ['@temporalio/worker', '@temporalio/core-bridge', '@temporalio/workflow'];

/**
 * The folders of each Temporal SDK package that `loadedFiles` (e.g. `Object.keys(require.cache)`) were loaded from,
 * for the packages loaded from more than one folder.
 *
 * @example
 * temporalSdkCopies(['/app/node_modules/@temporalio/worker/lib/index.js',
 *   '/app/node_modules/tollgate/node_modules/@temporalio/worker/lib/index.js']);
 * // { '@temporalio/worker': ['/app/node_modules/@temporalio/worker', '/app/node_modules/tollgate/node_modules/@temporalio/worker'] }
 */
export function temporalSdkCopies(loadedFiles: Iterable<string>): Record<string, string[]> {
  const folders = new Map<string, Set<string>>();
  for (const file of loadedFiles) {
    const normalised = file.split(path.sep).join('/');
    for (const name of statefulPackages) {
      const at = normalised.lastIndexOf(`/node_modules/${name}/`);
      if (at < 0) continue;
      const folder = normalised.slice(0, at + `/node_modules/${name}`.length);
      folders.set(name, (folders.get(name) ?? new Set()).add(folder));
    }
  }
  return Object.fromEntries(
    [...folders].filter(([, found]) => found.size > 1).map(([name, found]) => [name, [...found]]),
  );
}
