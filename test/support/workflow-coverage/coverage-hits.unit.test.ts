import type { FileCoverageData } from 'istanbul-lib-coverage';
import { addHits } from './coverage-hits';

const template: FileCoverageData = {
  path: '/src/a.ts',
  statementMap: { '0': { start: { line: 1, column: 0 }, end: { line: 1, column: 9 } } },
  fnMap: {},
  branchMap: {},
  s: { '0': 0, '1': 0 },
  f: { '0': 0 },
  b: { '0': [0, 0] },
};

describe('workflow coverage counters from the sandbox', () => {
  it('starts a file from its empty record and sums what each activation sends', () => {
    const summed = {};
    addHits(summed, { '/src/a.ts': template }, { '/src/a.ts': { s: { '0': 2 }, b: { '0': [0, 1] } } });
    addHits(summed, { '/src/a.ts': template }, { '/src/a.ts': { s: { '0': 1, '1': 4 }, f: { '0': 1 } } });
    expect(summed).toEqual({
      '/src/a.ts': { ...template, s: { '0': 3, '1': 4 }, f: { '0': 1 }, b: { '0': [0, 1] } },
    });
    // The template itself stays empty for the next file that starts from it.
    expect(template.s).toEqual({ '0': 0, '1': 0 });
  });

  it('leaves out a file the set-up did not instrument', () => {
    const summed = {};
    addHits(summed, { '/src/a.ts': template }, { '/src/elsewhere.ts': { s: { '0': 1 } } });
    expect(summed).toEqual({});
  });
});
