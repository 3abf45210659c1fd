import type { BenchWorkers } from './bench-workers';
import type { WorkerChild } from './worker-child';

/**
 * Several worker processes polling one task queue, measured as one: the scale-out figure runs a system on
 * two of them. A turn's tool starts on whichever worker took it.
 */
export class WorkerGroup implements BenchWorkers {
  constructor(private readonly workers: readonly WorkerChild[]) {
    if (workers.length === 0) throw new Error('a worker group needs at least one worker');
  }

  get pids(): number[] {
    return this.workers.map((worker) => worker.pid);
  }

  toolStarted(turn: string, timeoutMs: number): Promise<number> {
    // The first worker to report the tool wins; the others' waits are dropped when it does.
    return new Promise((resolve, reject) => {
      let failures = 0;
      for (const worker of this.workers) {
        worker.toolStarted(turn, timeoutMs).then(resolve, (error: unknown) => {
          if (++failures === this.workers.length) reject(error);
        });
      }
    });
  }

  toolStartCount(turn: string): number {
    return this.workers.reduce((sum, worker) => sum + worker.toolStartCount(turn), 0);
  }

  async residentBytes(): Promise<number> {
    const each = await Promise.all(this.workers.map((worker) => worker.residentBytes()));
    return each.reduce((sum, value) => sum + value, 0);
  }
}
