import { readFileSync } from 'node:fs';
import path from 'node:path';
import { typeScriptFilesUnder } from '../support/source-files';
import { clockBoundsIn } from './clock-bounds';

const testFolder = path.resolve(__dirname, '..');

describe('clockBoundsIn', () => {
  it('finds an upper bound on a time measured inline, through a name, or by a helper, and on a moment read from the clock', () => {
    const source = [
      'const started = Date.now();',
      'expect(Date.now() - started).toBeLessThan(2000);',
      'const waited = Date.now() - started;',
      'expect(waited).toBeLessThanOrEqual(500);',
      'expect(response.elapsedMs).not.toBeLessThan(3000);',
      'const spent = performance.now() - began;',
      'expect(spent / 2).toBeLessThan(9);',
      'const warnedAt = Date.now();',
      'expect(warnedAt).toBeLessThan(expiresAt);',
    ].join('\n');
    expect(clockBoundsIn('sample.test.ts', source).map((bound) => bound.line)).toEqual([2, 4, 5, 7, 9]);
  });

  it('allows lower bounds, sizes, and times read from elsewhere', () => {
    const source = [
      'const started = Date.now();',
      'expect(Date.now() - started).toBeGreaterThanOrEqual(140);',
      'expect(JSON.stringify(state).length).toBeLessThan(5_000);',
      'expect(Date.parse(entry.decidedAt)).toBeLessThan(Date.parse(approval.expiresAt));',
      'const expires = new Date(Date.now() + 60_000);',
      'expect(count).toBeLessThan(10);',
    ].join('\n');
    expect(clockBoundsIn('sample.test.ts', source)).toEqual([]);
  });
});

describe('the tests', () => {
  it('put no upper bound on a time they measure with their own clock', () => {
    const found = typeScriptFilesUnder(testFolder).flatMap((file) =>
      clockBoundsIn(file, readFileSync(file, 'utf8')).map(
        (bound) => `${path.relative(testFolder, file)}:${bound.line}: ${bound.text}`,
      ),
    );
    expect(found).toEqual([]);
  });
});
