import { readdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkTemporalCli } from './verify-temporal-cli';

/** Where the SDK caches the CLI it downloads: its own default, so a binary another SDK user fetched is reused. */
export const defaultSdkDownloadDir = tmpdir();

/** Options for {@link downloadTemporalCliWithSdk}. */
export interface SdkDownloadOptions {
  /** Folder the SDK downloads into. Default: the system temp folder, as the SDK does. */
  downloadDir?: string;
  /** Give up after this long; offline, a stalled connection must not hold up the fallbacks. Default 30 s. */
  timeoutMs?: number;
  /** Receives progress lines. */
  log?: (line: string) => void;
}

// The SDK names its download `temporal-sdk-typescript-<sdk version>` (sdk-core ephemeral_server), `.exe` on Windows.
const downloadedName = /^temporal-sdk-typescript-[\w.-]+?(\.exe)?$/;

/** A working CLI that an earlier SDK download left in `downloadDir`, newest first; undefined if none. */
export async function findSdkDownloadedCli(
  downloadDir: string = defaultSdkDownloadDir,
): Promise<{ path: string; version: string } | undefined> {
  let names: string[];
  try {
    names = (await readdir(downloadDir)).filter((name) => downloadedName.test(name) && !name.endsWith('.downloading'));
  } catch {
    return undefined;
  }
  const files = await Promise.all(
    names.map(async (name) => {
      const path = join(downloadDir, name);
      return { path, modifiedAt: (await stat(path).catch(() => undefined))?.mtimeMs ?? 0 };
    }),
  );
  for (const { path } of files.sort((left, right) => right.modifiedAt - left.modifiedAt)) {
    const check = await checkTemporalCli(path);
    if (check.type === 'works') return { path, version: check.version };
  }
  return undefined;
}

/**
 * Has the Temporal SDK download the CLI (what `TestWorkflowEnvironment.createLocal` does without an executable) and
 * returns the path of the cached binary. The SDK only downloads as part of starting a server, so this starts one on a
 * free port and tears it down at once; the caller then runs the binary itself.
 *
 * @throws Error when the download fails or takes longer than `timeoutMs` (for example, offline).
 */
export async function downloadTemporalCliWithSdk(options: SdkDownloadOptions = {}): Promise<string> {
  const downloadDir = options.downloadDir ?? defaultSdkDownloadDir;
  const timeoutMs = options.timeoutMs ?? 30_000;
  options.log?.(
    `Asking the Temporal SDK to download the Temporal CLI into ${downloadDir} (gives up after ${timeoutMs / 1000}s)`,
  );
  // Loaded lazily: @temporalio/testing pulls in the native SDK runtime, which only this fallback needs.
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  const starting = TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'cached-download', downloadDir } },
  });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // The native download cannot be cancelled; if it finishes later, its server must not outlive us.
      starting.then((environment) => environment.teardown()).catch(() => undefined);
      reject(new Error(`The Temporal SDK did not download the Temporal CLI within ${timeoutMs / 1000}s.`));
    }, timeoutMs);
  });
  try {
    const environment = await Promise.race([starting, timedOut]);
    await environment.teardown();
  } finally {
    clearTimeout(timer);
  }
  const downloaded = await findSdkDownloadedCli(downloadDir);
  if (!downloaded) throw new Error(`The Temporal SDK started a server but left no working CLI in ${downloadDir}.`);
  options.log?.(`The Temporal SDK downloaded the Temporal CLI to ${downloaded.path}`);
  return downloaded.path;
}
