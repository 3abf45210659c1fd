/** One argument as a person reads it at a glance. */
export interface ArgumentLine {
  name: string;
  value: string;
}

// As the chat page's summary (examples/chat/readable.ts): short values whole, long ones cut with their length.
const valueLimit = 200;
const linesLimit = 30;

/**
 * A tool's input as `name: value` lines: strings as they are, other values as compact JSON, long values cut
 * with their full length named, and at most 30 lines (the rest counted). Plain text: escape it for HTML.
 *
 * @example
 * argumentSummary({ path: 'a.txt', force: true }); // [{ name: 'path', value: 'a.txt' }, { name: 'force', value: 'true' }]
 */
export function argumentSummary(input: unknown): ArgumentLine[] {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return [{ name: 'input', value: shorten(valueText(input)) }];
  }
  const entries = Object.entries(input as Record<string, unknown>);
  if (entries.length === 0) return [{ name: 'input', value: '(no arguments)' }];
  const lines = entries.slice(0, linesLimit).map(([name, value]) => ({ name, value: shorten(valueText(value)) }));
  if (entries.length > linesLimit) {
    lines.push({ name: '…', value: `${entries.length - linesLimit} more arguments; see the raw input` });
  }
  return lines;
}

function valueText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '(none)';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function shorten(text: string): string {
  if (text.length <= valueLimit) return text;
  return `${Array.from(text).slice(0, valueLimit).join('')}… (${text.length.toLocaleString('en-US')} characters)`;
}
