import { shortenArguments } from '../shorten-arguments';
/** Slack refuses a section whose text is longer than this. */
export const slackSectionTextLimit = 3000;

/** Longest string value shown whole in the arguments; longer ones are cut with a note of how much is left out. */
export const argumentStringLimit = 300;

/** Most array items or object keys shown at one level of the arguments. */
export const argumentItemLimit = 25;

/** Deepest nesting shown in the arguments. */
export const argumentDepthLimit = 6;

/**
 * Escapes the three characters Slack treats as markup (`&`, `<`, `>`), so text from a model or a user
 * cannot mention `@channel`, open a link or break the message.
 *
 * @example
 * escapeSlackText('<!channel> & co'); // '&lt;!channel&gt; &amp; co'
 */
export function escapeSlackText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Shows a tool's arguments as indented JSON that fits in a Slack code block of at most `limit` characters
 * (escaped), with long strings, long lists and deep nesting shortened, so the approver sees the shape
 * of every argument rather than the first one only.
 *
 * @example
 * const text = renderArguments({ path: 'notes.txt', content: 'x'.repeat(10_000) }, 2800);
 */
export function renderArguments(input: unknown, limit: number): string {
  if (input === undefined) return '(no arguments)';
  let json: string;
  try {
    json =
      JSON.stringify(
        shortenArguments(input, {
          stringLimit: argumentStringLimit,
          itemLimit: argumentItemLimit,
          depthLimit: argumentDepthLimit,
        }),
        null,
        2,
      ) ?? String(input);
  } catch {
    json = String(input);
  }
  // Triple backticks inside would close the code block early; a zero-width space keeps them apart.
  return boundEscaped(json.replace(/```/g, '`\u200b`\u200b`'), limit);
}

/**
 * Escapes `text` and cuts it so the escaped result, with a note saying it was cut, is at most `limit`
 * characters. Cuts between characters, never inside an escape sequence or a surrogate pair.
 */
export function boundEscaped(text: string, limit: number): string {
  const escaped = escapeSlackText(text);
  if (escaped.length <= limit) return escaped;
  const note = '\n… (truncated)';
  let kept = '';
  for (const character of text) {
    const next = escapeSlackText(character);
    if (kept.length + next.length + note.length > limit) break;
    kept += next;
  }
  return `${kept}${note}`;
}

/**
 * A time Slack shows in each reader's own time zone, with the ISO time as the fallback for clients
 * that cannot format it.
 */
export function slackDate(iso: string): string {
  const seconds = Math.floor(Date.parse(iso) / 1000);
  if (!Number.isFinite(seconds)) return escapeSlackText(iso);
  return `<!date^${seconds}^{date_short_pretty} at {time_secs}|${escapeSlackText(iso)}>`;
}
