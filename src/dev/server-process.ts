import { spawn, type ChildProcess } from 'node:child_process';

/** How the server process ended. */
export interface ServerProcessExit {
  /** Exit code, or null when a signal ended it. */
  code: number | null;
  /** The signal that ended it, if any. */
  signal: NodeJS.Signals | null;
}

/** A running server child process (`temporal server start-dev`, `weed mini`). */
export interface ServerProcess {
  /** Process id of the server. */
  pid: number;
  /** Settles when the process has exited. */
  exited: Promise<ServerProcessExit>;
  /** How it exited, once it has. */
  readonly exitedWith: ServerProcessExit | undefined;
  /** The last lines the server printed, for error messages. */
  recentOutput(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process has exited. */
  stop(graceMs?: number): Promise<void>;
  /** SIGKILL; resolves once the process has exited. */
  kill(): Promise<void>;
}

const keptLines = 25;
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/**
 * Spawns the server and forwards its output lines to `log`. The server is killed when this Node process exits, so a
 * test run or dev runner that ends without `stop()` does not leave it holding the port and the database file.
 *
 * @throws Error when the binary cannot be run at all.
 */
export async function spawnServerProcess(
  executable: string,
  args: readonly string[],
  log: (line: string) => void,
  env?: NodeJS.ProcessEnv,
): Promise<ServerProcess> {
  installExitHook();
  const child = spawn(executable, args, { stdio: ['ignore', 'pipe', 'pipe'], ...(env && { env }) });
  const started = new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (error) => reject(new Error(`Could not run ${executable}: ${error.message}`)));
  });
  // A later 'error' (a failed kill) must not crash the process as an unhandled event.
  child.on('error', () => undefined);

  const recent: string[] = [];
  // stdout and stderr interleave unpredictably: keep the error lines too, so a long usage text
  // printed after them cannot push out the line that says what went wrong.
  const errors: string[] = [];
  const forward = (stream: NodeJS.ReadableStream): void => {
    let pending = '';
    stream.setEncoding('utf8');
    stream.on('data', (text: string) => {
      const lines = (pending + text).split(/\r?\n/);
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.trim()) continue;
        recent.push(line);
        if (recent.length > keptLines) recent.shift();
        if (/error|unknown|fatal|failed|^panic:/i.test(line) && errors.length < 10) errors.push(line);
        log(line);
      }
    });
  };
  forward(child.stdout);
  forward(child.stderr);

  let exitedWith: ServerProcessExit | undefined;
  const exited = new Promise<ServerProcessExit>((resolve) => {
    child.once('exit', (code, signal) => {
      running.delete(child);
      const exit = { code, signal };
      // The last lines (often the error) can still be in the pipes; wait for them, but not for a stray grandchild.
      const settle = (): void => {
        clearTimeout(timer);
        exitedWith ??= exit;
        resolve(exit);
      };
      const timer = setTimeout(settle, 500);
      child.once('close', settle);
    });
  });
  await started;
  running.add(child);

  const stop = async (graceMs = 10_000): Promise<void> => {
    if (exitedWith) return;
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const stopped = await Promise.race([
      exited.then(() => true),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), graceMs))),
    ]);
    clearTimeout(timer);
    if (!stopped) {
      child.kill('SIGKILL');
      await exited;
    }
  };

  return {
    pid: child.pid as number,
    exited,
    get exitedWith() {
      return exitedWith;
    },
    recentOutput: () => [...errors.filter((line) => !recent.includes(line)), ...recent].join('\n'),
    stop,
    kill: async () => {
      if (!exitedWith) child.kill('SIGKILL');
      await exited;
    },
  };
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Only synchronous work runs in an exit handler, so there is no time for a graceful stop; SQLite survives SIGKILL.
  process.on('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
}
