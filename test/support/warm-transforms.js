// Jest's transform cache, filled once before the test files start (the global set-up runs this in a worker thread,
// beside the bundling). Plain CommonJS: it runs in a worker thread, outside Jest's module system.
//
// With Jest's cache cold (a fresh clone, as CI has), every Jest worker process transforms and instruments each module
// of src/ and test/support/ the first time one of its test files loads it, and the three workers do it side by side
// for the same modules at the start of the run. Here each is done once, with the options Jest's runtime uses, so the
// workers find it in the cache under the same key. Nothing depends on it: a module it missed, or one whose key came
// out differently, is transformed by the worker as before.
const { readFileSync } = require('node:fs');
const vm = require('node:vm');
const { isMainThread, parentPort, Worker, workerData } = require('node:worker_threads');

/**
 * The options jest-runtime transforms a CommonJS module with (its `defaultTransformOptions`, and the coverage options
 * jest-runner gives it). test/support/test-runtime.js checks them against the runtime's own in every run.
 */
function transformOptions(globalConfig) {
  return {
    isInternalModule: false,
    supportsDynamicImport: typeof vm.SyntheticModule === 'function',
    supportsExportNamespaceFrom: false,
    supportsStaticESM: false,
    supportsTopLevelAwait: false,
    changedFiles: globalConfig.changedFiles,
    collectCoverage: globalConfig.collectCoverage,
    collectCoverageFrom: globalConfig.collectCoverageFrom,
    coverageProvider: globalConfig.coverageProvider,
    globalRootDir: globalConfig.rootDir,
    sourcesRelatedToTestsInChangedFiles: globalConfig.sourcesRelatedToTestsInChangedFiles,
  };
}

/** A JSON text of `options` with its keys in order, to compare two sets of options by. */
function optionsKey(options) {
  return JSON.stringify(Object.fromEntries(Object.entries(options).sort(([a], [b]) => (a < b ? -1 : 1))));
}

/** Transforms each of `files` into Jest's cache; returns how many, the ones that failed, and the options used. */
async function warmTransforms(globalConfig, projectConfig, files) {
  const { createScriptTransformer } = require('@jest/transform');
  const transformer = await createScriptTransformer(projectConfig);
  const options = transformOptions(globalConfig);
  const failed = [];
  let count = 0;
  for (const file of files) {
    try {
      transformer.transform(file, options, readFileSync(file, 'utf8'));
      count += 1;
    } catch {
      // The worker that loads it transforms it again and reports the error where it belongs, in that test file.
      failed.push(file);
    }
  }
  return { count, failed, options: optionsKey(options) };
}

/**
 * {@link warmTransforms} in a worker thread of its own: the transforms are synchronous and would hold up the thread
 * that asked (the global set-up bundles beside it). Resolves with its result, or with `{ error }` if the thread failed.
 */
async function warmTransformsInThread(globalConfig, projectConfig, files) {
  const worker = new Worker(__filename, { workerData: { warmTransforms: { globalConfig, projectConfig, files } } });
  try {
    return await new Promise((resolve) => {
      worker.once('message', resolve);
      worker.once('error', (error) => resolve({ error: String(error?.stack ?? error) }));
    });
  } finally {
    await worker.terminate();
  }
}

if (!isMainThread && workerData?.warmTransforms) {
  const { globalConfig, projectConfig, files } = workerData.warmTransforms;
  warmTransforms(globalConfig, projectConfig, files).then(
    (result) => parentPort.postMessage(result),
    (error) => parentPort.postMessage({ error: String(error?.stack ?? error) }),
  );
}

module.exports = { optionsKey, transformOptions, warmTransforms, warmTransformsInThread };
