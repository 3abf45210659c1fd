import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

// The package as a user gets it: `npm pack` of this repository, installed into a fresh project outside it with
// registry dependencies only, and examples/embed built and run there against the test run's Temporal dev server.
// The tarball and the installed project are cached by what they are made of (in the system's temp folder), so a run
// whose sources did not change installs nothing.

const execFileAsync = promisify(execFile);
const repository = path.resolve(__dirname, '../..');
const example = path.join(repository, 'examples/embed');
const cache = path.join(os.tmpdir(), 'tollgate-consumer-test');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Runs a command; its output on failure, so a broken step says why. */
async function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }) {
  try {
    return await execFileAsync(command, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(' ')} failed:\n${failed.stdout ?? ''}\n${failed.stderr ?? failed.message}`);
  }
}

/** A digest of the files that go into the package (or the example project). */
function digestOf(files: string[]): string {
  const hash = createHash('sha256');
  for (const file of files.sort()) hash.update(path.relative(repository, file)).update('\0').update(readFileSync(file));
  return hash.digest('hex').slice(0, 16);
}

function filesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const file = path.join(folder, name);
    return statSync(file).isDirectory() ? filesUnder(file) : [file];
  });
}

/** The packed tarball, built by `npm pack` (its prepack builds dist/) unless one of the same sources is cached. */
async function packedTarball(): Promise<string> {
  const sources = [
    ...filesUnder(path.join(repository, 'src')),
    ...filesUnder(path.join(repository, 'bin')),
    path.join(repository, 'scripts/build.mjs'),
    ...['package.json', 'tsconfig.json', 'tsconfig.build.json', 'README.md', 'LICENSE', 'CHANGELOG.md'].map((name) =>
      path.join(repository, name),
    ),
  ];
  const folder = path.join(cache, `package-${digestOf(sources)}`);
  const tarball = path.join(folder, 'tollgate-0.1.0.tgz');
  if (existsSync(tarball)) return tarball;
  const building = `${folder}.${process.pid}`;
  mkdirSync(building, { recursive: true });
  // The build emits without checking types: `npm run checks` (beside the suite in .ci/run) type-checks the same
  // sources, and every other build still does (scripts/build.mjs).
  await run(npm, ['pack', '--pack-destination', building], {
    cwd: repository,
    env: { TOLLGATE_BUILD_WITHOUT_TYPE_CHECK: '1' },
  });
  rmSync(folder, { recursive: true, force: true });
  renameSync(building, folder);
  return tarball;
}

/** A fresh project holding examples/embed, with the tarball and the example's registry dependencies installed. */
async function installedProject(tarball: string): Promise<string> {
  const project = path.join(cache, `project-${digestOf([tarball, ...filesUnder(example)])}`);
  if (existsSync(path.join(project, 'node_modules/tollgate/package.json'))) return project;
  const building = `${project}.${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  cpSync(example, building, { recursive: true, filter: (source) => !/[/\\](node_modules|dist)$/.test(source) });
  const manifest = JSON.parse(readFileSync(path.join(building, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  manifest.dependencies.tollgate = `file:${tarball}`;
  writeFileSync(path.join(building, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  await run(npm, ['install', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: building });
  rmSync(project, { recursive: true, force: true });
  renameSync(building, project);
  return project;
}

describe('the package, from a fresh project outside the repository', () => {
  let tarball: string;
  let project: string;

  beforeAll(async () => {
    tarball = await packedTarball();
    project = await installedProject(tarball);
  }, 600_000);

  it('ships compiled code with declarations, the CLI and its papers, and no sources, tests or TypeScript runner', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball], { cwd: cache });
    const files = stdout.split('\n').filter(Boolean);
    for (const file of [
      'package/dist/index.js',
      'package/dist/index.d.ts',
      'package/dist/index.js.map',
      'package/dist/workflows/index.js',
      'package/dist/testing/index.d.ts',
      'package/dist/cli/main.js',
      // The bash tool's network sandbox finds these beside its compiled code (package.json's build copies them).
      'package/dist/tools/workspace/outbound-network.sh',
      'package/dist/tools/workspace/sandbox-resolv.conf',
      'package/bin/tollgate.js',
      'package/README.md',
      'package/LICENSE',
      'package/CHANGELOG.md',
    ])
      expect(files).toContain(file);
    expect(files.filter((file) => /^package\/(src|test|bench|examples|docs)\//.test(file))).toEqual([]);
    expect(files.filter((file) => /\.ts$/.test(file) && !file.endsWith('.d.ts'))).toEqual([]);
    expect(existsSync(path.join(project, 'node_modules/tsx'))).toBe(false);
    // One copy of the Temporal SDK: the application's, which tollgate uses as a peer.
    expect(existsSync(path.join(project, 'node_modules/tollgate/node_modules/@temporalio'))).toBe(false);
  });

  it('passes publint and attw: types resolve for CommonJS and ESM under node16 and bundler resolution', async () => {
    await run(
      process.execPath,
      [path.join(repository, 'node_modules/publint/src/cli.js'), 'run', tarball, '--strict'],
      { cwd: repository },
    );
    const { stdout } = await run(
      process.execPath,
      [path.join(repository, 'node_modules/@arethetypeswrong/cli/dist/index.js'), tarball, '--format', 'json'],
      { cwd: repository },
    );
    const report = JSON.parse(stdout) as { analysis: { problems: unknown[] } };
    expect(report.analysis.problems).toEqual([]);
  });

  it('runs the tollgate command from the compiled code', async () => {
    const { stdout } = await run(path.join(project, 'node_modules/.bin/tollgate'), ['--help'], { cwd: project });
    expect(stdout).toMatch(/^Usage: (npx )?tollgate <command>/);
  });

  it('gives an ES module application every name by import, as a CommonJS one gets it by require', async () => {
    // Node finds a CommonJS package's names for `import { … }` by reading its code; a name it cannot see there is a
    // SyntaxError in the application, whatever the types say.
    const check = path.join(project, 'entry-points.mjs');
    writeFileSync(
      check,
      [
        "import { createRequire } from 'node:module';",
        'const require = createRequire(import.meta.url);',
        'const names = {};',
        "for (const entry of ['tollgate', 'tollgate/workflows', 'tollgate/testing']) {",
        '  const imported = Object.keys(await import(entry)).filter((name) => name !== "default" && name !== "__esModule").sort();',
        '  names[entry] = { imported, required: Object.keys(require(entry)).sort() };',
        '}',
        'console.log(JSON.stringify(names));',
      ].join('\n'),
    );
    const { stdout } = await run(process.execPath, [check], { cwd: project });
    const names = JSON.parse(stdout) as Record<string, { imported: string[]; required: string[] }>;
    expect(Object.keys(names)).toEqual(['tollgate', 'tollgate/workflows', 'tollgate/testing']);
    for (const { imported, required } of Object.values(names)) {
      expect(required.length).toBeGreaterThan(0);
      expect(imported).toEqual(required);
    }
    expect(names.tollgate!.imported).toEqual(
      expect.arrayContaining(['createTollgateWorker', 'TollgateClient', 'createGateway']),
    );
  });

  it("type-checks the app, runs its worker and gateway, and reads the approved refund's result and the denial", async () => {
    await run(process.execPath, [path.join(project, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], {
      cwd: project,
    });
    const { stdout } = await run(process.execPath, ['dist/main.js'], {
      cwd: project,
      env: { TEMPORAL_ADDRESS: process.env.TOLLGATE_TEST_TEMPORAL_ADDRESS },
    });
    const lines = stdout.split('\n');
    expect(lines).toContain('waiting: refund A-1, refund B-2');
    expect(lines).toContain('result lookupOrder: {"type":"json","value":{"orderId":"A-1","total":250,"paid":true}}');
    expect(lines).toContain(
      'result refund: {"type":"json","value":{"orderId":"C-3","refunded":20,"status":"refunded"}}',
    );
    expect(lines).toContain(
      'result refund: {"type":"json","value":{"orderId":"A-1","refunded":250,"status":"refunded"}}',
    );
    expect(lines).toContain('result refund: {"type":"execution-denied","reason":"Above the refund limit"}');
    expect(lines).toContain('status: completed');
  }, 300_000);
});
