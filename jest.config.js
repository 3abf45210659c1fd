const { readdirSync, readFileSync } = require('node:fs');
const path = require('node:path');

/** What both sets of tests share: how TypeScript and ES-module packages load, and the runtime and environment. */
const shared = {
  rootDir: __dirname,
  // Node's environment, which with coverage on maps each test file's coverage to the sources and adds its workflow
  // coverage (test/support/coverage-environment.ts).
  testEnvironment: '<rootDir>/test/support/coverage-environment.ts',
  roots: ['<rootDir>/test'],
  transform: {
    // The project's TypeScript, through esbuild with tsconfig.json's options (types are checked by `npm run typecheck`).
    '^.+\\.ts$': '<rootDir>/test/support/typescript-transform.js',
    // ai 7, @ai-sdk/*, @noble/* (the workflow sandbox verifies decision signatures with them) and what they import are
    // ES modules only: each such file becomes CommonJS.
    '^.+/node_modules/.+\\.m?js$': '<rootDir>/test/support/esm-to-cjs.js',
  },
  // Only ES-module packages go through a transform: every other file under node_modules is loaded as it is. Sending
  // all of node_modules through a transformer (even one that returns CommonJS unchanged) made Jest hash and cache
  // every file of Temporal's SDK, the AWS SDK and the rest, in every test file.
  transformIgnorePatterns: [notAnEsModulePackage()],
  // Jest's runtime, parsing each module once per worker process instead of once per test file, and passing coverage on
  // without a second copy (test/support/test-runtime.js).
  runtime: '<rootDir>/test/support/test-runtime.js',
};

// The docs' examples import the package by its name, as an application would (tsconfig.json's paths say the same).
const packageNames = {
  '^tollgate$': '<rootDir>/src/index.ts',
  '^tollgate/testing$': '<rootDir>/src/testing/index.ts',
  '^tollgate/workflows$': '<rootDir>/src/workflows/index.ts',
};

/**
 * `npm test` runs two sets, side by side in the same Jest workers, with one coverage report:
 *
 * - `unit`: the `*.unit.test.ts` files, each a pure rule, with no Temporal, no model server and no other process. A unit
 *   test file that loads Temporal's client, worker or test kit, or the integration tests' shared set-up (test
 *   environment, worker processes, SMTP and Slack test servers), fails at once with the reason
 *   (test/support/no-temporal-in-unit-tests.js), so the set cannot drift into integration tests that pass only by luck.
 *   `npm run test:unit` runs this set alone, in seconds: no global set-up, and 5 s a test.
 * - `integration`: every other `*.test.ts`, on the Temporal dev server and workflow bundle of the global set-up.
 *
 * @type {import('jest').Config}
 */
module.exports = {
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: ['**/*.unit.test.ts'],
      moduleNameMapper: {
        '^@temporalio/(client|worker|testing)$': '<rootDir>/test/support/no-temporal-in-unit-tests.js',
        '/support/(test-environment|spawn-worker-process|worker-process|smtp-test-server|fake-slack-api)$':
          '<rootDir>/test/support/no-temporal-in-unit-tests.js',
        ...packageNames,
      },
    },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '\\.unit\\.test\\.ts$'],
      moduleNameMapper: packageNames,
      // With coverage on, gives in-process workers the sink that the instrumented workflow bundle reports through.
      setupFilesAfterEnv: ['<rootDir>/test/support/workflow-coverage/sink.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
  // Jest takes one timeout for the whole run: `npm run test:unit` gives its tests 5 s (package.json).
  testTimeout: 60_000,
  // Three test files at a time on CI's two cores: much of a file's time is spent waiting (for servers to start, for
  // timers, heartbeat timeouts and restarts), and with two at a time the CPU stood idle a quarter of the run. Four
  // gained 18 s on an idle machine but lost 25 s in CI beside the checks, burning 67 s more CPU.
  maxWorkers: 3,
  // How long a worker process may take to exit once its last test file is done. No handle stays open (the event loop
  // is empty when Jest asks a worker to end), but a worker that ran many Temporal test files holds about 1 GB of
  // heap, and freeing it as the process exits takes 0.4-0.5 s on an idle machine, more on a busy one: over Jest's
  // default of 0.5 s, which Jest reports as "A worker process has failed to exit gracefully". A handle left open
  // still shows: such a worker never exits, and Jest reports it after this time.
  workerGracefulExitTimeout: 3_000,
  // Test names and failures; Temporal's own logs go to .tollgate/test-logs/ (one file per test file).
  verbose: true,
  // `npm test -- --coverage` (as .ci/run does): workflow code runs from the bundle built in the global set-up, inside
  // the worker's sandbox; with coverage on, that bundle is instrumented and in-process workers report what ran
  // (test/support/workflow-coverage/sink.ts). Workers in child processes are not measured.
  collectCoverageFrom: ['src/**/*.ts'],
  coverageDirectory: '<rootDir>/coverage',
  coverageReporters: ['text-summary', 'json-summary', 'lcov'],
  coverageThreshold: { global: { lines: 85 } },
};

/**
 * A pattern for files under node_modules that are not in an ES-module package (nearest package.json says "type":
 * "module"), nor .mjs files: Jest loads those without a transform. The packages are found when Jest reads this file,
 * so an update that makes a dependency ES-module only needs no change here.
 */
function notAnEsModulePackage() {
  const folders = [];
  const visit = (folder, relative, depth) => {
    let type;
    try {
      type = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')).type;
    } catch {
      // a folder without a readable package.json: not a package
    }
    if (type === 'module') folders.push(relative);
    if (depth < 4) visitModules(path.join(folder, 'node_modules'), `${relative}/node_modules`, depth + 1);
  };
  const visitModules = (folder, relative, depth) => {
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.') || !(entry.isDirectory() || entry.isSymbolicLink())) continue;
      const child = path.join(folder, entry.name);
      if (!entry.name.startsWith('@')) {
        visit(child, `${relative}/${entry.name}`, depth);
        continue;
      }
      let scoped = [];
      try {
        scoped = readdirSync(child);
      } catch {
        // not a folder
      }
      for (const name of scoped) visit(path.join(child, name), `${relative}/${entry.name}/${name}`, depth);
    }
  };
  visitModules(path.join(__dirname, 'node_modules'), '', 0);
  const escaped = folders.map((folder) => folder.slice(1).replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return `^(?!.*/node_modules/(?:${escaped.join('|')})/)(?!.*\\.mjs$).*/node_modules/`;
}
