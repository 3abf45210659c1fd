// A webpack loader for the workflow bundle under `--coverage` (test/support/global-setup.ts): instruments a module
// with istanbul, as @temporalio/nyc-test-coverage's loader does, and keeps the module's empty coverage record (its
// statement, function and branch maps, and the source map back to TypeScript) in `globalThis[templatesGlobal]`.
// The global set-up writes those records to a file, so the module's code keeps only its counters
// (`withCountersOnly`), the sandbox sends only counters that moved (sandbox-interceptor.ts), and each test file's
// sink rebuilds whole records from the file (sink.ts).
//
// Plain CommonJS: webpack's loader runner requires it with Node's own `require`, not Jest's.
'use strict';
const { createInstrumenter } = require('istanbul-lib-instrument');

const templatesGlobal = '__tollgateWorkflowCoverageTemplates__';

/** Where the sandbox's `__coverage__` keeps the records of modules loaded after the context was frozen. */
const lateRecordsKey = '__tollgateLateCoverageRecords__';

/**
 * Run first in every instrumented module: from then on, each istanbul record put into the sandbox's `__coverage__`
 * keeps its counters in typed arrays. Workflow modules are preloaded into the worker's reusable V8 context, which
 * then deep-freezes everything its globals reach, istanbul's records included; plain counter objects would be read
 * only ("Cannot assign to read only property"), but typed arrays with elements cannot be frozen and so keep
 * counting. A module loaded later, inside one workflow (a deferred require), finds `__coverage__` frozen: its record
 * is kept aside, under `lateRecordsKey`, and shared by every workflow that loads the module after it. Indices are
 * istanbul's own counter keys ("0", "1", ...).
 */
const countersInArrays = `(globalThis.__coverage__ || (globalThis.__coverage__ = (() => {
  const late = new Map();
  const inArray = (counters) => { const keys = Object.keys(counters); const array = new Uint32Array(keys.length === 0 ? 0 : Math.max(...keys.map(Number)) + 1); for (const key of keys) array[key] = counters[key]; return array; };
  const counting = (record) => { record.s = inArray(record.s); record.f = inArray(record.f); for (const key of Object.keys(record.b)) record.b[key] = Uint32Array.from(record.b[key]); return record; };
  return new Proxy({}, {
    set(records, path, record) { if (Object.isExtensible(records)) records[path] = counting(record); else if (!late.has(path)) late.set(path, counting(record)); return true; },
    get(records, path) { return path === '${lateRecordsKey}' ? late : path in records ? records[path] : late.get(path); },
  });
})()));`.replace(/\n\s*/g, ' ');

/**
 * The instrumented module with the record it puts into the sandbox cut down to what the sandbox uses: its path, hash
 * and counters. istanbul writes the whole record into the code (statement, function and branch maps, and the source
 * map with the module's source text), which made the bundle three times its size and every worker evaluate and
 * deep-freeze all of it; the template file carries the maps instead. The record is the literal between
 * `var coverageData=` and `;var coverage=global[gcv]`, once per module.
 */
function withCountersOnly(instrumented, record) {
  const start = 'var coverageData=';
  const end = ';var coverage=global[gcv]';
  const from = instrumented.indexOf(start);
  const to = instrumented.indexOf(end, from);
  if (from < 0 || to < 0 || instrumented.indexOf(start, from + 1) >= 0) {
    throw new Error(`${record.path}: istanbul's instrumented code no longer has the record this loader cuts down.`);
  }
  const zeros = (counters) => Object.fromEntries(Object.keys(counters).map((key) => [key, 0]));
  const branches = Object.fromEntries(Object.entries(record.b).map(([key, counts]) => [key, counts.map(() => 0)]));
  const counters = JSON.stringify({ path: record.path, s: zeros(record.s), f: zeros(record.f), b: branches });
  // `hash` is the variable istanbul's code declares just before the record, and compares on a module's next load.
  return `${instrumented.slice(0, from + start.length)}${counters.slice(0, -1)},hash:hash}${instrumented.slice(to)}`;
}

/** @this {{ resourcePath: string, callback: (error: Error | null, code?: string, map?: unknown) => void }} */
module.exports = function instrumentWorkflowModule(source, sourceMap) {
  const inputSourceMap = typeof sourceMap === 'string' ? JSON.parse(sourceMap) : sourceMap;
  const instrumenter = createInstrumenter({ esModules: true, produceSourceMap: true });
  instrumenter.instrument(
    source,
    this.resourcePath,
    (error, instrumented) => {
      if (error) return this.callback(error);
      const templates = (globalThis[templatesGlobal] ??= {});
      const record = instrumenter.lastFileCoverage();
      templates[record.path] = record;
      // On a line of its own before istanbul's: the source map gets one empty line in front to match.
      const map = instrumenter.lastSourceMap();
      this.callback(null, `${countersInArrays}\n${withCountersOnly(instrumented, record)}`, {
        ...map,
        mappings: `;${map.mappings}`,
      });
    },
    inputSourceMap ?? undefined,
  );
};
module.exports.templatesGlobal = templatesGlobal;
module.exports.lateRecordsKey = lateRecordsKey;
