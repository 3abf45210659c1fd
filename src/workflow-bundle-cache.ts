import { bundleWorkflowCode } from '@temporalio/worker';
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { tollgateWorkflowBundleOptions } from './workflow-bundle-options';
import { workflowCodeKey } from './workflow-code-key';

/**
 * The workflow bundle `npm run dev` and `npm run worker` run: built once per version of the workflow code and kept in
 * the state folder, so that a restart with unchanged code (the README's restart step, a crash, a worker redeployed
 * with the same code) starts without bundling again, which takes most of a start's CPU (8-10 s). Any change to the
 * code, the lockfile or the SDK builds a new one; the old ones are removed. Where the state folder cannot be written
 * (a read-only image), the start says so and runs the bundle from memory.
 *
 * `build` makes the bundle's code (tests pass their own; by default the Temporal bundler with Tollgate's options).
 */
export async function cachedWorkflowBundle(
  stateFolder: string,
  log: (line: string) => void,
  build: () => Promise<string> = bundleTollgateWorkflows,
): Promise<{ codePath: string } | { code: string }> {
  const options = tollgateWorkflowBundleOptions();
  const key = workflowCodeKey({
    codeRoot: path.dirname(path.dirname(options.workflowsPath)),
    lockFile: path.resolve('package-lock.json'),
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    sdkVersion: (require('@temporalio/workflow/package.json') as { version: string }).version,
  });
  const folder = path.join(stateFolder, 'workflow-bundles');
  const codePath = path.join(folder, `${key}.js`);
  if (existsSync(codePath)) {
    log(`Workflow code unchanged: using the bundle in ${codePath}.`);
    return { codePath };
  }
  log('Bundling the workflow code…');
  const code = await build();
  try {
    keepBundle(folder, codePath, code);
    return { codePath };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    log(`The workflow bundle is not kept (${reason}): this start runs it from memory, and the next one bundles again.`);
    return { code };
  }
}

/** Writes the bundle under its key and removes the older ones. */
function keepBundle(folder: string, codePath: string, code: string): void {
  mkdirSync(folder, { recursive: true });
  // Written aside and renamed, so that a start that dies half-way never leaves a torn bundle under the key's name.
  const partial = `${codePath}.${process.pid}.partial`;
  writeFileSync(partial, code);
  renameSync(partial, codePath);
  for (const name of readdirSync(folder)) {
    if (name !== path.basename(codePath)) rmSync(path.join(folder, name), { force: true });
  }
}

async function bundleTollgateWorkflows(): Promise<string> {
  const { code } = await bundleWorkflowCode({ ...tollgateWorkflowBundleOptions(), logger: quietBundlerLogger });
  return code;
}

/** The bundler's own progress lines are noise in the dev terminal; its warnings and errors are not. */
export const quietBundlerLogger = {
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string) => console.warn(message),
  error: (message: string) => console.error(message),
  log: () => undefined,
};
