/**
 * Tool arguments as a person reads them at a glance: in the Temporal UI's timeline and details (one line), on the
 * approver inbox and the chat page (`name: value` lines). Pure and bounded: only the top level is walked, so it is
 * safe in workflow code on whatever the model sent, and it imports nothing, so a browser page can bundle it.
 */

/** Entries of an object shown before `…`. */
const maxEntries = 6;

/**
 * The one word or phrase that says what a call is about: the first plain value of its arguments, on one line
 * (`{ path: 'notes.txt', content: '…' }` → `notes.txt`; `{ command: 'ls -la' }` → `ls -la`). Empty when there is none.
 *
 * @example
 * argumentsInBrief({ command: 'ls' }); // 'ls'
 */
export function argumentsInBrief(input: unknown, maxLength = 40): string {
  const plain = plainText(input);
  if (plain !== undefined) return cut(plain, maxLength);
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return '';
  for (const key of Object.keys(input).slice(0, maxEntries)) {
    const value = plainText((input as Record<string, unknown>)[key]);
    if (value !== undefined && value.trim() !== '') return cut(value, maxLength);
  }
  return '';
}

/**
 * All of a call's arguments on one line, each value shortened: `path: notes.txt, content: "hello…"`. Nested values
 * are counted, not shown (`[3 items]`, `{2 keys}`).
 *
 * @example
 * argumentsLine({ path: 'notes.txt', lines: [1, 2] }); // 'path: notes.txt, lines: [2 items]'
 */
export function argumentsLine(input: unknown, maxLength = 160): string {
  if (typeof input !== 'object' || input === null) return cut(plainText(input) ?? '', maxLength);
  if (Array.isArray(input)) return countOf(input);
  const keys = Object.keys(input);
  const parts = keys.slice(0, maxEntries).map((key) => {
    const value = (input as Record<string, unknown>)[key];
    return `${cut(key, 30)}: ${valueInLine(value)}`;
  });
  if (keys.length > maxEntries) parts.push(`… ${keys.length - maxEntries} more`);
  return cut(parts.join(', '), maxLength);
}

function valueInLine(value: unknown): string {
  if (typeof value === 'string') {
    const line = cut(value, 60);
    // Quoted where the value would blur into the list around it.
    return /^[\w./:@~+ -]*$/.test(line) && line.trim() === line && line !== '' ? line : JSON.stringify(line);
  }
  if (typeof value === 'object' && value !== null) return countOf(value);
  return plainText(value) ?? String(value);
}

function countOf(value: object): string {
  if (Array.isArray(value)) return `[${value.length} ${value.length === 1 ? 'item' : 'items'}]`;
  const count = Object.keys(value).length;
  return `{${count} ${count === 1 ? 'key' : 'keys'}}`;
}

function plainText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value === null) return 'null';
  return undefined;
}

/** One line of at most `maxLength` characters, `…` where it was cut. */
export function cut(text: string, maxLength: number): string {
  // Only the start is read: a tool's argument may be megabytes long.
  const line = text
    .slice(0, maxLength * 4 + 16)
    .replace(/\s+/g, ' ')
    .trim();
  const whole = line.length <= maxLength && text.length <= maxLength * 4 + 16;
  return whole ? line : `${line.slice(0, Math.max(0, maxLength - 1))}…`;
}

/** One argument as a person reads it at a glance. */
export interface ArgumentLine {
  name: string;
  value: string;
}

/** Characters of one value shown before it is cut, and arguments listed before the rest are counted. */
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
    return [{ name: 'input', value: shortened(valueTextOf(input)) }];
  }
  const entries = Object.entries(input as Record<string, unknown>);
  if (entries.length === 0) return [{ name: 'input', value: '(no arguments)' }];
  const lines = entries.slice(0, linesLimit).map(([name, value]) => ({ name, value: shortened(valueTextOf(value)) }));
  if (entries.length > linesLimit) {
    lines.push({ name: '…', value: `${entries.length - linesLimit} more arguments; see the raw input` });
  }
  return lines;
}

function valueTextOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '(none)';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function shortened(text: string): string {
  if (text.length <= valueLimit) return text;
  return `${Array.from(text).slice(0, valueLimit).join('')}… (${text.length.toLocaleString('en-US')} characters)`;
}
