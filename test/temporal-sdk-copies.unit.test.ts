import { temporalSdkCopies } from '../src/temporal-sdk-copies';

describe('temporalSdkCopies', () => {
  it('finds a package of the Temporal SDK loaded from two folders (a nested or linked tollgate)', () => {
    expect(
      temporalSdkCopies([
        '/app/node_modules/@temporalio/worker/lib/index.js',
        '/app/node_modules/@temporalio/worker/lib/worker.js',
        '/app/node_modules/@temporalio/client/lib/index.js',
        '/src/tollgate/node_modules/@temporalio/worker/lib/index.js',
        '/src/tollgate/node_modules/@temporalio/client/lib/index.js',
      ]),
    ).toEqual({
      '@temporalio/worker': ['/app/node_modules/@temporalio/worker', '/src/tollgate/node_modules/@temporalio/worker'],
    });
  });

  it('finds nothing when each package is loaded from one folder', () => {
    expect(
      temporalSdkCopies([
        '/app/node_modules/@temporalio/worker/lib/index.js',
        '/app/node_modules/@temporalio/core-bridge/index.js',
        '/app/node_modules/tollgate/dist/worker.js',
        '/app/node_modules/@temporalio/workflow/lib/index.js',
      ]),
    ).toEqual({});
  });
});
