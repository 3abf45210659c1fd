import { z } from 'zod';

const durationPattern = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/;
const unitMilliseconds = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** A duration: milliseconds, or a string such as `'90s'`, `'15m'`, `'2h'`, `'3d'`. */
export const durationSchema = z.union([
  z.number().int().positive(),
  z.string().regex(durationPattern, 'a duration such as "90s", "15m", "2h" or "3d"'),
]);
export type Duration = z.infer<typeof durationSchema>;

/** Milliseconds in a duration accepted by {@link durationSchema}. */
export function durationToMilliseconds(duration: Duration): number {
  if (typeof duration === 'number') return duration;
  const match = durationPattern.exec(duration);
  if (!match) throw new TypeError(`"${duration}" is not a duration such as "90s", "15m", "2h" or "3d".`);
  return Math.round(Number(match[1]) * unitMilliseconds[match[2] as keyof typeof unitMilliseconds]);
}
