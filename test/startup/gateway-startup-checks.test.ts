import path from 'node:path';
import { TollgateClient } from '../../src/client';
import { createGateway } from '../../src/gateway/create-gateway';
import { DecisionAudit } from '../../src/gateway/decisions/decision-audit';
import { FileContentStore } from '../../src/store';
import { testTokenGrants } from '../gateway/gateway-fixture';
import { createTestEnvironment, type TestEnvironment } from '../support/test-environment';
import { temporaryFolder } from '../support/temporary-folder';

// A gateway embedded in an application, configured in code: its start-up checks take the tools' workspace from
// `createGateway`'s options and the content store from its client, and read nothing from the environment.

let environment: TestEnvironment;
const tokens = testTokenGrants();
const savedWorkspace = process.env.TOLLGATE_WORKSPACE;

beforeAll(async () => {
  environment = await createTestEnvironment({ tools: [], startWorker: false });
});
afterAll(async () => {
  await environment?.close();
});
beforeEach(() => {
  // A workspace the environment names elsewhere: the checks must not be led by it.
  process.env.TOLLGATE_WORKSPACE = temporaryFolder('tollgate-other-workspace-');
});
afterEach(() => {
  if (savedWorkspace === undefined) delete process.env.TOLLGATE_WORKSPACE;
  else process.env.TOLLGATE_WORKSPACE = savedWorkspace;
});

function clientWithStore(folder: string): TollgateClient {
  return new TollgateClient(environment.client, environment.taskQueue, undefined, new FileContentStore(folder));
}

describe('createGateway, configured in code', () => {
  it('refuses an audit file inside the workspace its options name, naming both', async () => {
    const workspace = temporaryFolder('tollgate-workspace-');
    const failure = await createGateway({
      tollgate: clientWithStore(temporaryFolder('tollgate-store-')),
      tokens,
      acceptUnsignedDecisions: true,
      audit: new DecisionAudit({ file: path.join(workspace, 'audit.jsonl') }),
      workspace,
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as Error).message).toContain(`the audit file (${path.join(workspace, 'audit.jsonl')}) is inside`);
    expect((failure as Error).message).toContain("keep the gateway's records where tools cannot reach");
  });

  it("refuses its client's folder content store inside or above that workspace", async () => {
    const workspace = temporaryFolder('tollgate-workspace-');
    for (const store of [path.join(workspace, 'store'), path.dirname(workspace)]) {
      const failure = await createGateway({
        tollgate: clientWithStore(store),
        tokens,
        acceptUnsignedDecisions: true,
        workspace,
      }).catch((error: unknown) => error);
      expect((failure as Error).message).toContain(`the client's content store (${store})`);
    }
  });

  it('starts with its records and store outside that workspace, whatever TOLLGATE_WORKSPACE says', async () => {
    // Both sit inside the workspace the environment names: only the option counts.
    const elsewhere = process.env.TOLLGATE_WORKSPACE!;
    const gateway = await createGateway({
      tollgate: clientWithStore(path.join(elsewhere, 'store')),
      tokens,
      acceptUnsignedDecisions: true,
      audit: new DecisionAudit({ file: path.join(elsewhere, 'audit.jsonl') }),
      workspace: temporaryFolder('tollgate-workspace-'),
    });
    try {
      expect((await gateway.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await gateway.close();
    }
  });
});
