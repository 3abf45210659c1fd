import { spawn } from 'node:child_process';
import os from 'node:os';
import { BoundedOutput } from './bounded-output';

/** What a shell command produced. A non-zero exit code is a result, not an error. */
export interface CommandResult {
  /** The exit code; 128 + the signal number when a signal ended the command, as shells report it. */
  exitCode: number;
  /** Standard output, capped. */
  stdout: string;
  /** Standard error, capped. */
  stderr: string;
  /** Whether the command was killed for running past its timeout. */
  timedOut: boolean;
}

/** What `runCommand` needs. */
export interface RunCommandInput {
  /** The script passed to `bash -c`. */
  command: string;
  /** The folder it runs in. */
  cwd: string;
  /** The whole environment of the command: nothing of the worker's is passed on besides what is here. */
  environment: Record<string, string>;
  /** A program and its arguments that run `bash -c command` for us, such as a sandbox; none by default. */
  launcher?: string[];
  /** Milliseconds before the command's process group is killed. */
  timeoutMs: number;
  /** The most bytes kept of each of stdout and stderr. */
  maxOutputBytes: number;
  /** Kills the command's process group when aborted. */
  abortSignal: AbortSignal;
  /** Called every second while the command runs. */
  heartbeat: () => void;
}

const heartbeatIntervalMs = 1000;

/**
 * How long to wait for the output pipes to close once bash has exited. A command that starts a background process
 * (`server &`) leaves it holding the pipes; without this the call would wait for that process to end.
 */
const pipeGraceMs = 250;

/**
 * Runs `bash -c command` in its own process group, so that a timeout or an abort kills the command and everything
 * it started, not only bash. Output is collected within `maxOutputBytes` per stream. The command gets exactly
 * `environment`, never the worker's environment, which holds the secrets that guard approvals.
 *
 * @throws Error when bash cannot start, or when `abortSignal` is aborted (the group is killed first).
 */
export function runCommand(input: RunCommandInput): Promise<CommandResult> {
  if (input.abortSignal.aborted) {
    return Promise.reject(new Error('The command was cancelled before it started; it did not run.'));
  }
  return new Promise<CommandResult>((resolve, reject) => {
    const argv = [...(input.launcher ?? []), 'bash', '-c', input.command];
    const child = spawn(argv[0] as string, argv.slice(1), {
      cwd: input.cwd,
      env: input.environment,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stdout = new BoundedOutput(input.maxOutputBytes);
    const stderr = new BoundedOutput(input.maxOutputBytes);
    child.stdout.on('data', (chunk: Buffer) => stdout.append(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.append(chunk));

    let timedOut = false;
    let aborted = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let settled = false;

    const killGroup = () => {
      if (child.pid === undefined || exit !== undefined) return;
      try {
        // The negative pid addresses the whole group that `detached` made the child lead.
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const onAbort = () => {
      aborted = true;
      killGroup();
    };
    input.abortSignal.addEventListener('abort', onAbort, { once: true });
    const timeout = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, input.timeoutMs);
    const heartbeat = setInterval(() => input.heartbeat(), heartbeatIntervalMs);
    let graceTimer: NodeJS.Timeout | undefined;

    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timeout);
      clearInterval(heartbeat);
      clearTimeout(graceTimer);
      input.abortSignal.removeEventListener('abort', onAbort);
      child.stdout.destroy();
      child.stderr.destroy();
      if (aborted) {
        reject(new Error('The command was cancelled while running; its processes were killed.'));
        return;
      }
      const code = exit?.code ?? null;
      const signal = exit?.signal ?? null;
      const exitCode = code ?? 128 + (signal === null ? 0 : (os.constants.signals[signal] ?? 0));
      const stderrText = stderr.text();
      resolve({
        exitCode,
        stdout: stdout.text(),
        stderr: timedOut
          ? `${stderrText}${stderrText === '' || stderrText.endsWith('\n') ? '' : '\n'}` +
            `[Killed after the ${input.timeoutMs} ms timeout.]`
          : stderrText,
        timedOut,
      });
    };

    child.on('error', (error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timeout);
      clearInterval(heartbeat);
      input.abortSignal.removeEventListener('abort', onAbort);
      reject(new Error(`Could not start bash: ${error.message}.`));
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      graceTimer = setTimeout(finish, pipeGraceMs);
    });
    child.on('close', finish);
  });
}
