// `npm run test:unit`: the unit tests only, in seconds. A unit test is a file named `*.unit.test.ts`: it tests a
// pure rule and needs no Temporal, no model server and no other process. `npm test` (jest.config.js) runs these
// files too, with everything else.
//
// Nothing here starts Temporal (no global set-up), and a unit test file that loads Temporal's client, worker or
// test kit, or the shared set-up of integration tests (test environment, worker processes, SMTP and Slack test
// servers), fails at once with the reason (test/support/no-temporal-in-unit-tests.js), so the set cannot drift
// into integration tests that pass here only by luck.
const base = require('./jest.config');

/** @type {import('jest').Config} */
module.exports = {
  roots: base.roots,
  transform: base.transform,
  runtime: base.runtime,
  transformIgnorePatterns: base.transformIgnorePatterns,
  testEnvironment: 'node',
  testMatch: ['**/*.unit.test.ts'],
  moduleNameMapper: {
    '^@temporalio/(client|worker|testing)$': '<rootDir>/test/support/no-temporal-in-unit-tests.js',
    '/support/(test-environment|spawn-worker-process|worker-process|smtp-test-server|fake-slack-api)$':
      '<rootDir>/test/support/no-temporal-in-unit-tests.js',
  },
  // A unit test answers in milliseconds; one that waits this long is not one.
  testTimeout: 5_000,
  verbose: true,
};
