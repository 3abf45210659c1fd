import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { compiledSource } from './compiled-sources';
import type { TestEnvironment } from './test-environment';

const execFileAsync = promisify(execFile);
/**
 * The `tollgate` command of this checkout, compiled (test/support/compiled-sources.ts): what `bin/tollgate.js` runs
 * from an installed package. test/cli/cli-restart.test.ts runs `bin/tollgate.js` itself.
 */
export function cliPath(): string {
  return compiledSource('src/cli/main.ts');
}

/** What one run of the `tollgate` command printed, and its exit code. */
export interface CliRun {
  stdout: string;
  stderr: string;
  code: number;
}

/**
 * The environment of a `tollgate` command run against `environment`'s task queue, as a CLI on the PATH, with a state
 * folder of its own (`state`, under the system's temporary folder) and no gateway unless `overrides` name one.
 */
export function cliEnvironment(
  environment: TestEnvironment,
  state: string,
  overrides: Record<string, string> = {},
): NodeJS.ProcessEnv {
  return {
    ...process.env,
    TEMPORAL_ADDRESS: environment.address,
    TOLLGATE_TASK_QUEUE: environment.taskQueue,
    // Not the repository's own .tollgate, where a running `npm run dev` leaves its gateway for the CLI.
    TOLLGATE_STATE_DIR: path.join(os.tmpdir(), state),
    TOLLGATE_GATEWAY_URL: '',
    // As a CLI on the PATH (jest under npx would pass on `exec`, and hints would say `npx tollgate`).
    npm_command: '',
    ...overrides,
  };
}

/** Runs the `tollgate` command with `args` in `env`; a failing command resolves with its output and exit code. */
export async function runCli(env: NodeJS.ProcessEnv, ...args: string[]): Promise<CliRun> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [cliPath(), ...args], { env });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const failed = error as { stdout: string; stderr: string; code: number };
    return { stdout: failed.stdout, stderr: failed.stderr, code: failed.code };
  }
}
