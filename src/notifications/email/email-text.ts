import { shortenArguments } from '../shorten-arguments';
/** Longest arguments text shown in a mail or on a confirmation page, in characters. */
export const argumentsTextLimit = 4000;

// Long strings, long lists and deep nesting are shortened, so every argument's shape shows.
const stringLimit = 500;
const itemLimit = 25;
const depthLimit = 6;

/**
 * Escapes text for HTML element content and double-quoted attributes, so a model's arguments cannot
 * add markup, links or scripts to a mail or a page.
 *
 * @example
 * escapeHtml('<a href="x">'); // '&lt;a href=&quot;x&quot;&gt;'
 */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/**
 * A tool's arguments as indented JSON of at most `limit` characters, with long strings, lists and
 * nesting shortened and a note when the whole text had to be cut. Plain text: escape it for HTML.
 *
 * @example
 * renderArgumentsText({ path: 'notes.txt', content: 'x'.repeat(10_000) });
 */
export function renderArgumentsText(input: unknown, limit = argumentsTextLimit): string {
  if (input === undefined) return '(no arguments)';
  let json: string;
  try {
    json = JSON.stringify(shortenArguments(input, { stringLimit, itemLimit, depthLimit }), null, 2) ?? String(input);
  } catch {
    json = String(input);
  }
  return bound(json, limit);
}

/** Cuts `text` to at most `limit` characters (never inside a surrogate pair), saying that it was cut. */
export function bound(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const note = '\n… (truncated)';
  let kept = '';
  for (const character of text) {
    if (kept.length + character.length + note.length > limit) break;
    kept += character;
  }
  return `${kept}${note}`;
}
