import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { z } from 'zod';
import { toolApprovalResponseSignal } from '../../../src/workflows/definitions';
import { listPendingApprovals } from '../../../src/gateway/turns/list-pending-approvals';
import { defineTool } from '../../../src/tools';
import {
  createTestEnvironment,
  uniqueMarker,
  waitFor,
  waitForPending,
  type TestEnvironment,
} from '../../support/test-environment';
import { createTestTools } from '../../support/test-tools';

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
    const running = await currentDetails(handle.workflowId);
    expect(running).toMatch(/^\*\*Now:\*\* running `migrate` `orders-/);
    expect(running).not.toContain('Waiting for approval');
    expect(await environment.tollgate.pending({ workflowId: handle.workflowId })).toEqual([]);
    const inbox = await listPendingApprovals(environment.tollgate, { workflowId: handle.workflowId }, () => true);
    expect(inbox.approvals).toEqual([]);
    // The search attribute, an index of turns to ask, follows with the turn's next workflow task (revision 4).
    const described = await handle.describe();
    expect(described.status.name).toBe('RUNNING');
    expect(described.searchAttributes.TollgatePendingApprovals).toEqual([approval!.approvalId]);

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

/** The summaries the Temporal UI's timeline shows for a history's activities and timers, in order. */
function timelineSummaries(events: readonly temporal.api.history.v1.IHistoryEvent[]): string[] {
  return events.flatMap((event) => {
    const payload = event.userMetadata?.summary;
    if (!payload || !(event.activityTaskScheduledEventAttributes || event.timerStartedEventAttributes)) return [];
    return [defaultPayloadConverter.fromPayload<string>(payload)];
  });
}

/** The turns a visibility query lists, once the (eventually consistent) list shows `workflowId`. */
async function listedBy(query: string, workflowId: string): Promise<string[]> {
  const ids = async () => {
    const found: string[] = [];
    for await (const execution of environment.client.workflow.list({ query })) found.push(execution.workflowId);
    return found;
  };
  return waitFor(ids, (found) => found.includes(workflowId));
}

describe('what a person sees of a waiting turn', () => {
  it('finds the turn by waiting tool, approver and requester, and its details say who asked and who may decide', async () => {
    const marker = uniqueMarker();
    const path = `reports-${marker.replace(/\W/g, '')}.csv`;
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path } }] },
      { text: 'deleted' },
    );
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${marker} delete the report` }],
      requester: 'ana',
      approvalTimeout: '1h',
      approvalRules: { approvers: ['ana', 'bob', 'carol'], quorum: 2, allowSelfApproval: false },
    });
    const [approval] = await waitForPending(handle, 1);

    const query = `TollgateWaitingTools = 'deleteFile' AND TollgateApprovers = 'bob' AND TollgateRequester = 'ana'`;
    expect(await listedBy(query, handle.workflowId)).toContain(handle.workflowId);
    const attributes = (await handle.describe()).searchAttributes;
    expect(attributes.TollgateWaitingTools).toEqual(['deleteFile']);
    // ana asked, and may not approve her own call: she is not among those it waits for.
    expect(attributes.TollgateApprovers).toEqual(['bob', 'carol']);
    expect(attributes.TollgateRequester).toEqual(['ana']);

    const waiting = await currentDetails(handle.workflowId);
    expect(waiting).toContain(`**1. \`deleteFile\`** \`path: ${path}\``);
    expect(waiting).toContain('asked by `ana` · may decide: `bob`, `carol`');
    expect(waiting).toContain('quorum: 0 of 2 approvals');
    expect(waiting).toMatch(/waiting since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC · until .* then denied/);

    // A decision the turn ignores shows where a person looks, with its cause.
    await handle.signal(toolApprovalResponseSignal, {
      approvalId: approval!.approvalId,
      approved: true,
      approver: 'dave',
    });
    const ignored = await waitFor(
      () => currentDetails(handle.workflowId),
      (details) => details.includes('Ignored decisions (1)'),
    );
    expect(ignored).toMatch(/\*\*forbidden\*\*: `.*dave/);

    await environment.tollgate.decide(approval!.approvalId, { approved: true, approver: 'bob' });
    expect(await currentDetails(handle.workflowId)).toContain('quorum: 1 of 2 approvals (`bob`)');
    await environment.tollgate.decide(approval!.approvalId, { approved: true, approver: 'carol' });
    expect((await handle.result()).status).toBe('completed');

    // The finished turn's details show its decision without opening the result.
    const finished = await currentDetails(handle.workflowId);
    expect(finished).toMatch(/^\*\*Finished:\*\* completed after 2 model steps\. Asked by `ana`\./);
    expect(finished).toMatch(/`deleteFile` `reports-.*`: \*\*approved\*\* by `carol` via update at /);
    const ended = (await handle.describe()).searchAttributes;
    expect(ended.TollgateWaitingTools).toBeUndefined();
    expect(ended.TollgateApprovers).toBeUndefined();
    expect(ended.TollgateRequester).toEqual(['ana']);

    // The timeline tells the story: model step, the wait for approval, the tool with the next step.
    const { events } = await handle.fetchHistory();
    expect(timelineSummaries(events ?? [])).toEqual([
      'model step 1',
      `approval: deleteFile ${path}`,
      expect.stringMatching(/^tool: deleteFile reports-.*, then model step 2$/),
    ]);
  });

  it('shows an approval that ran out of time as expired, not as the denial that records it', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'late.txt' } }] },
      { text: 'not deleted' },
    );
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${marker} delete late.txt` }],
      approvalTimeout: '1s',
    });
    expect((await handle.result()).status).toBe('completed');
    const finished = await currentDetails(handle.workflowId);
    expect(finished).toMatch(/`deleteFile` `late\.txt`: \*\*expired\*\*/);
    expect(finished).not.toContain('**denied**');
  });

  it('lists turns where anyone may decide under *', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'a.txt' } }] },
      { text: 'deleted' },
    );
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${marker} delete a.txt` }],
      requester: 'ana',
    });
    const [approval] = await waitForPending(handle, 1);
    expect(await listedBy(`TollgateApprovers IN ('zoe', '*')`, handle.workflowId)).toContain(handle.workflowId);
    expect(await currentDetails(handle.workflowId)).toContain('may decide: anyone');
    await environment.tollgate.decide(approval!.approvalId, { approved: false, approver: 'zoe', reason: 'not now' });
    expect((await handle.result()).status).toBe('completed');
  });
});
