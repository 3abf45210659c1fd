import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cachedWorkflowBundle } from '../src/workflow-bundle-cache';

// The bundle `npm run dev` and `npm run worker` keep in their state folder. The code a build returns stands in for
// the Temporal bundler's output here (bundling itself is tested in workflow-bundle-options.test.ts); what is under test
// is when a start bundles, what it keeps, and what it does when it cannot keep it.
describe('the workflow bundle kept in the state folder', () => {
  let state: string;
  let lines: string[];
  let builds: number;
  const build = async () => {
    builds += 1;
    return `/* workflow bundle ${builds} */`;
  };
  const log = (line: string) => lines.push(line);

  beforeEach(() => {
    state = mkdtempSync(path.join(os.tmpdir(), 'tollgate-bundle-cache-'));
    lines = [];
    builds = 0;
  });
  afterEach(() => rmSync(state, { recursive: true, force: true }));

  it('bundles on the first start and keeps it; a restart with the same code runs the kept bundle', async () => {
    const first = await cachedWorkflowBundle(state, log, build);
    expect(first).toEqual({ codePath: expect.stringContaining(path.join(state, 'workflow-bundles')) });
    const { codePath } = first as { codePath: string };
    expect(readFileSync(codePath, 'utf8')).toBe('/* workflow bundle 1 */');
    expect(lines).toEqual(['Bundling the workflow code…']);

    lines = [];
    expect(await cachedWorkflowBundle(state, log, build)).toEqual({ codePath });
    expect(builds).toBe(1);
    expect(lines).toEqual([`Workflow code unchanged: using the bundle in ${codePath}.`]);
  });

  it('removes the bundles of older code and the leftovers of starts that died while writing', async () => {
    const folder = path.join(state, 'workflow-bundles');
    mkdirSync(folder);
    writeFileSync(path.join(folder, 'older-code.js'), '/* old */');
    writeFileSync(path.join(folder, 'older-code.js.4242.partial'), '/* torn */');
    const { codePath } = (await cachedWorkflowBundle(state, log, build)) as { codePath: string };
    expect(readdirSync(folder)).toEqual([path.basename(codePath)]);
  });

  it('runs the bundle from memory, saying why, when the state folder cannot be written', async () => {
    // A file where the folder should be: as unwritable as a read-only image's, also for root.
    const notAFolder = path.join(state, 'not-a-folder');
    writeFileSync(notAFolder, '');
    const result = await cachedWorkflowBundle(notAFolder, log, build);
    expect(result).toEqual({ code: '/* workflow bundle 1 */' });
    expect(lines[1]).toMatch(
      /^The workflow bundle is not kept \(.*ENOTDIR.*\): this start runs it from memory, and the next one bundles again\.$/,
    );
    expect(existsSync(path.join(notAFolder, 'workflow-bundles'))).toBe(false);
  });
});
