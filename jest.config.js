/** @type {import('jest').Config} */
module.exports = {
  // Node's environment, which with coverage on maps each test file's coverage to the sources and adds its workflow
  // coverage (test/support/coverage-environment.ts).
  testEnvironment: '<rootDir>/test/support/coverage-environment.ts',
  // With coverage on, gives in-process workers the sink that the instrumented workflow bundle reports through.
  setupFilesAfterEnv: ['<rootDir>/test/support/workflow-coverage/sink.ts'],
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': 'ts-jest',
    // @noble's packages are ES modules only (the workflow sandbox verifies decision signatures with them).
    '^.+/node_modules/@noble/.+\\.js$': ['ts-jest', { tsconfig: { allowJs: true } }],
    // ai 7, @ai-sdk/* and what they import are ES modules only too: each such file becomes CommonJS.
    '^.+/node_modules/.+\\.m?js$': '<rootDir>/test/support/esm-to-cjs.js',
  },
  transformIgnorePatterns: [],
  // The docs' examples import the package by its name, as an application would (tsconfig.json's paths say the same).
  moduleNameMapper: {
    '^tollgate$': '<rootDir>/src/index.ts',
    '^tollgate/testing$': '<rootDir>/src/testing/index.ts',
    '^tollgate/workflows$': '<rootDir>/src/workflows/index.ts',
  },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 60_000,
  // Three test files at a time on CI's two cores: much of a file's time is spent waiting (for servers to start, for
  // timers, heartbeat timeouts and restarts), and with two at a time the CPU stood idle a quarter of the run.
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
