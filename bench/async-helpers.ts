/** Thrown when a figure takes longer than it may; the figure is reported as timed out. */
export class BenchTimeoutError extends Error {
  override readonly name = 'BenchTimeoutError';
}

/** Settles like `promise`, or rejects with a {@link BenchTimeoutError} after `timeoutMs`. */
export async function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BenchTimeoutError(`${what} timed out after ${timeoutMs / 1000}s`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `task` for every item with at most `limit` running at once; results keep the items' order. */
export async function mapWithLimit<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

/** Resolves after `milliseconds`. */
export function delay(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

/** Calls `probe` until it returns a value, waiting `intervalMs` between calls; errors count as "not yet". */
export async function pollUntil<T>(
  probe: () => Promise<T | undefined>,
  options: { intervalMs: number; timeoutMs: number; what: string },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    await delay(options.intervalMs);
  }
  const reason = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
  throw new BenchTimeoutError(`${options.what} timed out after ${options.timeoutMs / 1000}s${reason}`);
}
