// Stands in for Temporal's client, worker and test kit, and for the integration tests' shared set-up, in the `unit`
// project (jest.config.js; run by `npm test` and `npm run test:unit`): a unit test (`*.unit.test.ts`) must not reach
// Temporal or a test server, directly or through what it imports. Loading one of them fails the test file with this
// message instead of a connection error or a hang.
throw new Error(
  'A unit test (*.unit.test.ts) loaded a Temporal client, worker or test kit, or an integration test set-up. ' +
    'Unit tests check pure rules without Temporal or servers: import the rule, not what wires it, ' +
    'or rename the file to *.test.ts so that `npm test` runs it with the Temporal dev server.',
);
