/** The nearest-rank percentile of `values` (fraction 0.5 for p50), or NaN when there are none. */
export function percentile(values: readonly number[], fraction: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((first, second) => first - second);
  const rank = Math.ceil(fraction * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))] as number;
}

/** p50 and p95 of a list of milliseconds. */
export interface LatencySummary {
  /** How many values. */
  count: number;
  /** Median. */
  p50: number;
  /** 95th percentile. */
  p95: number;
}

/** Summarises latencies. */
export function summarise(values: readonly number[]): LatencySummary {
  return { count: values.length, p50: percentile(values, 0.5), p95: percentile(values, 0.95) };
}

/** The arithmetic mean, or NaN when there are no values. */
export function mean(values: readonly number[]): number {
  return values.length === 0 ? NaN : values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** A record of each field's median over records of numbers alike (the fields of the first; none when there are none). */
export function mediansOf<T extends { [K in keyof T]: number }>(records: readonly T[]): T {
  const fields = Object.keys(records[0] ?? {}) as Array<keyof T>;
  return Object.fromEntries(
    fields.map((field) => [
      field,
      percentile(
        records.map((record) => record[field]),
        0.5,
      ),
    ]),
  ) as unknown as T;
}
