import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import {
  workerEnvironment,
  type BenchSystem,
  type BenchmarkMessage,
  type WorkerProcessMessage,
} from './worker-messages';
import type { BenchWorkers } from './bench-workers';

/** Processes the benchmark itself is stopping, whose exit is expected. */
const stopping = new WeakSet<ChildProcess>();

/** How to start one benchmark worker process. */
export interface WorkerChildOptions {
  system: BenchSystem;
  address: string;
  taskQueue: string;
  bundlePath: string;
  modelURL: string;
  maxCachedWorkflows: number;
  /** More environment for the process (the S3 store's settings, say), over the benchmark's own. */
  environment?: Record<string, string>;
  /** Worker output lines, for progress on stderr. */
  log: (line: string) => void;
}

/** A benchmark worker running in a child process: its tool starts, its memory, and a way to stop it. */
export class WorkerChild implements BenchWorkers {
  /** When each turn's tool started, by turn key, as the worker stamped it. */
  readonly toolStarts = new Map<string, number>();
  private readonly toolStartCounts = new Map<string, number>();
  private readonly waiters = new Map<string, Array<(at: number) => void>>();
  private collected: (() => void) | undefined;

  private constructor(
    readonly system: BenchSystem,
    private readonly child: ChildProcess,
    private readonly log: (line: string) => void,
  ) {
    child.on('message', (message: WorkerProcessMessage) => this.receive(message));
  }

  /** Forks the worker process and resolves once its worker runs. */
  static async start(options: WorkerChildOptions): Promise<WorkerChild> {
    const child = fork(path.join(__dirname, 'worker-process.ts'), [], {
      execArgv: [
        '--import',
        'tsx',
        '--expose-gc',
        // Extra Node flags for every worker, to profile them (see bench/README.md); {system} becomes the worker's.
        ...(process.env.TOLLGATE_BENCH_WORKER_NODE_ARGS ?? '')
          .split(' ')
          .filter(Boolean)
          .map((flag) => flag.replaceAll('{system}', options.system)),
      ],
      env: {
        ...process.env,
        ...options.environment,
        [workerEnvironment.system]: options.system,
        [workerEnvironment.address]: options.address,
        [workerEnvironment.taskQueue]: options.taskQueue,
        [workerEnvironment.bundle]: options.bundlePath,
        [workerEnvironment.modelURL]: options.modelURL,
        [workerEnvironment.maxCachedWorkflows]: String(options.maxCachedWorkflows),
      },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const repeats = new Map<string, number>();
    const forward = (stream: NodeJS.ReadableStream | null) =>
      stream?.setEncoding('utf8').on('data', (text: string) => {
        for (const raw of text.split('\n')) {
          const line = stripVTControlCharacters(raw).trim();
          if (!line) continue;
          // The SDK repeats a warning per task (payload sizes, say): show each kind a few times, not thousands.
          const kind = line.replace(/^\S*\d{4}-\d\d-\d\dT\S+\s*/, '').replace(/\d+/g, '#');
          const seen = (repeats.get(kind) ?? 0) + 1;
          repeats.set(kind, seen);
          if (seen <= 3) options.log(`[${options.system} worker] ${line}`);
          if (seen === 3) options.log(`[${options.system} worker] (further lines like this one are not shown)`);
        }
      });
    forward(child.stdout);
    forward(child.stderr);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the ${options.system} worker did not start within 60s`)),
        60_000,
      );
      child.on('message', (message: WorkerProcessMessage) => {
        if (message.type !== 'ready') return;
        clearTimeout(timer);
        resolve();
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`the ${options.system} worker exited during startup (${signal ?? `code ${code}`})`));
      });
    });
    child.once('exit', (code, signal) => {
      if (!stopping.has(child))
        options.log(`[${options.system} worker] exited unexpectedly (${signal ?? `code ${code}`})`);
    });
    return new WorkerChild(options.system, child, options.log);
  }

  /** The process id, whose VmRSS is the worker's memory. */
  get pid(): number {
    return this.child.pid ?? -1;
  }

  /** The one process, as {@link BenchWorkers} lists them. */
  get pids(): number[] {
    return [this.pid];
  }

  /** Resolves with the time the tool of `turn` started, or rejects after `timeoutMs`. */
  toolStarted(turn: string, timeoutMs: number): Promise<number> {
    const known = this.toolStarts.get(turn);
    if (known !== undefined) return Promise.resolve(known);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const list = this.waiters.get(turn) ?? [];
        this.waiters.set(
          turn,
          list.filter((waiter) => waiter !== onStart),
        );
        reject(new Error(`the tool of ${turn} did not start within ${timeoutMs / 1000}s`));
      }, timeoutMs);
      const onStart = (at: number) => {
        clearTimeout(timer);
        resolve(at);
      };
      this.waiters.set(turn, [...(this.waiters.get(turn) ?? []), onStart]);
    });
  }

  /** How many times a tool of `turn` started. */
  toolStartCount(turn: string): number {
    return this.toolStartCounts.get(turn) ?? 0;
  }

  /** Collects garbage in the worker's main isolate, waits a moment, and reads its resident memory in bytes. */
  async residentBytes(): Promise<number> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 5_000);
      this.collected = () => {
        clearTimeout(timer);
        resolve();
      };
      this.send({ type: 'collect-garbage' });
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    return residentBytesOf(this.pid);
  }

  /** Asks the worker to shut down; kills it if it has not exited after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    stopping.add(this.child);
    this.send({ type: 'stop' });
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  }

  /** Kills the worker at once, for cleanup on an interrupted run. */
  kill(): void {
    stopping.add(this.child);
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }

  private send(message: BenchmarkMessage): void {
    if (this.child.connected) this.child.send(message);
  }

  private receive(message: WorkerProcessMessage): void {
    if (message.type === 'stall') {
      const ended = new Date(message.endedAt).toISOString();
      this.log(`[${this.system} worker] main thread paused ${message.ms} ms (${message.kind}), until ${ended}`);
    }
    if (message.type === 'collected') {
      this.collected?.();
      this.collected = undefined;
    }
    if (message.type !== 'tool-start') return;
    this.toolStartCounts.set(message.turn, this.toolStartCount(message.turn) + 1);
    if (!this.toolStarts.has(message.turn)) this.toolStarts.set(message.turn, message.at);
    const waiters = this.waiters.get(message.turn);
    this.waiters.delete(message.turn);
    for (const waiter of waiters ?? []) waiter(message.at);
  }
}

/**
 * CPU time a process has used so far (user and system, all its threads), in milliseconds, from /proc; undefined
 * where there is no /proc or the process is gone. Clock ticks are taken as 100 per second, Linux's usual USER_HZ.
 */
export function cpuMillisecondsOf(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // Fields after the command name (which may hold spaces), from field 3 on: utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? ticks * 10 : undefined;
}

/** VmRSS of a process, in bytes, from /proc. */
export function residentBytesOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!match) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) * 1024;
}
