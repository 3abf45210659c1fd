import { utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AsyncLocalStorage } from 'node:async_hooks';
import vm from 'node:vm';
import { temporaryFolder } from './temporary-folder';

// The test runtime's shared work (test/support/test-runtime.js): what a test file runs must be what it would run
// without it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const runtime = require('./test-runtime.js') as {
  compileWithCodeCache: (
    code: string,
    params: string[],
    options: vm.CompileFunctionOptions,
  ) => (...args: unknown[]) => unknown;
  hasCodeCache: (filename: string) => boolean;
  keptTransform: (cache: FakeTransformCache, transform: (filename: string, options?: object) => string) => Transform;
  sharedFile: (from: string, moduleName: string) => string | undefined;
  trackEnabledStorages: (prototype: object) => Set<object>;
  disableStorages: (storages: Set<object>) => void;
};
type Transform = (filename: string, options?: object) => string;
interface TransformedFile {
  code: string;
  sourceMapPath?: string;
}
interface FakeTransformCache {
  transforms: Map<string, TransformedFile>;
  sourceMaps: Map<string, string>;
}

const folder = temporaryFolder('tollgate-test-runtime-');

describe('compiling through the code cache', () => {
  const filename = path.join(folder, 'module.js');
  const source = [
    'const twice = (n) => n * 2;',
    'exports.run = (n) => {',
    '  if (n < 0) throw new Error("negative");',
    '  return twice(n);',
    '};',
  ].join('\n');
  const load = () => {
    const context = vm.createContext({});
    const fn = runtime.compileWithCodeCache(source, ['exports'], { filename, parsingContext: context });
    const exports: { run?: (n: number) => number } = {};
    fn.call(undefined, exports);
    return exports.run!;
  };

  it("keeps the module's own lines in stack traces, and its parameters", () => {
    const run = load();
    expect(run(21)).toBe(42);
    let stack = '';
    try {
      run(-1);
    } catch (error) {
      stack = (error as Error).stack ?? '';
    }
    expect(stack).toContain(`${filename}:3:`);
  });

  it('makes the cache once a second test file compiles the same source, and runs the same code from it', () => {
    expect(runtime.hasCodeCache(filename)).toBe(false);
    const run = load();
    expect(runtime.hasCodeCache(filename)).toBe(true);
    expect(run(5)).toBe(10);
    expect(load()(-0)).toBe(-0);
  });

  it('compiles changed source from scratch', () => {
    const context = vm.createContext({});
    const fn = runtime.compileWithCodeCache('exports.run = () => "changed";', ['exports'], {
      filename,
      parsingContext: context,
    });
    const exports: { run?: () => string } = {};
    fn.call(undefined, exports);
    expect(exports.run!()).toBe('changed');
    expect(runtime.hasCodeCache(filename)).toBe(false);
  });
});

describe('keeping transforms between test files', () => {
  function transformCounting() {
    const calls: string[] = [];
    const cache: FakeTransformCache = { transforms: new Map(), sourceMaps: new Map() };
    const transform = (filename: string) => {
      calls.push(filename);
      const file = { code: `transformed ${calls.length}`, sourceMapPath: `${filename}.map` };
      cache.transforms.set(filename, file);
      cache.sourceMaps.set(filename, file.sourceMapPath);
      return file.code;
    };
    return { calls, cache, transform };
  }

  it("uses a file's transform again in the next test file, and records it there as Jest would", () => {
    const filename = path.join(folder, 'kept.ts');
    writeFileSync(filename, 'export const a = 1;');
    const first = transformCounting();
    expect(runtime.keptTransform(first.cache, first.transform)(filename, { supportsStaticESM: false })).toBe(
      'transformed 1',
    );
    const second = transformCounting();
    expect(runtime.keptTransform(second.cache, second.transform)(filename, { supportsStaticESM: false })).toBe(
      'transformed 1',
    );
    expect(second.calls).toEqual([]);
    expect(second.cache.transforms.get(filename)?.code).toBe('transformed 1');
    expect(second.cache.sourceMaps.get(filename)).toBe(`${filename}.map`);
  });

  it('transforms again when the file changed, or with other options', () => {
    const filename = path.join(folder, 'changing.ts');
    writeFileSync(filename, 'export const a = 1;');
    const first = transformCounting();
    runtime.keptTransform(first.cache, first.transform)(filename, {});
    writeFileSync(filename, 'export const a = 2;');
    utimesSync(filename, new Date(), new Date(Date.now() + 5_000));
    const second = transformCounting();
    runtime.keptTransform(second.cache, second.transform)(filename, {});
    expect(second.calls).toEqual([filename]);
    const third = transformCounting();
    runtime.keptTransform(third.cache, third.transform)(filename, { instrument: true });
    expect(third.calls).toEqual([filename]);
  });

  it("never keeps Jest's internal modules", () => {
    const filename = path.join(folder, 'internal.js');
    writeFileSync(filename, 'module.exports = 1;');
    const first = transformCounting();
    runtime.keptTransform(first.cache, first.transform)(filename, { isInternalModule: true });
    runtime.keptTransform(first.cache, first.transform)(filename, { isInternalModule: true });
    expect(first.calls).toEqual([filename, filename]);
  });
});

describe('packages loaded once per worker process', () => {
  /** `name` as a module registry of its own loads it: what the next test file in this worker process gets. */
  function inFreshRegistry(name: string): unknown {
    let loaded: unknown;
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      loaded = require(name);
    });
    return loaded;
  }

  it("gives every test file the same copy of Temporal's protobuf definitions and their library, Node's own", () => {
    for (const name of ['@temporalio/proto', 'protobufjs/light', 'long']) {
      expect(runtime.sharedFile(__filename, name)).toBe(require.resolve(name));
      expect(inFreshRegistry(name)).toBe(inFreshRegistry(name));
    }
  });

  it('gives each test file a fresh copy of every other package', () => {
    for (const name of ['zod', '@temporalio/common', 'protobufjs-like', './test-runtime.js']) {
      expect(runtime.sharedFile(__filename, name)).toBeUndefined();
    }
    expect(inFreshRegistry('zod')).not.toBe(inFreshRegistry('zod'));
  });
});

describe('the async-local storages a test file put to use', () => {
  /** Node's AsyncLocalStorage as far as enabling goes: joins the process's list on first use, leaves it when disabled. */
  function storageClass() {
    const list: object[] = [];
    class Storage {
      enabled = false;
      _enable() {
        if (!this.enabled) list.push(this);
        this.enabled = true;
      }
      run<T>(value: unknown, callback: () => T): T {
        this._enable();
        return callback();
      }
      disable() {
        if (this.enabled) list.splice(list.indexOf(this), 1);
        this.enabled = false;
      }
    }
    return { Storage, list };
  }

  it('are taken out of the list every promise is handed to when the file ends, and a later use puts one back', () => {
    const { Storage, list } = storageClass();
    const storages = runtime.trackEnabledStorages(Storage.prototype);
    const used = [new Storage(), new Storage()];
    const unused = new Storage();
    for (const storage of used) storage.run(1, () => undefined);
    expect([...storages]).toEqual(used);
    expect(list).toHaveLength(2);

    runtime.disableStorages(storages);
    expect(list).toEqual([]);
    expect(storages.size).toBe(0);
    expect(unused.enabled).toBe(false);

    used[0]!.run(2, () => undefined);
    expect(list).toEqual([used[0]]);
    expect([...storages]).toEqual([used[0]]);
  });

  it("records Node's own storages once per process, however many copies of the runtime load", () => {
    const storages = runtime.trackEnabledStorages(AsyncLocalStorage.prototype);
    expect(runtime.trackEnabledStorages(AsyncLocalStorage.prototype)).toBe(storages);
    const storage = new AsyncLocalStorage<number>();
    expect(storage.run(7, () => storage.getStore())).toBe(7);
    expect(storages.has(storage)).toBe(true);
    // Only this one: the test file's others (jest-circus's own) stay in use until the file ends.
    storages.delete(storage);
    storage.disable();
    expect(storage.getStore()).toBeUndefined();
  });
});
