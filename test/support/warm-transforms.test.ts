import { createScriptTransformer } from '@jest/transform';
import { readConfigs } from 'jest-config';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { transformOptions, warmTransformsInThread } from './warm-transforms';

// The global set-up's pass over Jest's transform cache (warm-transforms.js): what it writes must be what a Jest worker
// looks for, or the pass only costs time. Not a unit test: it loads TypeScript and istanbul, several seconds.
const repository = path.resolve(__dirname, '../..');
const folder = path.join(repository, 'src/policy');

/** The transformed files in Jest's cache: named `<module>_<key>` (folders and source maps left out). */
function cacheFiles(cacheDirectory: string): string[] {
  return readdirSync(cacheDirectory, { recursive: true, encoding: 'utf8' }).filter(
    (file) => /jest-transform-cache/.test(file) && !file.endsWith('.map') && /_[0-9a-f]{32}$/.test(file),
  );
}

describe('filling Jest’s transform cache ahead of the test files', () => {
  let cacheDirectory: string;
  beforeEach(() => {
    cacheDirectory = mkdtempSync(path.join(os.tmpdir(), 'tollgate-warm-transforms-'));
  });
  afterEach(() => rmSync(cacheDirectory, { recursive: true, force: true }));

  it('writes each module, instrumented, where a Jest worker finds it, so the worker transforms nothing', async () => {
    const { globalConfig, configs } = await readConfigs(
      { $0: 'jest', _: [], coverage: true, cacheDirectory } as Parameters<typeof readConfigs>[0],
      [repository],
    );
    // The integration tests' project: its global set-up warms the cache.
    const projectConfig = configs.find((config) => config.displayName?.name === 'integration')!;
    const modules = readdirSync(folder)
      .filter((name) => /\.ts$/.test(name) && !/\.(d|test)\.ts$/.test(name))
      .map((name) => path.join(folder, name));
    // In a thread of its own, as the global set-up runs it: nothing it keeps in memory reaches this test.
    const warmed = await warmTransformsInThread(globalConfig, projectConfig, modules);
    expect(warmed).toMatchObject({ count: modules.length, failed: [] });
    const written = cacheFiles(cacheDirectory);
    expect(written).toHaveLength(modules.length);

    // As a Jest worker does for a module it loads: found in the cache, nothing new written.
    const transformer = await createScriptTransformer(projectConfig);
    const file = path.join(folder, 'replay-policy.ts');
    const result = transformer.transform(file, transformOptions(globalConfig) as never, readFileSync(file, 'utf8'));
    expect(result.code).toContain('cov_');
    expect(cacheFiles(cacheDirectory).sort()).toEqual(written.sort());
  }, 60_000);
});
