import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// The unit set cannot turn into integration tests that pass by luck (jest.config.js, project `unit`): a
// `*.unit.test.ts` that loads Temporal or the integration set-up fails with the reason, under `npm test` as under
// `npm run test:unit`. Jest runs here on probe files of a folder of their own (`--roots`), with the project's config.
const repository = path.resolve(__dirname, '../..');
const jestBin = path.join(repository, 'node_modules/jest/bin/jest.js');

/** The arguments an npm script passes to jest (package.json): `jest …`, or `node <node flags> <jest's bin> …`. */
function jestArguments(script: string): string[] {
  const scripts = (JSON.parse(readFileSync(path.join(repository, 'package.json'), 'utf8')) as PackageJson).scripts;
  const [command, ...args] = (scripts[script] ?? '').split(' ');
  if (command === 'jest') return args;
  const bin = args.findIndex((arg) => !arg.startsWith('--'));
  if (command === 'node' && args[bin] && path.resolve(repository, args[bin]) === jestBin) return args.slice(bin + 1);
  throw new Error(`npm run ${script} does not run jest: ${scripts[script]}`);
}

interface PackageJson {
  scripts: Record<string, string | undefined>;
}

interface JestRun {
  code: number;
  output: string;
}

/** Runs Jest on the probe folder; the repository's packages resolve from it as from a test file in the repository. */
function runJest(args: string[], folder: string): Promise<JestRun> {
  const options = ['--ci', '--roots', folder, '--modulePaths', path.join(repository, 'node_modules')];
  return new Promise((resolve) => {
    // Without colours, which a FORCE_COLOR in the environment would turn on: they change how Jest writes PASS and FAIL.
    const env = { ...process.env, FORCE_COLOR: '0' };
    execFile(process.execPath, [jestBin, ...options, ...args], { cwd: repository, env }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

/** Each test file's part of Jest's report (from its PASS or FAIL line to the next), by the file's name. */
function reportsByFile(output: string): Map<string, string> {
  const parts = output.split(/^(?=(?:PASS|FAIL) unit )/m).filter((part) => /^(PASS|FAIL) unit /.test(part));
  return new Map(parts.map((part) => [path.basename(part.slice(0, part.indexOf('\n')).trim()), part]));
}

describe('a unit test file', () => {
  let folder: string;
  beforeAll(() => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'tollgate-unit-guard-'));
    writeFileSync(
      path.join(folder, 'loads-worker.unit.test.ts'),
      "import { Worker } from '@temporalio/worker';\nit('has a worker', () => expect(Worker).toBeDefined());\n",
    );
    writeFileSync(
      path.join(folder, 'loads-environment.unit.test.ts'),
      `import { temporalAddress } from ${JSON.stringify(path.join(repository, 'test/support/test-environment'))};\n` +
        "it('has an address', () => expect(temporalAddress).toBeDefined());\n",
    );
    writeFileSync(path.join(folder, 'pure.unit.test.ts'), "it('adds', () => expect(1 + 1).toBe(2));\n");
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  const refusal =
    'A unit test (*.unit.test.ts) loaded a Temporal client, worker or test kit, or an integration test set-up';

  it.each([
    ['npm test', jestArguments('test')],
    ['npm run test:unit', jestArguments('test:unit')],
  ])('fails under `%s` when it loads Temporal or the integration set-up, and says why', async (_command, args) => {
    const run = await runJest(args, folder);
    expect(run.code).toBe(1);
    const files = reportsByFile(run.output);
    for (const name of ['loads-worker.unit.test.ts', 'loads-environment.unit.test.ts']) {
      expect(files.get(name)).toMatch(/^FAIL/);
      expect(files.get(name)).toContain(refusal);
    }
    expect(files.get('pure.unit.test.ts')).toMatch(/^PASS/);
  });
});
