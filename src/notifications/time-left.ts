/**
 * How long until `expiresAt`, in words a notice shows: `2 d`, `1 h`, `1 h 30 min`, `45 min`, `30 s`. Rounded to
 * the minute from a minute on, so a warning sent a moment after its timer still says "1 h", not "59 min".
 *
 * @example
 * describeTimeLeft('2026-01-02T04:00:00.000Z', new Date('2026-01-02T03:00:00.400Z')); // '1 h'
 */
export function describeTimeLeft(expiresAt: string, now: Date): string {
  const milliseconds = Math.max(0, Date.parse(expiresAt) - now.getTime());
  if (!Number.isFinite(milliseconds)) return 'soon';
  if (milliseconds < 59_500) return `${Math.max(1, Math.round(milliseconds / 1000))} s`;
  const minutes = Math.round(milliseconds / 60_000);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours >= 48) return `${Math.round(minutes / 1440)} d`;
  if (hours >= 10) return `${Math.round(minutes / 60)} h`;
  const rest = minutes % 60;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}
