import { NativeConnection } from '@temporalio/worker';
import path from 'node:path';
import { temporalSdkCopies } from './temporal-sdk-copies';

/**
 * Stops a worker before it starts when two copies of the Temporal SDK are loaded (a linked or nested install of
 * Tollgate beside the application's own `@temporalio/*`), which otherwise crashes in native code with no hint. The
 * `@temporalio/*` packages are Tollgate's peer dependencies: the application installs one copy and Tollgate uses it.
 */
export function refuseSecondTemporalSdk(
  connection: unknown,
  loadedFiles: Iterable<string> = loadedModuleFiles(),
): void {
  const ours = packageFolderOf('@temporalio/worker');
  if (!(connection instanceof NativeConnection)) {
    throw new TypeError(
      `The worker's connection was made by another copy of @temporalio/worker than the one Tollgate loads (${ours}). ` +
        'Install one copy of the Temporal SDK: the @temporalio/* packages are peer dependencies of tollgate, so remove ' +
        "tollgate's own (a linked or nested install) or run `npm dedupe`, and create the NativeConnection with it.",
    );
  }
  const copies = temporalSdkCopies(loadedFiles);
  const [name, folders] = Object.entries(copies)[0] ?? [];
  if (name && folders) {
    throw new TypeError(
      `Two copies of ${name} are loaded (${folders.join(' and ')}); a Temporal worker needs exactly one. ` +
        'The @temporalio/* packages are peer dependencies of tollgate: install them once, in the application, ' +
        '(`npm ls @temporalio/worker` shows where each copy comes from; `npm dedupe` or removing the nested copy fixes it).',
    );
  }
}

function loadedModuleFiles(): string[] {
  // Under a bundler or a test runner with its own module registry there is no require.cache to read.
  return typeof require === 'function' && require.cache ? Object.keys(require.cache) : [];
}

function packageFolderOf(name: string): string {
  try {
    return path.dirname(require.resolve(`${name}/package.json`));
  } catch {
    return name;
  }
}
