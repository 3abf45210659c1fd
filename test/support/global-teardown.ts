import { rmSync } from 'node:fs';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { tollgateTestServer?: { stop(): Promise<void> } }).tollgateTestServer?.stop();
  for (const bundle of [
    process.env.TOLLGATE_TEST_WORKFLOW_BUNDLE,
    process.env.TOLLGATE_TEST_WORKFLOW_BUNDLE_WITH_V1_TURNS,
  ]) {
    if (bundle) rmSync(bundle, { force: true });
  }
}
