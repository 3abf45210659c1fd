import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  firstActivationLine,
  firstActivationSinks,
  firstActivationsOf,
  firstActivationsSummary,
} from '../../bench/first-activations';

/**
 * The file's text once it holds `count` lines: the sink writes through a stream, which a busy machine flushes later.
 * What it holds after 4 s otherwise.
 */
async function linesWritten(file: string, count: number): Promise<string> {
  const read = () => (existsSync(file) ? readFileSync(file, 'utf8') : '');
  for (let waited = 0; waited < 4_000 && read().split('\n').length <= count; waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return read();
}

// BENCH_WORKER_FIRST_TASKS: each worker writes when each run's workflow function started, so that a timed-out first
// workflow task can be told apart — run by the workflow code at once, or never seen before its retry.
describe('the first-task trace of the bench', () => {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'tollgate-first-tasks-'));
  const trace = path.join(folder, 'first');
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it("reads back one turn's starts from the lines the workers write, and nothing of other turns", () => {
    const text = [
      firstActivationLine({
        at: '2026-11-28T04:43:29.761Z',
        workflowId: 'turn-269',
        historyLength: 3,
        replaying: false,
      }),
      firstActivationLine({
        at: '2026-11-28T04:43:30.001Z',
        workflowId: 'turn-27',
        historyLength: 3,
        replaying: false,
      }),
      'not a trace line\n',
      firstActivationLine({
        at: '2026-11-28T04:43:40.171Z',
        workflowId: 'turn-274',
        historyLength: 6,
        replaying: true,
      }),
    ].join('');
    expect(firstActivationsOf(text, 'turn-274')).toEqual([
      { at: '2026-11-28T04:43:40.171Z', workflowId: 'turn-274', historyLength: 6, replaying: true },
    ]);
    expect(firstActivationsOf(text, 'turn-2')).toEqual([]);
  });

  it("writes through the worker's sink to the system's file, and says what a timed-out turn's code did", async () => {
    const previous = process.env.BENCH_WORKER_FIRST_TASKS;
    process.env.BENCH_WORKER_FIRST_TASKS = trace;
    try {
      const sinks = firstActivationSinks('tollgate')!;
      const info = (workflowId: string, isReplaying: boolean) =>
        ({ workflowId, unsafe: { isReplaying } }) as Parameters<typeof sinks.benchFirstActivations.started.fn>[0];
      await sinks.benchFirstActivations.started.fn(info('turn-1', false), 3);
      await sinks.benchFirstActivations.started.fn(info('turn-1', true), 6);
      expect(await linesWritten(`${trace}.tollgate.log`, 2)).toMatch(
        /^\S+Z turn-1 history 3\n\S+Z turn-1 history 6 replaying\n$/,
      );
      expect(firstActivationsSummary('tollgate', 'turn-1')).toMatch(
        /^the workflow code started it at \S+Z \(history 3\), \S+Z \(history 6, replaying\)$/,
      );
      expect(firstActivationsSummary('tollgate', 'turn-2')).toBe('the workflow code never started this run');
      expect(firstActivationsSummary('handLoop', 'turn-1')).toBeUndefined();
    } finally {
      if (previous === undefined) delete process.env.BENCH_WORKER_FIRST_TASKS;
      else process.env.BENCH_WORKER_FIRST_TASKS = previous;
    }
    expect(firstActivationSinks('tollgate')).toBeUndefined();
    expect(firstActivationsSummary('tollgate', 'turn-1')).toBeUndefined();
  });
});
