/** How far {@link shortenArguments} goes before it cuts. */
export interface ArgumentLimits {
  /** Characters of one string. */
  stringLimit: number;
  /** Items of one array, keys of one object. */
  itemLimit: number;
  /** Levels of nesting. */
  depthLimit: number;
}

/**
 * A copy of a tool call's arguments small enough to show a person (in Slack or an email), saying
 * what was cut. Keys are defined, not assigned, so a key named `__proto__` stays an ordinary key.
 */
export function shortenArguments(value: unknown, limits: ArgumentLimits, depth = 0): unknown {
  const { stringLimit, itemLimit, depthLimit } = limits;
  if (typeof value === 'string') {
    if (value.length <= stringLimit) return value;
    return `${value.slice(0, stringLimit)}… (${value.length - stringLimit} more characters)`;
  }
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= depthLimit) return Array.isArray(value) ? '[…]' : '{…}';
  if (Array.isArray(value)) {
    const shown = value.slice(0, itemLimit).map((item) => shortenArguments(item, limits, depth + 1));
    if (value.length > itemLimit) shown.push(`… (${value.length - itemLimit} more items)`);
    return shown;
  }
  const entries = Object.entries(value);
  const shown: Record<string, unknown> = {};
  for (const [key, item] of entries.slice(0, itemLimit)) {
    Object.defineProperty(shown, key, {
      value: shortenArguments(item, limits, depth + 1),
      enumerable: true,
      writable: true,
    });
  }
  if (entries.length > itemLimit) {
    Object.defineProperty(shown, '…', { value: `${entries.length - itemLimit} more keys`, enumerable: true });
  }
  return shown;
}
