import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const pages = [
  'README.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

describe('links between README.md and docs/', () => {
  it.each(pages)('%s links only to pages and headings that exist', (page) => {
    const text = readFileSync(path.join(root, page), 'utf8');
    const broken: string[] = [];
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      const [file, anchor] = target!.split('#');
      const resolved = file ? path.resolve(path.dirname(path.join(root, page)), file) : path.join(root, page);
      if (!existsSync(resolved)) {
        broken.push(target!);
        continue;
      }
      if (anchor && resolved.endsWith('.md')) {
        const headings = [...readFileSync(resolved, 'utf8').matchAll(/^#+ (.+)$/gm)].map((match) =>
          anchorOf(match[1]!),
        );
        if (!headings.includes(anchor)) broken.push(target!);
      }
    }
    expect(broken).toEqual([]);
  });
});

/** The cells of a Markdown table row: split on `|`, except an escaped one or one inside inline code. */
function cellsOf(row: string): number {
  const plain = row.replace(/`[^`]*`/g, '``').replace(/\\\|/g, '');
  return plain.split('|').length - 2;
}

describe('tables in README.md and docs/', () => {
  it.each(pages)('%s has no table row with more or fewer cells than its header', (page) => {
    const lines = readFileSync(path.join(root, page), 'utf8').split('\n');
    const misshapen: string[] = [];
    let inCode = false;
    let header: number | undefined;
    for (const [index, line] of lines.entries()) {
      if (line.startsWith('```')) inCode = !inCode;
      if (inCode || !line.startsWith('|')) {
        header = undefined;
        continue;
      }
      if (header === undefined) header = cellsOf(line);
      else if (cellsOf(line) !== header) misshapen.push(`line ${index + 1}: ${line.slice(0, 60)}…`);
    }
    expect(misshapen).toEqual([]);
  });
});
