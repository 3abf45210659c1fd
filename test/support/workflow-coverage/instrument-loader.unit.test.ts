import vm from 'node:vm';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const loader = require('./instrument-loader') as {
  (this: LoaderContext, source: string, sourceMap?: unknown): void;
  templatesGlobal: string;
};

interface LoaderContext {
  resourcePath: string;
  callback(error: Error | null, code?: string): void;
}

interface SandboxRecord {
  s: Uint32Array;
  f: Uint32Array;
  b: Record<string, Uint32Array>;
}

const source = ['function pick(answer) {', "  return answer ? 'yes' : 'no';", '}', 'globalThis.pick = pick;'].join(
  '\n',
);

function instrumented(path: string): string {
  let code: string | undefined;
  loader.call(
    {
      resourcePath: path,
      callback: (error, result) => {
        if (error) throw error;
        code = result;
      },
    },
    source,
    // What webpack passes on from the TypeScript compilation: istanbul would copy this, source text and all.
    {
      version: 3,
      sources: [path],
      sourcesContent: ['// only the TypeScript source says this'],
      names: [],
      mappings: 'AAAA',
    },
  );
  if (code === undefined) throw new Error('the loader did not answer');
  return code;
}

describe("the workflow bundle's instrumenting loader", () => {
  const templates = () =>
    (globalThis as unknown as Record<string, Record<string, { statementMap: object }>>)[loader.templatesGlobal]!;
  afterEach(() => delete (globalThis as unknown as Record<string, unknown>)[loader.templatesGlobal]);

  it('keeps the maps in the template and only counters in the code, which still count', () => {
    const code = instrumented('/src/pick.ts');
    expect(Object.keys(templates()['/src/pick.ts']!.statementMap).length).toBeGreaterThan(0);
    // The sandbox gets neither the maps nor the source text: the template file carries those.
    expect(code).not.toContain('statementMap');
    expect(code).not.toContain('only the TypeScript source says this');

    const sandbox = vm.createContext({});
    vm.runInContext(code, sandbox);
    vm.runInContext('pick(true); pick(true); pick(false);', sandbox);
    const record = (sandbox.__coverage__ as Record<string, SandboxRecord>)['/src/pick.ts']!;
    expect([...record.f]).toEqual([3]);
    expect([...record.b['0']!]).toEqual([2, 1]);
    expect(Math.max(...record.s)).toBe(3);
  });

  it('refuses code whose record it cannot find, naming the module', () => {
    const withoutRecord = () =>
      loader.call(
        {
          resourcePath: '/src/odd.ts',
          callback: (error) => {
            if (error) throw error;
          },
        },
        'var coverageData=1; var coverageData=2;',
      );
    expect(withoutRecord).toThrow(/\/src\/odd\.ts: istanbul's instrumented code no longer has the record/);
  });
});
