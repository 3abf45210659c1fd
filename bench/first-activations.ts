import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import type { InjectedSinks } from '@temporalio/worker';
import type { FirstActivationSinks } from './first-activation-interceptor';

/**
 * `BENCH_WORKER_FIRST_TASKS=<path>`: each worker writes `<path>.<system>.log`, a line each time a run's workflow
 * function starts (bench/first-activation-interceptor.ts), to tell a timed-out first workflow task that the workflow
 * code ran at once from one it never saw.
 */
export const firstTasksVariable = 'BENCH_WORKER_FIRST_TASKS';

/** One start of a run's workflow function, as a worker saw it. */
export interface FirstActivation {
  /** When the activation was done (ISO 8601). */
  at: string;
  workflowId: string;
  /** Events in the history then: 3 for a first attempt, 6 for the attempt after a timed-out first task. */
  historyLength: number;
  replaying: boolean;
}

/** The log's line for one start. */
export function firstActivationLine(activation: FirstActivation): string {
  const replaying = activation.replaying ? ' replaying' : '';
  return `${activation.at} ${activation.workflowId} history ${activation.historyLength}${replaying}\n`;
}

/** The starts of `workflowId`'s runs in a log's text, in the order written; lines of other shapes are skipped. */
export function firstActivationsOf(text: string, workflowId: string): FirstActivation[] {
  return text.split('\n').flatMap((line) => {
    const match = /^(\S+) (\S+) history (\d+)( replaying)?$/.exec(line);
    if (!match || match[2] !== workflowId) return [];
    return [{ at: match[1]!, workflowId, historyLength: Number(match[3]), replaying: match[4] !== undefined }];
  });
}

/** The log file of one system's worker, or undefined when the trace is off. */
export function firstActivationsFile(system: string, environment = process.env): string | undefined {
  const path = environment[firstTasksVariable];
  return path ? `${path}.${system}.log` : undefined;
}

/** What a timed-out task's turn shows in the trace: one line, or undefined when the trace is off or absent. */
export function firstActivationsSummary(system: string, workflowId: string): string | undefined {
  const file = firstActivationsFile(system);
  if (!file || !existsSync(file)) return undefined;
  const starts = firstActivationsOf(readFileSync(file, 'utf8'), workflowId);
  if (starts.length === 0) return 'the workflow code never started this run';
  return `the workflow code started it at ${starts
    .map((start) => `${start.at} (history ${start.historyLength}${start.replaying ? ', replaying' : ''})`)
    .join(', ')}`;
}

/** The worker's sinks that write the trace for `system`, or undefined when it is off. */
export function firstActivationSinks(system: string): InjectedSinks<FirstActivationSinks> | undefined {
  const file = firstActivationsFile(system);
  if (!file) return undefined;
  const stream = createWriteStream(file);
  return {
    benchFirstActivations: {
      started: {
        fn: (info, historyLength) => {
          stream.write(
            firstActivationLine({
              at: new Date().toISOString(),
              workflowId: info.workflowId,
              historyLength,
              replaying: info.unsafe.isReplaying,
            }),
          );
        },
        callDuringReplay: true,
      },
    },
  };
}
