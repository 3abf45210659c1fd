import { Worker } from '@temporalio/worker';
import { startDevServer, type DevServer } from '../../../src/dev/dev-server';
import { tollgateSearchAttributes } from '../../../src/dev/search-attributes';
import type { ToolResultPart } from '../../../src/protocol';
import { agentTurnEventsQuery, submitToolOutputUpdate } from '../../../src/workflows/definitions';
import { RecordingNotifier } from '../../support/recording-notifier';
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { testLogFolder } from '../../support/test-logs';
import {
  createTestEnvironment,
  uniqueMarker,
  waitFor,
  waitForPending,
  workflowBundlePath,
  type TestEnvironment,
} from '../../support/test-environment';
import { createTestTools } from '../../support/test-tools';

// A server of this file's own, with Temporal's history limits lowered (50 MB terminates a workflow by default,
// and continuing as new is suggested from 4 MB): a flood that ends a turn then takes 1.2 MB instead of 50, so the
// worker and the server spend seconds, not tens of seconds, carrying the junk.
const historyLimits = {
  'limit.historySize.suggestContinueAsNew': 400_000,
  'limit.historySize.warn': 800_000,
  'limit.historySize.error': 1_200_000,
};

const { tools, runs } = createTestTools();
const notifier = new RecordingNotifier();
let server: DevServer;
let environment: TestEnvironment;

beforeAll(async () => {
  server = await startDevServer({
    searchAttributes: tollgateSearchAttributes,
    extraArgs: Object.entries(historyLimits).flatMap(([key, value]) => ['--dynamic-config-value', `${key}=${value}`]),
    log: (line) => appendFileSync(path.join(testLogFolder, 'signal-flood-server.log'), `${line}\n`),
  });
  environment = await createTestEnvironment({
    tools,
    notifiers: [notifier],
    address: server.address,
    policy: {
      tools: {
        deleteFile: { notify: [{ type: 'slack', channel: 'C-flood' }], approvalTimeout: '1h' },
        deploy: { approvalTimeout: '8s' },
        transfer: {
          notify: [{ type: 'slack', channel: 'C-flood-pay' }],
          remindAfter: '6s',
          escalateTo: [{ type: 'slack', channel: 'C-flood-managers' }],
        },
        launch: {
          notify: [{ type: 'slack', channel: 'C-flood-ops' }],
          approvalTimeout: '24s',
          warnBeforeExpiry: '12s',
        },
      },
    },
  });
}, 120_000);
afterAll(async () => {
  await environment?.close();
  await server?.stop();
});

/**
 * A junk decision of about 300 KB (over a signal's 64,000 characters of text, so the turn reads none of it): ignored,
 * but kept in the turn's history by the server.
 */
const junkText = 'x'.repeat(300_000);
const junk = (approvalId: string) => ({ approvalId, approved: true, reason: junkText });

/** Enough junk to pass the server's limit twice over. */
const floodSize = 8;

/** Floods `workflowId` with `count` junk decisions, each as soon as the turn has taken the one before. */
async function flood(workflowId: string, approvalId: string, count: number): Promise<void> {
  const handle = environment.tollgate.turn(workflowId);
  for (let index = 1; index <= count; index++) {
    await handle.signal('toolApprovalResponse', junk(approvalId));
    // As fast as the worker takes them: a flood faster than one workflow task reaches any server's limit
    // before a workflow can act (see docs/untrusted-input-and-floods.md).
    await waitFor(
      () => environment.tollgate.state(workflowId),
      (state) => state.ignoredDecisions.length + (state.ignoredDecisionsNotKept ?? 0) >= index,
      30_000,
    );
  }
}

/**
 * Replays every run of `workflowId` on today's bundle, the runs that continued as new and took the carry-over up
 * included; returns how many runs there were.
 */
async function replayEveryRun(workflowId: string): Promise<number> {
  const histories = [];
  let runId: string | undefined = (await environment.client.workflow.getHandle(workflowId).describe()).runId;
  while (runId) {
    const history = await environment.client.workflow.getHandle(workflowId, runId).fetchHistory();
    histories.push({ workflowId, history });
    runId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  }
  const failures: string[] = [];
  for await (const result of Worker.runReplayHistories(
    { workflowBundle: { codePath: workflowBundlePath() } },
    histories,
  )) {
    if (result.error) failures.push(result.error.message);
  }
  expect(failures).toEqual([]);
  return histories.length;
}

/**
 * When each timer of each run of `workflowId` falls due, oldest run first, in ms: the workflow's clock when it started
 * the timer (the time of the workflow task it ran in) plus the timer's duration. Read from the histories, so a busy
 * machine moves when a timer fires, not when it was set to.
 */
async function timersDue(workflowId: string): Promise<number[][]> {
  const runs: number[][] = [];
  let runId: string | undefined = (await environment.client.workflow.getHandle(workflowId).describe()).runId;
  while (runId) {
    const history = await environment.client.workflow.getHandle(workflowId, runId).fetchHistory();
    let clock = 0;
    const due: number[] = [];
    for (const event of history.events ?? []) {
      if (event.workflowTaskStartedEventAttributes) clock = millisecondsOf(event.eventTime);
      const timeout = event.timerStartedEventAttributes?.startToFireTimeout;
      if (timeout) due.push(clock + millisecondsOf(timeout));
    }
    runs.unshift(due);
    runId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  }
  return runs;
}

function millisecondsOf(time: { seconds?: unknown; nanos?: number | null } | null | undefined): number {
  return Number(time?.seconds ?? 0) * 1000 + Math.floor((time?.nanos ?? 0) / 1_000_000);
}

/**
 * Checks that the runs that took over started no timer of their own: each of their timers falls due at one of
 * `deadlines` (from the approval), the moments the first run set. A deadline still ahead when the last run took over
 * (`tookOverAt`) is carried into it. A timer started again by a run that took over would fall due later by as long
 * as that run came after the first.
 */
async function expectTimersCarried(workflowId: string, deadlines: number[], tookOverAt: string): Promise<void> {
  const runs = await timersDue(workflowId);
  expect(runs.length).toBeGreaterThan(1);
  const inOrder = (times: Iterable<number>) => [...new Set(times)].sort((a, b) => a - b);
  expect(inOrder(runs.flat())).toEqual(inOrder(deadlines));
  for (const due of deadlines) if (due > Date.parse(tookOverAt)) expect(runs.at(-1)).toContain(due);
}

const resultsOf = (messages: { role: string; content: unknown }[]) =>
  messages.flatMap((message) =>
    message.role === 'tool' ? (message.content as ToolResultPart[]).filter((part) => part.type === 'tool-result') : [],
  );

describe('agentTurn, flooded with large signals', () => {
  it('continues as new with its approval intact, and runs the tool once on a proper approval', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'flood.txt' } }] },
      { text: 'deleted' },
    );
    const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} go` }] });
    const [approval] = await waitForPending(handle, 1);
    const approvalId = approval!.approvalId;
    const firstRun = (await handle.describe()).runId;
    await flood(handle.workflowId, approvalId, floodSize);

    // Still running, on a later run, waiting for the same approval with the same deadline.
    const events = await waitFor(
      () => handle.query(agentTurnEventsQuery),
      (list) => list.filter((event) => event.type === 'turn-continued-as-new').length >= 2,
      60_000,
    );
    expect(events.filter((event) => event.type === 'approval-requested')).toHaveLength(1);
    const described = await handle.describe();
    expect(described.status.name).toBe('RUNNING');
    expect(described.runId).not.toBe(firstRun);
    const state = await environment.tollgate.state(handle.workflowId);
    expect(state.pending).toEqual([approval]);
    expect(state.status).toBe('awaiting-approval');
    const ignored = state.ignoredDecisions.length + (state.ignoredDecisionsNotKept ?? 0);
    expect(ignored).toBe(floodSize);
    expect(JSON.stringify(state.ignoredDecisions).length).toBeLessThan(floodSize * 1_000);

    await environment.tollgate.decide(approvalId, { approved: true, approver: 'ana' });
    const result = await environment.tollgate.turn(handle.workflowId).result();
    expect(result.status).toBe('completed');
    expect(resultsOf(result.messages)).toEqual([
      expect.objectContaining({ toolCallId: `${marker}-1`, output: { type: 'json', value: { deleted: 'flood.txt' } } }),
    ]);
    expect(runs.filter((run) => run.toolCallId === `${marker}-1`)).toHaveLength(1);
    expect(result.audit).toEqual([expect.objectContaining({ approvalId, decision: 'approved', approver: 'ana' })]);
    // The request was announced once, and its outcome shown there by the run that saw the decision.
    expect(notifier.sent.filter((entry) => entry.approvalId === approvalId)).toHaveLength(1);
    await waitFor(
      async () => notifier.resolutions.filter((entry) => entry.approvalId === approvalId),
      (list) => list.length === 1 && list[0]!.decision === 'approved',
    );
    expect(await replayEveryRun(handle.workflowId)).toBeGreaterThan(2);
  }, 120_000);

  it("keeps a step's finished call and a waiting call's deadline across continue-as-new", async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      {
        toolCalls: [
          { id: `${marker}-1`, name: 'lookup', arguments: { query: 'flood' } },
          { id: `${marker}-2`, name: 'deploy', arguments: { service: 'api' } },
        ],
      },
      { text: 'not deployed' },
    );
    const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} go` }] });
    const [approval] = await waitForPending(handle, 1);
    await flood(handle.workflowId, approval!.approvalId, 4);
    const continued = (await handle.query(agentTurnEventsQuery)).filter(
      (event) => event.type === 'turn-continued-as-new',
    );
    expect(continued.length).toBeGreaterThanOrEqual(1);

    // Nobody decides: the approval expires at the deadline it was given, not one restarted by the new run.
    const result = await environment.tollgate.turn(handle.workflowId).result();
    const [entry] = result.audit;
    expect(entry).toMatchObject({
      approvalId: approval!.approvalId,
      decision: 'expired',
      expiresAt: approval!.expiresAt,
    });
    expect(Date.parse(entry!.decidedAt)).toBeGreaterThanOrEqual(Date.parse(approval!.expiresAt!));
    await expectTimersCarried(handle.workflowId, [Date.parse(approval!.expiresAt!)], continued.at(-1)!.at);
    expect(resultsOf(result.messages)).toEqual([
      expect.objectContaining({ toolCallId: `${marker}-1`, output: { type: 'text', value: 'definition of flood' } }),
      expect.objectContaining({
        toolCallId: `${marker}-2`,
        output: expect.objectContaining({ type: 'execution-denied' }),
      }),
    ]);
    expect(runs.filter((run) => run.toolCallId === `${marker}-1`)).toHaveLength(1);
    expect(result.status).toBe('completed');
  }, 120_000);
  it('reminds once, when the reminder was due, and shows the outcome on both channels across continue-as-new', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-pay`, name: 'transfer', arguments: { amount: 500, to: 'acme' } }] },
      { text: 'not paid' },
    );
    const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} pay` }] });
    const [approval] = await waitForPending(handle, 1);
    const approvalId = approval!.approvalId;
    await flood(handle.workflowId, approvalId, 6);
    const continued = (await handle.query(agentTurnEventsQuery)).filter(
      (event) => event.type === 'turn-continued-as-new',
    );
    expect(continued.length).toBeGreaterThanOrEqual(1);
    const sentFor = () => notifier.sent.filter((entry) => entry.approvalId === approvalId);
    await waitFor(
      async () => sentFor(),
      (sent) => sent.length === 2,
      20_000,
    );
    // The reminder falls due 6 s after the request in every run, not 6 s after a run took over.
    await expectTimersCarried(handle.workflowId, [Date.parse(approval!.requestedAt) + 6_000], continued.at(-1)!.at);
    expect(sentFor()).toEqual([
      { kind: 'request', approvalId, channel: 'C-flood-pay' },
      { kind: 'reminder', approvalId, channel: 'C-flood-managers' },
    ]);

    await environment.tollgate.decide(approvalId, { approved: false, approver: 'ana' });
    await environment.tollgate.turn(handle.workflowId).result();
    await waitFor(
      async () => notifier.resolutions.filter((entry) => entry.approvalId === approvalId),
      (list) => list.length === 2 && list.every((entry) => entry.decision === 'denied'),
    );
    expect(sentFor()).toHaveLength(2);
  }, 120_000);

  it('warns once before expiry, when the warning was due, and updates both messages across continue-as-new', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-go`, name: 'launch', arguments: { job: 'flood-warning' } }] },
      { text: 'not launched' },
    );
    const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} go` }] });
    const [approval] = await waitForPending(handle, 1);
    const approvalId = approval!.approvalId;
    await flood(handle.workflowId, approvalId, 6);
    const continued = (await handle.query(agentTurnEventsQuery)).filter(
      (event) => event.type === 'turn-continued-as-new',
    );
    expect(continued.length).toBeGreaterThanOrEqual(1);
    const sentFor = () => notifier.sent.filter((entry) => entry.approvalId === approvalId);
    await waitFor(
      async () => sentFor(),
      (sent) => sent.length === 2,
      30_000,
    );
    // Due 12 s before the expiry in every run, not 12 s after a run took over; the expiry likewise.
    const expiresAt = Date.parse(approval!.expiresAt!);
    await expectTimersCarried(handle.workflowId, [expiresAt - 12_000, expiresAt], continued.at(-1)!.at);
    expect(sentFor()).toEqual([
      { kind: 'request', approvalId, channel: 'C-flood-ops' },
      { kind: 'expiry-warning', approvalId, channel: 'C-flood-ops' },
    ]);

    const result = await environment.tollgate.turn(handle.workflowId).result();
    expect(result.audit).toEqual([expect.objectContaining({ approvalId, decision: 'expired' })]);
    await waitFor(
      async () => notifier.resolutions.filter((entry) => entry.approvalId === approvalId),
      (list) => list.length === 2 && list.every((entry) => entry.decision === 'expired'),
    );
    expect(sentFor()).toHaveLength(2);
    expect(await replayEveryRun(handle.workflowId)).toBeGreaterThanOrEqual(2);
  }, 120_000);

  it("keeps a client tool's call waiting for its output across continue-as-new", async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-pick`, name: 'pickColor', arguments: { prompt: 'favourite?' } }] },
      { text: 'teal it is' },
    );
    const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} pick` }] });
    await waitFor(
      () => environment.tollgate.state(handle.workflowId),
      (current) => current.status === 'awaiting-tool-output',
    );
    await flood(handle.workflowId, 'no-such-approval', 4);
    const state = await environment.tollgate.state(handle.workflowId);
    expect(state.awaitingOutput).toEqual([
      { toolCallId: `${marker}-pick`, toolName: 'pickColor', input: { prompt: 'favourite?' } },
    ]);
    const events = await handle.query(agentTurnEventsQuery);
    expect(events.filter((event) => event.type === 'turn-continued-as-new').length).toBeGreaterThanOrEqual(1);
    expect(events.filter((event) => event.type === 'tool-started')).toHaveLength(1);

    await handle.executeUpdate(submitToolOutputUpdate, {
      args: [{ toolCallId: `${marker}-pick`, output: { color: '#008080' } }],
    });
    const result = await environment.tollgate.turn(handle.workflowId).result();
    expect(result.text).toBe('teal it is');
    expect(resultsOf(result.messages)).toEqual([
      expect.objectContaining({ toolCallId: `${marker}-pick`, output: { type: 'json', value: { color: '#008080' } } }),
    ]);
  }, 120_000);
});

describe('conversation, flooded with large signals while its turn waits', () => {
  it('continues as new with the turn still waiting, and learns its outcome after a proper approval', async () => {
    const marker = uniqueMarker();
    const conversationId = `chat-${marker}`;
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'chat.txt' } }] },
      { text: 'deleted' },
    );
    const { turnId } = await environment.tollgate.sendMessage(conversationId, { content: `${marker} delete chat.txt` });
    const shown = await waitFor(
      () => environment.tollgate.conversationState(conversationId),
      (state) => state.pending.length === 1,
    );
    const conversationHandle = environment.client.workflow.getHandle(conversationId);
    const firstRun = (await conversationHandle.describe()).runId;
    for (let index = 0; index < floodSize; index++) {
      await conversationHandle.signal('turnPendingApprovals', { turnId, pending: junkText });
      // A query waits for the conversation to have taken the signal: as fast as the worker goes.
      await environment.tollgate.conversationState(conversationId);
    }
    const described = await conversationHandle.describe();
    expect(described.status.name).toBe('RUNNING');
    expect(described.runId).not.toBe(firstRun);
    const state = await environment.tollgate.conversationState(conversationId);
    expect(state.currentTurnId).toBe(turnId);
    expect(state.pending).toEqual(shown.pending);
    expect((await environment.tollgate.turn(turnId).describe()).status.name).toBe('RUNNING');

    await environment.tollgate.decide(shown.pending[0]!.approvalId, { approved: true, approver: 'ana' });
    const done = await waitFor(
      () => environment.tollgate.conversationState(conversationId),
      (current) => current.turnCount === 1 && current.currentTurnId === undefined,
      30_000,
    );
    expect(resultsOf(done.history)).toEqual([
      expect.objectContaining({ toolCallId: `${marker}-1`, output: { type: 'json', value: { deleted: 'chat.txt' } } }),
    ]);
    expect(done.history.at(-1)).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'deleted' }] });
    expect(runs.filter((run) => run.toolCallId === `${marker}-1`)).toHaveLength(1);
    expect(done.lastFailure).toBeUndefined();

    // The conversation goes on with the next message as before.
    environment.model.scriptFor(marker, { text: 'hello again' });
    await environment.tollgate.sendMessage(conversationId, { content: `${marker} again` });
    const next = await waitFor(
      () => environment.tollgate.conversationState(conversationId),
      (current) => current.turnCount === 2 && current.currentTurnId === undefined,
      30_000,
    );
    expect(next.history.at(-1)).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'hello again' }] });
    expect(await replayEveryRun(conversationId)).toBeGreaterThan(1);
  }, 120_000);

  it('keeps its waiting turn when the conversation itself is terminated', async () => {
    const marker = uniqueMarker();
    const conversationId = `chat-${marker}`;
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'kept.txt' } }] },
      { text: 'deleted' },
    );
    const { turnId } = await environment.tollgate.sendMessage(conversationId, { content: `${marker} delete kept.txt` });
    const turn = environment.tollgate.turn(turnId);
    const [approval] = await waitForPending(turn, 1);
    await environment.client.workflow.getHandle(conversationId).terminate('an operator ended the conversation');

    expect((await turn.describe()).status.name).toBe('RUNNING');
    await environment.tollgate.decide(approval!.approvalId, { approved: true, approver: 'ana' });
    expect((await turn.result()).status).toBe('completed');
    expect(runs.filter((run) => run.toolCallId === `${marker}-1`)).toHaveLength(1);
  });
});
