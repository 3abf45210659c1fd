/**
 * Compiles a glob into a regular expression over `/`-separated relative paths.
 *
 * `**` matches any number of folders (including none), `*` any characters but `/`, `?` one character but `/`,
 * and `{a,b}` either alternative (not nested). Everything else is literal. Dot files are matched like any other,
 * which is what a model listing a project expects.
 *
 * @example
 * globToRegExp('src/*.{ts,tsx}').test('src/index.ts'); // true
 */
export function globToRegExp(pattern: string): RegExp {
  let source = '';
  let inBraces = false;
  for (let index = 0; index < pattern.length; index++) {
    const character = pattern[index] as string;
    if (character === '*' && pattern[index + 1] === '*') {
      const atSegmentStart = index === 0 || pattern[index - 1] === '/';
      index++;
      if (atSegmentStart && pattern[index + 1] === '/') {
        index++;
        source += '(?:[^/]*/)*';
      } else if (atSegmentStart && index + 1 === pattern.length) {
        source += '.*';
      } else {
        // `**` inside a name, like `a**b`, is just a `*`.
        source += '[^/]*';
      }
    } else if (character === '*') {
      source += '[^/]*';
    } else if (character === '?') {
      source += '[^/]';
    } else if (character === '{' && !inBraces) {
      inBraces = true;
      source += '(?:';
    } else if (character === '}' && inBraces) {
      inBraces = false;
      source += ')';
    } else if (character === ',' && inBraces) {
      source += '|';
    } else {
      source += character.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    }
  }
  if (inBraces) throw new Error(`Glob "${pattern}" has an unclosed "{"; close it or remove it.`);
  return new RegExp(`^${source}$`);
}
