import { z } from 'zod';
import { listPendingApprovals } from '../../src/gateway/turns/list-pending-approvals';
import { defineTool } from '../../src/tools';
import {
  createTestEnvironment,
  uniqueMarker,
  waitFor,
  waitForPending,
  type TestEnvironment,
} from '../support/test-environment';
import { createTestTools } from '../support/test-tools';

/** A migration's two moments: it has begun (the tool runs), and the test lets it finish. */
interface Migration {
  begun: Promise<void>;
  begin: () => void;
  finished: Promise<void>;
  finish: () => void;
}
const migrations = new Map<string, Migration>();
function migrationOf(database: string): Migration {
  let migration = migrations.get(database);
  if (!migration) {
    const moment = () => {
      let settle = () => {};
      const settled = new Promise<void>((resolve) => (settle = resolve));
      return [settled, settle] as const;
    };
    const [begun, begin] = moment();
    const [finished, finish] = moment();
    migration = { begun, begin, finished, finish };
    migrations.set(database, migration);
  }
  return migration;
}

const migrate = defineTool({
  name: 'migrate',
  description: 'Migrates a database. Needs approval; takes as long as the migration does.',
  inputSchema: z.object({ database: z.string() }),
  needsApproval: true,
  execute: async ({ database }) => {
    const migration = migrationOf(database);
    migration.begin();
    await migration.finished;
    return `migrated ${database}`;
  },
});

let environment: TestEnvironment;
beforeAll(async () => {
  environment = await createTestEnvironment({ tools: [...createTestTools().tools, migrate] });
});
afterAll(async () => {
  for (const migration of migrations.values()) migration.finish();
  await environment?.close();
});

/** What the Temporal UI shows as the turn's current details. */
async function currentDetails(workflowId: string): Promise<string> {
  const metadata = (await environment.client.workflow.getHandle(workflowId).query('__temporal_workflow_metadata')) as {
    currentDetails?: string;
  };
  return metadata.currentDetails ?? '';
}

describe('what a turn shows as pending', () => {
  it('takes a decided approval off the pending list while its tool still runs; the search attribute follows', async () => {
    const marker = uniqueMarker();
    const database = `orders-${marker}`;
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'migrate', arguments: { database } }] },
      { text: 'migration done' },
    );
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${marker} migrate ${database}` }],
    });
    const [approval] = await waitForPending(handle, 1);
    expect((await handle.describe()).searchAttributes.TollgatePendingApprovals).toEqual([approval!.approvalId]);
    expect(await currentDetails(handle.workflowId)).toContain('Waiting for approval');

    await environment.tollgate.decide(approval!.approvalId, { approved: true, approver: 'ana' });
    await migrationOf(database).begun;
    // The tool runs; nobody should be asked to decide it again: not by the Temporal UI, the turn or an inbox.
    expect(await currentDetails(handle.workflowId)).toBe('');
    expect(await environment.tollgate.pending({ workflowId: handle.workflowId })).toEqual([]);
    const inbox = await listPendingApprovals(environment.tollgate, { workflowId: handle.workflowId }, () => true);
    expect(inbox.approvals).toEqual([]);
    // The search attribute, an index of turns to ask, follows with the turn's next workflow task (revision 4).
    const running = await handle.describe();
    expect(running.status.name).toBe('RUNNING');
    expect(running.searchAttributes.TollgatePendingApprovals).toEqual([approval!.approvalId]);

    migrationOf(database).finish();
    const result = await handle.result();
    expect(result.status).toBe('completed');
    expect(result.text).toBe('migration done');
    expect((await handle.describe()).searchAttributes.TollgatePendingApprovals).toBeUndefined();
  });

  it("queues a conversation's next message behind an approved tool that still runs, even with supersede", async () => {
    const marker = uniqueMarker();
    const conversationId = `visibility-${marker}`;
    const database = `billing-${marker}`;
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'migrate', arguments: { database } }] },
      { text: 'billing migrated' },
      { text: 'the status is green' },
    );
    const { turnId } = await environment.tollgate.sendMessage(
      conversationId,
      { content: `${marker} migrate ${database}` },
      { onMessageWhilePending: 'supersede' },
    );
    const waiting = await waitFor(
      () => environment.tollgate.conversationState(conversationId),
      (state) => state.pending.length === 1,
    );
    await environment.tollgate.decide(waiting.pending[0]!.approvalId, { approved: true });
    await migrationOf(database).begun;
    await waitFor(
      () => environment.tollgate.conversationState(conversationId),
      (state) => state.pending.length === 0,
    );

    // Nothing waits for a person: the message waits for the turn instead of superseding it.
    const sent = await environment.tollgate.sendMessage(conversationId, { content: `${marker} and the status?` });
    expect(sent.queued).toBe(true);
    migrationOf(database).finish();
    const first = await environment.tollgate.turn(turnId).result();
    expect(first.status).toBe('completed');
    expect(first.text).toBe('billing migrated');
    const done = await waitFor(
      () => environment.tollgate.conversationState(conversationId),
      (state) => state.turnCount === 2 && state.currentTurnId === undefined,
    );
    expect(done.history.at(-1)).toMatchObject({
      role: 'assistant',
      content: [{ type: 'text', text: 'the status is green' }],
    });
  });
});
