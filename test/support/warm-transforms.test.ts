import { createScriptTransformer } from '@jest/transform';
import { readConfig } from 'jest-config';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

// The global set-up's pass over Jest's transform cache (warm-transforms.js): what it writes must be what a Jest worker
// looks for, or the pass only costs time. Not a unit test: it loads TypeScript and istanbul, several seconds.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { transformOptions } = require('./warm-transforms') as {
  transformOptions(globalConfig: object): Record<string, unknown>;
};

const repository = path.resolve(__dirname, '../..');
const folder = path.join(repository, 'src/policy');

function cacheFiles(cacheDirectory: string): string[] {
  const visit = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const file = path.join(dir, name);
      return statSync(file).isDirectory() ? visit(file) : [file];
    });
  return visit(cacheDirectory).filter((file) => !file.endsWith('.map') && /jest-transform-cache/.test(file));
}

/** Runs the pass in a thread of its own, as the global set-up does: nothing it keeps in memory reaches this test. */
async function warmInThread(globalConfig: object, projectConfig: object) {
  const worker = new Worker(require.resolve('./warm-transforms.js'), {
    workerData: { warmTransforms: { globalConfig, projectConfig, folders: [folder] } },
  });
  try {
    return await new Promise<{ count: number; failed: string[]; error?: string }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  } finally {
    await worker.terminate();
  }
}

describe('filling Jest’s transform cache ahead of the test files', () => {
  let cacheDirectory: string;
  beforeEach(() => {
    cacheDirectory = mkdtempSync(path.join(os.tmpdir(), 'tollgate-warm-transforms-'));
  });
  afterEach(() => rmSync(cacheDirectory, { recursive: true, force: true }));

  it('writes each module, instrumented, where a Jest worker finds it, so the worker transforms nothing', async () => {
    const { globalConfig, projectConfig } = await readConfig(
      { $0: 'jest', _: [], coverage: true, cacheDirectory } as Parameters<typeof readConfig>[0],
      repository,
    );
    const warmed = await warmInThread(globalConfig, projectConfig);
    const modules = readdirSync(folder).filter((name) => /\.ts$/.test(name) && !/\.(d|test)\.ts$/.test(name));
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
