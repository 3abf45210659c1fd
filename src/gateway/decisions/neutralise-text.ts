// C0 and C1 controls except tab and newline, bidi embeddings, overrides and isolates, directional marks,
// line and paragraph separators, the byte-order mark and other invisible format characters.
const unsafeCharacters =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200B-\u200F\u2028-\u202E\u2060-\u2069\uFEFF\uFFF9-\uFFFB]/g;

/**
 * Replaces characters that can make text read differently from what it is (a right-to-left override
 * that turns "deny" into "ynedo", a carriage return that hides a line, a terminal escape) with a visible
 * `<U+202E>` marker. For text a person wrote that others read: reasons in the audit and the CLI.
 *
 * @example
 * neutraliseText('ok \u202Eyrgna'); // 'ok <U+202E>yrgna'
 */
export function neutraliseText(text: string): string {
  return text.replace(
    unsafeCharacters,
    (character) => `<U+${(character.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')}>`,
  );
}
