import { PerformanceObserver } from 'node:perf_hooks';

/** A pause of a worker process's main thread: its event loop blocked, or one garbage collection. */
export interface Stall {
  kind: 'event loop' | 'gc';
  /** How long the thread could not run its callbacks. */
  ms: number;
  /** When it ended, in milliseconds since the epoch: to set beside a timed-out workflow task's time. */
  endedAt: number;
}

/**
 * How long a timer due every `intervalMs` was held past its time, if that is at least `thresholdMs`: the event loop ran
 * nothing for that long (a long synchronous callback, a pause of the whole process).
 */
export function blockedMsOf(previousTickMs: number, nowMs: number, intervalMs: number, thresholdMs: number) {
  const late = nowMs - previousTickMs - intervalMs;
  return late >= thresholdMs ? late : undefined;
}

/**
 * Watches the process's main thread — where a worker's activities run and where every workflow task's activation
 * passes between Temporal's core and the workflow thread — and reports each pause of at least `thresholdMs`: so that a
 * workflow task that times out in a burst can be set beside what the worker's main thread was doing then.
 */
export function watchForStalls(options: { intervalMs: number; thresholdMs: number; report: (stall: Stall) => void }) {
  let previous = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    const ms = blockedMsOf(previous, now, options.intervalMs, options.thresholdMs);
    previous = now;
    if (ms !== undefined) options.report({ kind: 'event loop', ms: Math.round(ms), endedAt: Date.now() });
  }, options.intervalMs);
  timer.unref();
  const collections = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.duration < options.thresholdMs) continue;
      options.report({
        kind: 'gc',
        ms: Math.round(entry.duration),
        endedAt: Math.round(performance.timeOrigin + entry.startTime + entry.duration),
      });
    }
  });
  collections.observe({ entryTypes: ['gc'] });
  return () => {
    clearInterval(timer);
    collections.disconnect();
  };
}
