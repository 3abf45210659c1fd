import { readFileSync } from 'node:fs';
import path from 'node:path';
import { turnRevisions } from '../../src/protocol/turn-plan';

// Each turn revision is explained once, on its own entry of `turnRevisions`; the table of
// docs/changing-workflow-code.md repeats each one's first paragraph, and this test holds it to the code.
const root = path.resolve(__dirname, '../..');
const source = readFileSync(path.join(root, 'src/protocol/turn-plan.ts'), 'utf8');
const page = readFileSync(path.join(root, 'docs/changing-workflow-code.md'), 'utf8');

/** Each documented entry of `turnRevisions`: its name, number, first paragraph and whole comment. */
function documentedRevisions(): Array<{ name: string; revision: number; summary: string; comment: string }> {
  const block = source.slice(source.indexOf('export const turnRevisions = {'));
  const body = block.slice(0, block.indexOf('} as const;'));
  return [...body.matchAll(/\/\*\*\n((?:[ \t]*\*.*\n)+?)[ \t]*\*\/\n[ \t]*(\w+): (\d+),/g)].map((match) => {
    const lines = match[1]!.split('\n').map((line) => line.replace(/^\s*\*\s?/, ''));
    const blank = lines.indexOf('');
    return {
      name: match[2]!,
      revision: Number(match[3]),
      summary: lines
        .slice(0, blank < 0 ? undefined : blank)
        .join(' ')
        .trim(),
      comment: lines.join(' '),
    };
  });
}

/** The rows of the page's revision table: revision number and what changed. */
function tableRows(): Map<number, string> {
  return new Map(
    [...page.matchAll(/^\| (\d+)\s+\| (.+?)\s+\| .+\|$/gm)].map((match) => [Number(match[1]), match[2]!.trim()]),
  );
}

describe('turn revisions', () => {
  it('explain every revision on its own entry, with why and since when', () => {
    const documented = documentedRevisions();
    const names = Object.keys(turnRevisions).filter((name) => name !== 'current');
    expect(documented.map(({ name }) => name)).toEqual(names);
    for (const { name, revision, comment } of documented) {
      expect(revision).toBe(turnRevisions[name as keyof typeof turnRevisions]);
      expect(comment).toMatch(/@since \d{4}-\d{2}-\d{2}/);
    }
    expect(turnRevisions.current).toBe(Math.max(...documented.map(({ revision }) => revision)));
  });

  it("appear in docs/changing-workflow-code.md's table as their entries say, and only so", () => {
    const rows = tableRows();
    for (const { revision, summary } of documentedRevisions()) expect(rows.get(revision)).toBe(summary);
    expect([...rows.keys()].filter((revision) => revision > 1)).toEqual(
      documentedRevisions().map(({ revision }) => revision),
    );
  });
});
