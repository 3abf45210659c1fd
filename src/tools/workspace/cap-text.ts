/** A text cut to a byte budget, and whether anything was cut. */
export interface CappedText {
  /** The text, at most the budget in UTF-8 bytes, never ending in half a character. */
  text: string;
  /** Whether the original was longer. */
  truncated: boolean;
}

/**
 * Cuts `text` to at most `maxBytes` UTF-8 bytes, on a character boundary.
 * Tool outputs are capped because everything a tool returns is sent to the model and stored in workflow history.
 */
export function capText(text: string, maxBytes: number): CappedText {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return { text, truncated: false };
  return { text: utf8Prefix(bytes, maxBytes), truncated: true };
}

/** The longest prefix of `bytes` of at most `maxBytes` that ends on a character boundary, decoded. */
export function utf8Prefix(bytes: Buffer, maxBytes: number): string {
  let end = Math.min(maxBytes, bytes.length);
  // Continuation bytes look like 10xxxxxx: step back to the start of the character that would be split.
  while (end > 0 && end < bytes.length && ((bytes[end] as number) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}

/** The longest suffix of `bytes` of at most `maxBytes` that starts on a character boundary, decoded. */
export function utf8Suffix(bytes: Buffer, maxBytes: number): string {
  let start = Math.max(0, bytes.length - maxBytes);
  while (start < bytes.length && ((bytes[start] as number) & 0xc0) === 0x80) start++;
  return bytes.subarray(start).toString('utf8');
}

/** Lines joined with `\n`, as many whole lines as fit in `maxBytes`, and how many that was. */
export function joinLinesWithin(lines: readonly string[], maxBytes: number): { text: string; count: number } {
  let used = 0;
  let count = 0;
  for (const line of lines) {
    const cost = Buffer.byteLength(line, 'utf8') + (count > 0 ? 1 : 0);
    if (used + cost > maxBytes) break;
    used += cost;
    count++;
  }
  return { text: lines.slice(0, count).join('\n'), count };
}
