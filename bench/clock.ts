import { performance } from 'node:perf_hooks';

/**
 * Wall-clock milliseconds with sub-millisecond resolution, comparable across processes on one machine:
 * the parent stamps decisions, worker processes stamp tool starts.
 */
export function nowMs(): number {
  return performance.timeOrigin + performance.now();
}
