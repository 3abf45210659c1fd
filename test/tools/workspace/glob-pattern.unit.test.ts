import { globToRegExp } from '../../../src/tools/workspace/glob-pattern';

describe('globToRegExp', () => {
  const matches = (pattern: string, candidate: string) => globToRegExp(pattern).test(candidate);

  it('lets ** match no folder, one folder or several', () => {
    expect(matches('**/*.ts', 'index.ts')).toBe(true);
    expect(matches('**/*.ts', 'src/index.ts')).toBe(true);
    expect(matches('src/**/test/*.ts', 'src/a/b/test/x.ts')).toBe(true);
    expect(matches('src/**', 'src/a/b.ts')).toBe(true);
  });

  it('keeps * and ? within one path segment', () => {
    expect(matches('*.ts', 'src/index.ts')).toBe(false);
    expect(matches('src/?.ts', 'src/a.ts')).toBe(true);
    expect(matches('src/?.ts', 'src/ab.ts')).toBe(false);
  });

  it('treats regular expression characters literally', () => {
    expect(matches('a+b(1).txt', 'a+b(1).txt')).toBe(true);
    expect(matches('*.txt', 'fileXtxt')).toBe(false);
  });

  it('supports {a,b} alternatives', () => {
    expect(matches('*.{ts,tsx}', 'view.tsx')).toBe(true);
    expect(matches('*.{ts,tsx}', 'view.js')).toBe(false);
  });

  it('refuses an unclosed brace with a clear error', () => {
    expect(() => globToRegExp('*.{ts')).toThrow('Glob "*.{ts" has an unclosed "{"; close it or remove it.');
  });
});
