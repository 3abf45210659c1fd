// A webpack loader for the workflow bundle under `--coverage` (test/support/global-setup.ts): instruments a module
// with istanbul, as @temporalio/nyc-test-coverage's loader does, and keeps the module's empty coverage record (its
// statement, function and branch maps, and the source map back to TypeScript) in `globalThis[templatesGlobal]`.
// The global set-up writes those records to a file, so the sandbox needs to send only counters that moved
// (sandbox-interceptor.ts) and each test file's sink rebuilds whole records from the file (sink.ts).
//
// Plain CommonJS: webpack's loader runner requires it with Node's own `require`, not Jest's.
'use strict';
const { createInstrumenter } = require('istanbul-lib-instrument');

const templatesGlobal = '__tollgateWorkflowCoverageTemplates__';

/** @this {{ resourcePath: string, callback: (error: Error | null, code?: string, map?: unknown) => void }} */
module.exports = function instrumentWorkflowModule(source, sourceMap) {
  const inputSourceMap = typeof sourceMap === 'string' ? JSON.parse(sourceMap) : sourceMap;
  const instrumenter = createInstrumenter({ esModules: true, produceSourceMap: true });
  instrumenter.instrument(
    source,
    this.resourcePath,
    (error, instrumented) => {
      if (!error) {
        const templates = (globalThis[templatesGlobal] ??= {});
        const record = instrumenter.lastFileCoverage();
        templates[record.path] = record;
      }
      this.callback(error, instrumented, instrumenter.lastSourceMap());
    },
    inputSourceMap ?? undefined,
  );
};
module.exports.templatesGlobal = templatesGlobal;
