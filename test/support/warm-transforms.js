// Jest's transform cache, filled once before the test files start (the global set-up runs this in a worker thread,
// beside the bundling). Plain CommonJS: it runs in a worker thread, outside Jest's module system.
//
// With Jest's cache cold (a fresh clone, as CI has), every Jest worker process transforms and instruments each module
// of src/ and test/support/ the first time one of its test files loads it, and the three workers do it side by side
// for the same modules at the start of the run. Here each is done once, with the options Jest's runtime uses, so the
// workers find it in the cache under the same key. Nothing depends on it: a module it missed, or one whose key came
// out differently, is transformed by the worker as before.
const { readdirSync, readFileSync, statSync } = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const { parentPort, workerData } = require('node:worker_threads');

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

/** The TypeScript modules under `folder` that tests load, test files excepted (each is loaded by one worker only). */
function modulesUnder(folder) {
  return readdirSync(folder).flatMap((name) => {
    const file = path.join(folder, name);
    if (statSync(file).isDirectory()) return name === 'node_modules' ? [] : modulesUnder(file);
    return /\.ts$/.test(name) && !/\.(d|test)\.ts$/.test(name) ? [file] : [];
  });
}

/** A JSON text of `options` with its keys in order, to compare two sets of options by. */
function optionsKey(options) {
  return JSON.stringify(Object.fromEntries(Object.entries(options).sort(([a], [b]) => (a < b ? -1 : 1))));
}

/** Transforms every module of `folders` into Jest's cache; returns how many, and the ones that failed (by name). */
async function warmTransforms(globalConfig, projectConfig, folders) {
  const { createScriptTransformer } = require('@jest/transform');
  const transformer = await createScriptTransformer(projectConfig);
  const options = transformOptions(globalConfig);
  const failed = [];
  let count = 0;
  for (const file of folders.flatMap(modulesUnder)) {
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

if (parentPort && workerData?.warmTransforms) {
  const { globalConfig, projectConfig, folders } = workerData.warmTransforms;
  warmTransforms(globalConfig, projectConfig, folders).then(
    (result) => parentPort.postMessage(result),
    (error) => parentPort.postMessage({ error: String(error?.stack ?? error) }),
  );
}

module.exports = { optionsKey, transformOptions, warmTransforms };
