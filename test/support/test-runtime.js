// Jest's runtime (jest.config.js `runtime`) with costs taken out of every test file. Plain CommonJS: Jest requires it
// with Node's own `require`.
//
// Jest gives every test file its own module registry, so a Jest worker process that runs forty test files loads
// Temporal's SDK, zod, fastify, the AWS SDK and all of src forty times, and before running each module it redid, for
// every test file, work whose result cannot differ within one run. That work is now done once per worker process:
//
// - Compiling: Jest compiles each module with vm.compileFunction, which V8's in-memory cache does not serve. Here it
//   is compiled as a script of the same function (same lines and columns), and when a second test file compiles the
//   same source, V8's code cache is made from the first one's script: by then it holds every function the first file
//   ran, where a cache made at compile time holds only the top-level code. Later compilations start from that cache.
// - Resolving: where `require(x)` from a file leads (Jest keeps this per test file). A module that is not found is
//   not remembered.
// - Transforming: reading the file, hashing it to find Jest's cached transform, reading that and its source map
//   comment. The result is kept per file and transform options, and used again while the file's size and
//   modification time are the same.
//
// What runs is unchanged: each test file still gets fresh module instances in its own context, from the same code —
// but for Temporal's protobuf definitions and the library that reads them (`sharedPackage`), which Node itself loads
// once per worker process: they hold no state of a test file's, and building their root and each message type's
// encoder and decoder again took a third of a second of every test file that talks to Temporal.
//
// It also ends, with each test file, the AsyncLocalStorage instances the file's modules put to use (Temporal's
// activity context, jest-circus's test context, ...). Node keeps every such instance in one list for the whole process
// until it is disabled, and each new promise or other async resource is handed to every instance in the list: left
// alone, a Jest worker's list grows by about four with each Temporal test file, and its hundredth file pays every
// promise a hundred times over (one million awaits: 0.4 s of CPU beside one instance, 19 s beside 120). Measured: a
// tenth less CPU for a run in one process (`--runInBand`); no difference that shows in the default run of three
// workers (docs/testing.md).
//
// It also hands a test file's coverage to Jest without Jest's deep copy: test/support/coverage-environment.ts already
// hands over a fresh object that nothing in the test file can reach any more, and copying it took about half a second
// per test file.
const { AsyncLocalStorage } = require('node:async_hooks');
const vm = require('node:vm');
const { statSync } = require('node:fs');
const path = require('node:path');
const Runtime = require('jest-runtime').default;
const { optionsKey } = require('./warm-transforms');

/** Marks the object test/support/coverage-environment.ts hands over (a symbol: never serialized with it). */
const handedOver = Symbol.for('tollgate.test.coverageHandedOver');

const compileFunction = vm.compileFunction;
/** file name -> the source it was compiled from, and V8's cache for it (or the first script, until it is made) */
const compiled = new Map();

/** vm.compileFunction through V8's code cache: see the top of this file. */
function compileWithCodeCache(code, params, options) {
  const filename = options?.filename;
  if (
    typeof filename !== 'string' ||
    typeof code !== 'string' ||
    !options.parsingContext ||
    options.cachedData ||
    options.produceCachedData ||
    options.contextExtensions
  ) {
    return compileFunction.call(vm, code, params, options);
  }
  let known = compiled.get(filename);
  if (known && known.code !== code) known = undefined;
  if (known?.script) {
    known.cache = known.script.createCachedData();
    known.script = undefined;
  }
  // The function's header on a line of its own, before the first (lineOffset -1): stack traces and source maps see the
  // module's own lines and columns, as with compileFunction.
  const script = new vm.Script(`(function (${(params ?? []).join(', ')}) {\n${code}\n})`, {
    filename,
    lineOffset: -1,
    cachedData: known?.cache,
    importModuleDynamically: options.importModuleDynamically,
  });
  if (!known || script.cachedDataRejected) compiled.set(filename, { code, script });
  return script.runInContext(options.parsingContext);
}
// Once per process: a second copy of this file (its unit test's) leaves the first in place.
const patched = Symbol.for('tollgate.test.compileWithCodeCache');
if (!vm.compileFunction[patched]) vm.compileFunction = Object.assign(compileWithCodeCache, { [patched]: true });

/** Whether later compilations of `filename` start from V8's code cache (for the unit test beside this file). */
function hasCodeCache(filename) {
  return compiled.get(filename)?.cache !== undefined;
}

/** `from\0request` -> the file it resolved to, for every test file this worker runs (Jest's own key and value). */
const resolved = new Map();
/** file name and transform options -> the file's size and modification time, and Jest's transform of it */
const transformed = new Map();

/**
 * Records each AsyncLocalStorage put to use (`run` or `enterWith` enables it) in this process from now on, in the set
 * returned; once per process, however many copies of this file load.
 */
function trackEnabledStorages(prototype) {
  const tracked = Symbol.for('tollgate.test.enabledStorages');
  if (!prototype[tracked]) {
    const storages = new Set();
    const enable = prototype._enable;
    // Node's own method, the one place an instance joins the process's list (Node 20's async_hooks implementation; one
    // without it keeps no such list, and there is nothing to end).
    if (typeof enable !== 'function') return storages;
    prototype._enable = function trackedEnable(...args) {
      if (!this.enabled) storages.add(this);
      return enable.apply(this, args);
    };
    prototype[tracked] = storages;
  }
  return prototype[tracked];
}

/** Takes `storages` out of Node's list: their values are gone, and a later `run` puts one back, as for a new one. */
function disableStorages(storages) {
  for (const storage of storages) storage.disable();
  storages.clear();
}

/** The storages the running test file put to use: see the top of this file. */
const enabledStorages = trackEnabledStorages(AsyncLocalStorage.prototype);

class TestRuntime extends Runtime {
  constructor(...args) {
    super(...args);
    // Jest's internals as of the version package-lock.json pins; with another shape, Jest's own behaviour stays.
    if (this._resolution?.cjsCache instanceof Map) this._resolution.cjsCache = resolved;
    const cache = this.transformCache;
    if (typeof cache?.transform === 'function' && cache.transforms instanceof Map && cache.sourceMaps instanceof Map) {
      const transform = cache.transform.bind(cache);
      cache.transform = keptTransform(cache, (filename, options) => {
        checkWarmedOptions(filename, () => this._getFullTransformationOptions(options));
        return transform(filename, options);
      });
    }
  }

  /**
   * The packages of {@link sharedPackage} come from Node's own `require`: loaded once per worker process, outside the
   * test files' registries. See the top of this file.
   */
  requireModuleOrMock(from, moduleName) {
    const shared = sharedFile(from, moduleName);
    return shared ? require(shared) : super.requireModuleOrMock(from, moduleName);
  }

  /** After the test file: its workers are stopped and its modules are let go; so are the storages it put to use. */
  teardown() {
    disableStorages(enabledStorages);
    super.teardown();
  }

  getAllCoverageInfoCopy() {
    const coverage = this._environment.global.__coverage__;
    // Only the environment's own hand-over is passed on uncopied; anything else is copied as Jest would.
    return coverage?.[handedOver] ? coverage : super.getAllCoverageInfoCopy();
  }
}

/**
 * Temporal's protobuf definitions and the library that reads them: building their root and generating each message
 * type's encoder and decoder took a third of a second of every Temporal test file, and none of it can differ between
 * test files. Their objects hold no per-file state, and what crosses between them and a test file's modules is
 * messages, Buffers and Uint8Arrays (the outer realm's in Jest's Node environment too) and functions.
 */
const sharedPackage = /^(?:@temporalio\/proto|protobufjs|@protobufjs\/[^/]+|long)(?:\/|$)/;
/** `from\0request` -> the file Node resolves a shared package's request to, or null for any other request */
const sharedFiles = new Map();

function sharedFile(from, moduleName) {
  if (!sharedPackage.test(moduleName)) return undefined;
  const key = `${from}\0${moduleName}`;
  let file = sharedFiles.get(key);
  if (file === undefined) {
    file = require.resolve(moduleName, { paths: [path.dirname(from)] });
    sharedFiles.set(key, file);
  }
  return file;
}

let warmedOptionsChecked = false;

/**
 * Warns, once per worker process, when the global set-up filled Jest's transform cache (test/support/warm-transforms.js)
 * with options other than those this runtime transforms the project's modules with: the cache keys then differ, and
 * every worker transforms every module again, as without the set-up's pass. Jest's internals moved if so.
 */
function checkWarmedOptions(filename, fullOptions) {
  const warmed = process.env.TOLLGATE_TEST_WARMED_TRANSFORM_OPTIONS;
  if (warmedOptionsChecked || !warmed || !filename.startsWith(sourceFolder)) return;
  warmedOptionsChecked = true;
  const options = fullOptions();
  // A run of changed files only (`jest -o`) instruments by what changed, which the pass cannot know: nothing to check.
  if (options.changedFiles !== undefined || options.sourcesRelatedToTestsInChangedFiles !== undefined) return;
  const used = optionsKey(options);
  if (used !== warmed) {
    console.warn(
      "test/support/warm-transforms.js filled Jest's transform cache with other options than Jest's runtime uses, so " +
        `the test files transform every module again: update its transformOptions().\nWarmed: ${warmed}\nUsed:   ${used}`,
    );
  }
}
const sourceFolder = path.resolve(__dirname, '../../src') + path.sep;

/** Jest's TransformCache.transform for one test file, through {@link transformed}. */
function keptTransform(cache, transform) {
  return (filename, options) => {
    if (options?.isInternalModule) return transform(filename, options);
    const key = `${filename}\0${JSON.stringify(options ?? {})}`;
    const stat = statSync(filename, { throwIfNoEntry: false });
    const known = transformed.get(key);
    let file = known && stat && known.size === stat.size && known.mtimeMs === stat.mtimeMs ? known.file : undefined;
    if (file) {
      // What Jest's own transform records for the test file (coverage and stack traces read these).
      cache.transforms.set(filename, file);
      if (file.sourceMapPath) cache.sourceMaps.set(filename, file.sourceMapPath);
      return file.code;
    }
    const code = transform(filename, options);
    file = cache.transforms.get(filename);
    if (stat && file?.code === code) transformed.set(key, { size: stat.size, mtimeMs: stat.mtimeMs, file });
    return code;
  };
}

module.exports = TestRuntime;
// For test/support/test-runtime.unit.test.ts.
Object.assign(module.exports, {
  compileWithCodeCache,
  disableStorages,
  hasCodeCache,
  keptTransform,
  sharedFile,
  trackEnabledStorages,
});
