import { bundleWorkflowCode } from '@temporalio/worker';
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { tollgateWorkflowBundleOptions } from '../workflow-bundle-options';
import { workflowCodeKey } from './workflow-code-key';

/**
 * The workflow bundle `npm run dev` runs: built once per version of the workflow code and kept in the state folder,
 * so that a restart with unchanged code (the README's restart step, a crash) starts its worker without bundling
 * again, which takes most of the start's CPU. Any change to the code, the lockfile or the SDK builds a new one; the
 * old ones are removed.
 */
export async function cachedWorkflowBundle(
  stateFolder: string,
  log: (line: string) => void,
): Promise<{ codePath: string }> {
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
  const { code } = await bundleWorkflowCode({ ...options, logger: quietBundlerLogger });
  mkdirSync(folder, { recursive: true });
  // Written aside and renamed, so that a start that dies half-way never leaves a torn bundle under the key's name.
  const partial = `${codePath}.${process.pid}.partial`;
  writeFileSync(partial, code);
  renameSync(partial, codePath);
  for (const name of readdirSync(folder)) {
    if (name !== path.basename(codePath)) rmSync(path.join(folder, name), { force: true });
  }
  return { codePath };
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
