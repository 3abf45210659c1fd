import { GrantLedgerClient } from '../../../src/client';
import { GrantBook } from '../../../src/workflows/grants/grant-book';
import { grantLedgerWorkflowId, grantLedgerWorkflowType } from '../../../src/workflows/grants/grant-ledger-definitions';
import type { OperatorPolicy } from '../../../src/policy';
import type { GrantTerms } from '../../../src/protocol';
import { createTollgateWorker } from '../../../src/worker';
import { NativeConnection } from '@temporalio/worker';
import {
  createTestEnvironment,
  testApprovalSecret,
  uniqueMarker,
  waitFor,
  waitForPending,
  workflowBundlePath,
  type TestEnvironment,
} from '../../support/test-environment';
import { createTestTools } from '../../support/test-tools';

const policy: OperatorPolicy = {
  tools: {
    deploy: { approvers: ['ana'], grants: { maxUses: 5 } },
    transfer: { quorum: 2 },
    launch: { grants: false },
  },
};
const { tools, runs } = createTestTools();
let environment: TestEnvironment;
let grants: GrantLedgerClient;

beforeAll(async () => {
  environment = await createTestEnvironment({ tools, policy });
  grants = new GrantLedgerClient(environment.client, environment.taskQueue);
});
afterAll(async () => {
  await environment?.close();
});
// Each test starts with no grant in force: one test's grant must not cover the next test's calls.
afterEach(async () => {
  for (const grant of await grants.list())
    if (grant.revokedAt === undefined) await grants.revoke(grant.grantId, 'test');
});

/** A worker of this file's tools and policy beside the environment's own, on `on`'s task queue. */
function anotherWorker(on: TestEnvironment, connection: NativeConnection, missingLedgerMemoryMs?: number) {
  return createTollgateWorker({
    connection,
    taskQueue: on.taskQueue,
    tools,
    policy,
    approvalSecret: testApprovalSecret,
    acceptUnsignedDecisions: true,
    model: { baseURL: on.model.baseURL, apiKey: 'test', model: 'tollgate-scripted' },
    workflowBundle: { codePath: workflowBundlePath() },
    workerOptions: { shutdownGraceTime: '1s' },
    ...(missingLedgerMemoryMs !== undefined && { missingLedgerMemoryMs }),
  });
}

const runsOf = (toolCallId: string) => runs.filter((run) => run.toolCallId === toolCallId);
const everyone = { type: 'everyone' } as const;

/** A turn by `requester` whose model deletes `path`, then answers. */
async function deletingTurn(marker: string, path = 'tmp/cache', requester = 'bo', on = environment) {
  on.model.scriptFor(
    marker,
    { toolCalls: [{ id: `${marker}-del`, name: 'deleteFile', arguments: { path } }] },
    { text: 'done' },
  );
  return on.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} clean up` }], requester });
}

async function grantDeletes(terms: Partial<GrantTerms> = {}, by = 'ana') {
  return grants.grant({ person: by }, { tools: ['deleteFile'], scope: everyone, uses: 1, ...terms });
}

describe('standing grants', () => {
  it('lets a covered call run without asking, naming the grant and its giver in the audit, the transcript, the Temporal UI details and the ledger', async () => {
    const marker = uniqueMarker();
    const grant = await grantDeletes({ uses: 10, scope: { type: 'requester', requester: 'bo' } });
    const handle = await deletingTurn(marker);
    const result = await handle.result();
    expect(result.status).toBe('completed');
    expect(runsOf(`${marker}-del`)).toHaveLength(1);
    expect(result.audit).toEqual([
      expect.objectContaining({
        toolName: 'deleteFile',
        decision: 'approved',
        via: 'grant',
        approver: 'ana',
        grant: { grantId: grant.grantId, grantedBy: 'ana' },
        reason: `Approved by standing grant ${grant.grantId} from ana, use 1 of 10.`,
      }),
    ]);
    const response = result.messages
      .flatMap((message) => (message.role === 'tool' ? message.content : []))
      .find((part) => part.type === 'tool-approval-response');
    expect(response).toMatchObject({ approved: true, reason: expect.stringContaining(grant.grantId) });
    // The Temporal UI's details of the turn name the grant and who gave it.
    const metadata = (await handle.query('__temporal_workflow_metadata')) as { currentDetails?: string };
    expect(metadata.currentDetails).toContain(
      `- \`deleteFile\` \`tmp/cache\`: **approved** by standing grant \`${grant.grantId}\` given by \`ana\` at `,
    );
    const listed = (await grants.list()).find((entry) => entry.grantId === grant.grantId);
    expect(listed).toMatchObject({ used: 1, calls: [expect.objectContaining({ workflowId: handle.workflowId })] });
  });

  it("covers only what its scope, its constraints and the call's rights allow; the rest asks", async () => {
    const grant = await grantDeletes({
      uses: 10,
      constraints: [{ type: 'path-under', argument: 'path', folder: 'tmp' }],
    });
    const outside = await deletingTurn(uniqueMarker(), 'home/notes.txt');
    expect(await waitForPending(outside, 1)).toHaveLength(1);
    // The giver's own request is never covered by their grant.
    const own = await deletingTurn(uniqueMarker(), 'tmp/a', 'ana');
    expect(await waitForPending(own, 1)).toHaveLength(1);
    // A turn whose caller narrowed who may decide, leaving the giver out, asks too.
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-del`, name: 'deleteFile', arguments: { path: 'tmp/b' } }] },
      { text: 'done' },
    );
    const narrowed = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${marker} clean` }],
      requester: 'bo',
      approvalRules: { approvers: ['cy'] },
    });
    expect(await waitForPending(narrowed, 1)).toHaveLength(1);
    expect((await grants.list()).find((entry) => entry.grantId === grant.grantId)?.used).toBe(0);
    await Promise.all([outside, own, narrowed].map((handle) => handle.terminate('test over')));
  });

  it('counts the last use once when turns on two workers race for it: one runs, the others ask', async () => {
    const connection = await NativeConnection.connect({ address: environment.address });
    const second = await anotherWorker(environment, connection);
    const running = second.run();
    try {
      const grant = await grantDeletes({
        uses: 1,
        constraints: [{ type: 'one-of', argument: 'path', values: ['race'] }],
      });
      const markers = [uniqueMarker(), uniqueMarker(), uniqueMarker(), uniqueMarker()];
      const handles = await Promise.all(markers.map((marker) => deletingTurn(marker, 'race')));
      const outcomes = await Promise.all(
        handles.map((handle) =>
          waitFor(
            () => handle.query('agentTurnState') as Promise<{ status: string; audit: Array<{ via: string }> }>,
            (state) => state.status === 'completed' || state.status === 'awaiting-approval',
          ),
        ),
      );
      expect(outcomes.filter((state) => state.status === 'completed')).toHaveLength(1);
      expect(outcomes.filter((state) => state.status === 'awaiting-approval')).toHaveLength(3);
      expect(markers.flatMap((marker) => runsOf(`${marker}-del`))).toHaveLength(1);
      expect((await grants.list()).find((entry) => entry.grantId === grant.grantId)?.used).toBe(1);
      await Promise.all(handles.map((handle) => handle.terminate('test over').catch(() => undefined)));
    } finally {
      second.shutdown();
      await running;
      await connection.close();
    }
  });

  it('covers nothing once it expires or is revoked, also for a turn that was already running', async () => {
    const short = await grantDeletes({
      uses: undefined,
      forMs: 2000,
      constraints: [{ type: 'one-of', argument: 'path', values: ['expiring'] }],
    });
    expect((await (await deletingTurn(uniqueMarker(), 'expiring')).result()).audit[0]?.via).toBe('grant');
    await new Promise((resolve) => setTimeout(resolve, Date.parse(short.expiresAt as string) - Date.now() + 50));
    const late = await deletingTurn(uniqueMarker(), 'expiring');
    expect(await waitForPending(late, 1)).toHaveLength(1);

    // A turn waits on a deploy; meanwhile the grant for its next call is revoked.
    const revoked = await grantDeletes({
      uses: 5,
      constraints: [{ type: 'one-of', argument: 'path', values: ['rev'] }],
    });
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-deploy`, name: 'deploy', arguments: { service: 'api' } }] },
      { toolCalls: [{ id: `${marker}-del`, name: 'deleteFile', arguments: { path: 'rev' } }] },
      { text: 'done' },
    );
    const waiting = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${marker} go` }],
      requester: 'bo',
    });
    const [deploy] = await waitForPending(waiting, 1);
    expect((await grants.revoke(revoked.grantId, 'cy')).revokedBy).toBe('cy');
    await environment.tollgate.decide(deploy!.approvalId, { approved: true, approver: 'ana' });
    const [asked] = await waitForPending(waiting, 1).then(() =>
      waitFor(
        () => waiting.query('pendingToolApprovals') as Promise<Array<{ toolName: string }>>,
        (list) => list[0]?.toolName === 'deleteFile',
      ),
    );
    expect(asked?.toolName).toBe('deleteFile');
    expect(runsOf(`${marker}-del`)).toHaveLength(0);
    await Promise.all([late, waiting].map((handle) => handle.terminate('test over')));
  });

  it('refuses a grant the rules do not allow, saying why, and records nothing', async () => {
    const refusal = (terms: Partial<GrantTerms>, by = 'ana') =>
      grants.grant({ person: by }, { scope: everyone, uses: 1, ...terms } as GrantTerms).then(
        () => 'granted',
        (error: Error & { code?: string }) => `${error.code}: ${error.message}`,
      );
    const before = (await grants.list()).length;

    expect(await refusal({ tools: ['deploy'] }, 'bo')).toBe(
      'refused: "bo" may not decide calls of deploy, so may not grant them (only ana may).',
    );
    expect(await refusal({ tools: ['deleteFile'], scope: { type: 'requester', requester: 'ana' } })).toBe(
      'refused: "ana" may not grant for their own requests.',
    );
    expect(await refusal({ tools: ['transfer'] })).toBe(
      'refused: Calls of transfer need 2 approvers; one person cannot grant them.',
    );
    expect(await refusal({ tools: ['launch'] })).toBe(
      "refused: Refused: the operator's policy allows no grants for this tool.",
    );
    expect(await refusal({ tools: ['deploy'], uses: 50 })).toBe(
      "refused: Refused: the operator's policy allows grants for this tool of at most 5 uses.",
    );
    expect(await refusal({ tools: ['deleteFile'], constraints: [{ type: 'at-most', argument: 'path', max: 3 }] })).toBe(
      'refused: A "at-most" constraint needs a number, but argument "path" of tool "deleteFile" is string.',
    );
    expect(await refusal({ tools: ['nosuchtool'] })).toMatch(/^refused: No tool "nosuchtool"/);
    expect(await refusal({ tools: ['deleteFile'], uses: undefined })).toMatch(/^invalid: .*bounded/);
    expect(await grants.list()).toHaveLength(before);
  });
});

describe('a task queue without a grant ledger', () => {
  /** A worker of its own on a task queue nobody has granted anything on, remembering a missing ledger that long. */
  async function workerOnFreshQueue(missingLedgerMemoryMs: number) {
    const fresh = await createTestEnvironment({ tools, policy, startWorker: false });
    const connection = await NativeConnection.connect({ address: fresh.address });
    const worker = await anotherWorker(fresh, connection, missingLedgerMemoryMs);
    const running = worker.run();
    return {
      fresh,
      async close() {
        worker.shutdown();
        await running;
        await connection.close();
        await fresh.close();
      },
    };
  }

  it('uses a grant given right after a call found no ledger: the worker that checked the grant forgets at once', async () => {
    // An hour: only hearing of the grant can make this worker claim again within the test.
    const { fresh, close } = await workerOnFreshQueue(3_600_000);
    try {
      const first = await deletingTurn(uniqueMarker(), 'tmp/a', 'bo', fresh);
      expect(await waitForPending(first, 1)).toHaveLength(1);
      const grant = await new GrantLedgerClient(fresh.client, fresh.taskQueue).grant(
        { person: 'ana' },
        { tools: ['deleteFile'], scope: everyone, uses: 5 },
      );
      const marker = uniqueMarker();
      const result = await (await deletingTurn(marker, 'tmp/b', 'bo', fresh)).result();
      expect(result.audit).toEqual([
        expect.objectContaining({ via: 'grant', grant: expect.objectContaining({ grantId: grant.grantId }) }),
      ]);
      expect(runsOf(`${marker}-del`)).toHaveLength(1);
      await first.terminate('test over');
    } finally {
      await close();
    }
  });

  it('uses a grant this worker never heard of once its memory of the missing ledger has passed', async () => {
    const memoryMs = 1_000;
    const { fresh, close } = await workerOnFreshQueue(memoryMs);
    try {
      const first = await deletingTurn(uniqueMarker(), 'tmp/a', 'bo', fresh);
      expect(await waitForPending(first, 1)).toHaveLength(1);
      // The ledger starts elsewhere, with a grant another worker checked: this one hears nothing of it.
      const book = new GrantBook();
      const grant = book.grant(
        {
          grantId: 'grant-from-elsewhere',
          terms: { tools: ['deleteFile'], scope: everyone, uses: 5 },
          grantedBy: 'ana',
          grantedByNames: ['ana'],
        },
        new Date(),
      );
      await fresh.client.workflow.start(grantLedgerWorkflowType, {
        workflowId: grantLedgerWorkflowId(fresh.taskQueue),
        taskQueue: fresh.taskQueue,
        args: [book.snapshot()],
      });
      // The first turn's claim was answered before it asked; its memory has ended once this much more has passed.
      await new Promise((resolve) => setTimeout(resolve, memoryMs + 100));
      const marker = uniqueMarker();
      const result = await (await deletingTurn(marker, 'tmp/b', 'bo', fresh)).result();
      expect(result.audit).toEqual([
        expect.objectContaining({ via: 'grant', grant: expect.objectContaining({ grantId: grant.grantId }) }),
      ]);
      expect(runsOf(`${marker}-del`)).toHaveLength(1);
      await first.terminate('test over');
      await fresh.client.workflow.getHandle(grantLedgerWorkflowId(fresh.taskQueue)).terminate('test over');
    } finally {
      await close();
    }
  });
});
