import { rmSync } from 'node:fs';
import path from 'node:path';
import { countersOnlyRunVariable } from './fast-coverage-merge';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { tollgateTestServer?: { stop(): Promise<void> } }).tollgateTestServer?.stop();
  const bundle = process.env.TOLLGATE_TEST_WORKFLOW_BUNDLE;
  if (bundle) rmSync(bundle, { force: true });
  const devStackBundles = process.env.TOLLGATE_TEST_DEV_STACK_BUNDLES;
  if (devStackBundles) rmSync(devStackBundles, { recursive: true, force: true });
  const temporalCliBin = process.env.TOLLGATE_TEST_TEMPORAL_CLI_BIN;
  if (temporalCliBin) {
    rmSync(temporalCliBin, { recursive: true, force: true });
    const entries = (process.env.PATH ?? '').split(path.delimiter);
    process.env.PATH = entries.filter((entry) => entry !== temporalCliBin).join(path.delimiter);
  }
  const compiled = process.env.TOLLGATE_TEST_COMPILED_SOURCES;
  if (compiled) rmSync(compiled, { recursive: true, force: true });
  const coverageTemplates = process.env.TOLLGATE_TEST_WORKFLOW_COVERAGE_TEMPLATES;
  if (coverageTemplates) rmSync(coverageTemplates, { force: true });
  // A later run in this process (`--watch`) hands its records over whole unless its own set-up says otherwise.
  delete process.env[countersOnlyRunVariable];
}
