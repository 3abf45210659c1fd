import { spawn } from 'node:child_process';

/** How a finished command ended. */
export interface CommandResult {
  /** Exit code; null when the command was killed, did not start, or timed out. */
  exitCode: number | null;
  /** Stdout and stderr interleaved, as the user would have seen them. */
  output: string;
  /** Why the command did not run to completion, when it did not. */
  failure?: 'not-found' | 'timeout' | 'spawn-error';
}

/** Options for {@link runCommand}. */
export interface RunCommandOptions {
  /** Kill the command after this long; a hanging shim or pip must not hang the caller. */
  timeoutMs: number;
  /** Called with each output line as it arrives, for commands that take a while. */
  onLine?: (line: string) => void;
  /** Environment of the command; the current process's by default. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Runs a command to completion and collects its output. Never rejects: a missing executable or a timeout is a
 * result the caller turns into a message.
 */
export function runCommand(
  command: string,
  args: readonly string[],
  options: RunCommandOptions,
): Promise<CommandResult> {
  return new Promise((resolve) => {
    let output = '';
    let pendingLine = '';
    let settled = false;
    const finish = (result: CommandResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (pendingLine) options.onLine?.(pendingLine);
      resolve(result);
    };
    const child = spawn(command, args, { env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish({ exitCode: null, output, failure: 'timeout' });
    }, options.timeoutMs);
    const collect = (chunk: Buffer): void => {
      const text = chunk.toString('utf8');
      output += text;
      if (!options.onLine) return;
      const lines = (pendingLine + text).split(/\r?\n/);
      pendingLine = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) options.onLine(line);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('error', (error: NodeJS.ErrnoException) => {
      finish({
        exitCode: null,
        output: output + error.message,
        failure: error.code === 'ENOENT' ? 'not-found' : 'spawn-error',
      });
    });
    child.on('close', (exitCode) => finish({ exitCode, output }));
  });
}
