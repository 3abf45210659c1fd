import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { ScriptedReply } from '../src/dev/model-server';

/** The scripted model as the benchmark's systems use it: where it listens, and the replies a turn will get. */
export interface BenchModel {
  readonly baseURL: string;
  /** Queues `replies` for requests that carry `marker`; resolved once the server has them. */
  scriptFor(marker: string, ...replies: ScriptedReply[]): void | Promise<void>;
}

/** What the benchmark asks of the model server's process. */
export type ModelProcessMessage =
  | { type: 'script'; id: number; marker: string; replies: ScriptedReply[] }
  | { type: 'failures'; id: number }
  | { type: 'close' };

/** What the model server's process answers. */
export type ModelServerMessage =
  | { type: 'ready'; baseURL: string }
  | { type: 'scripted'; id: number }
  | { type: 'failures'; id: number; failures: string[] };

/**
 * The scripted model server running in a child process (`model-server-process.ts`), as in issue 32's measurement:
 * its CPU is its own, not the benchmark's, and the workers reach it over HTTP as they would a real model.
 */
export class ModelProcess implements BenchModel {
  private nextId = 0;
  private readonly waiting = new Map<number, (message: ModelServerMessage) => void>();

  private constructor(
    private readonly child: ChildProcess,
    readonly baseURL: string,
  ) {
    child.on('message', (message: ModelServerMessage) => {
      if (message.type === 'ready') return;
      this.waiting.get(message.id)?.(message);
      this.waiting.delete(message.id);
    });
  }

  /** Forks the model server's process and resolves once it listens. */
  static start(): Promise<ModelProcess> {
    const child = fork(path.join(__dirname, 'model-server-process.ts'), [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    return new Promise((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`the model server's process exited (${code}) before it listened`)));
      child.on('message', (message: ModelServerMessage) => {
        if (message.type === 'ready') resolve(new ModelProcess(child, message.baseURL));
      });
    });
  }

  scriptFor(marker: string, ...replies: ScriptedReply[]): Promise<void> {
    return this.ask({ type: 'script', id: this.nextId++, marker, replies }).then(() => undefined);
  }

  /** Requests the scripted model could not answer as scripted. */
  async failures(): Promise<string[]> {
    const answer = await this.ask({ type: 'failures', id: this.nextId++ });
    return answer.type === 'failures' ? answer.failures : [];
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.send({ type: 'close' } satisfies ModelProcessMessage);
    await exited;
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }

  private ask(message: Extract<ModelProcessMessage, { id: number }>): Promise<ModelServerMessage> {
    return new Promise((resolve) => {
      this.waiting.set(message.id, resolve);
      this.child.send(message);
    });
  }
}
