// Jest's runtime (jest.config.js `runtime`) with two costs taken out of every test file. Plain CommonJS: Jest
// requires it with Node's own `require`.
//
// - V8's code cache, kept for the life of each Jest worker process. Jest gives every test file its own module
//   registry, so a worker that runs forty test files compiled Temporal's SDK, zod, fastify, the AWS SDK and all of src
//   forty times: Jest compiles with vm.compileFunction, which V8's in-memory compilation cache does not serve. Here the
//   first compilation of a module in a worker also produces V8's code cache for it, and later compilations of the
//   same source (same file, same content hash) start from it. What runs is unchanged: each test file still gets fresh
//   module instances in its own context; only the parsing is shared.
// - The deep copy of a test file's coverage. Jest copies the test context's `__coverage__` property by property
//   before sending it on; test/support/coverage-environment.ts already hands over a fresh object that nothing in the
//   test file can reach any more, and copying it took about half a second per test file.
const vm = require('node:vm');
const { createHash } = require('node:crypto');
const Runtime = require('jest-runtime').default;

/** Marks the object test/support/coverage-environment.ts hands over (a symbol: never serialized with it). */
const handedOver = Symbol.for('tollgate.test.coverageHandedOver');

const compileFunction = vm.compileFunction;
/** file name -> the content hash of the source it was compiled from, and V8's cache for it */
const compiled = new Map();

vm.compileFunction = function compileFunctionWithCodeCache(code, params, options) {
  const filename = options?.filename;
  if (typeof filename !== 'string' || typeof code !== 'string' || options.cachedData || options.produceCachedData) {
    return compileFunction.call(vm, code, params, options);
  }
  const hash = createHash('sha1').update(code).digest('base64');
  const known = compiled.get(filename);
  if (known?.hash === hash) {
    const fn = compileFunction.call(vm, code, params, { ...options, cachedData: known.cache });
    // V8 refuses a cache made under other flags: compiled from source then, and a new cache made next time.
    if (fn.cachedDataRejected) compiled.delete(filename);
    return fn;
  }
  const fn = compileFunction.call(vm, code, params, { ...options, produceCachedData: true });
  if (fn.cachedData) compiled.set(filename, { hash, cache: fn.cachedData });
  return fn;
};

class TestRuntime extends Runtime {
  getAllCoverageInfoCopy() {
    const coverage = this._environment.global.__coverage__;
    // Only the environment's own hand-over is passed on uncopied; anything else is copied as Jest would.
    return coverage?.[handedOver] ? coverage : super.getAllCoverageInfoCopy();
  }
}

module.exports = TestRuntime;
