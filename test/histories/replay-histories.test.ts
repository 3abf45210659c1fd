import { Worker } from '@temporalio/worker';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { workflowBundlePath } from '../support/test-environment';
import { routeWorkerLogsToFile } from '../support/test-logs';

// Executions wait for approvals while code changes. These histories were captured from earlier
// versions (test/histories/capture-histories.ts); replaying them on today's code fails on any
// change that would break such an execution. Guard intended changes with a turn revision or patched()
// (docs/changing-workflow-code.md).
// A file is named after its workflow id (`/` written as `%2F`): approvalIds, a conversation's
// turn ids, and so the commands and decisions, depend on it.
const histories = readdirSync(__dirname)
  .filter((file) => file.endsWith('.json'))
  .map((file) => ({
    workflowId: decodeURIComponent(file.replace(/\.json$/, '')),
    history: JSON.parse(readFileSync(path.join(__dirname, file), 'utf8')),
  }));
type History = (typeof histories)[number];

/** The patch markers a history recorded (`core_patch` markers: a `patched()` or `deprecatePatch()` call). */
function patchMarkers({ history }: History): string[] {
  const events = history.events as Array<{
    markerRecordedEventAttributes?: { markerName?: string; details?: { 'patch-data'?: { payloads?: Array<{ data?: string }> } } };
  }>;
  return events.flatMap((event) => {
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_patch') return [];
    const data = marker.details?.['patch-data']?.payloads?.[0]?.data;
    return data ? [(JSON.parse(Buffer.from(data, 'base64').toString()) as { id: string }).id] : [];
  });
}

/** Replays `entries` on a bundle; returns `workflowId: error` for each that failed. */
async function replay(codePath: string, entries: History[]): Promise<string[]> {
  routeWorkerLogsToFile();
  const failures: string[] = [];
  let replayed = 0;
  for await (const result of Worker.runReplayHistories({ workflowBundle: { codePath } }, entries)) {
    replayed += 1;
    if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
  }
  expect(replayed).toBe(entries.length);
  return failures;
}

/** Payloads as historyToJSON writes them: base64 data. */
type Payloads = { payloads?: Array<{ data?: string }> };

describe('committed workflow histories', () => {
  it('include a history for every path a waiting turn can be on', () => {
    expect(histories.map((entry) => entry.workflowId)).toEqual(
      expect.arrayContaining([
        'v2-waiting',
        'v2-approved',
        'v2-denied',
        'v2-expired',
        'v2-expired-fail',
        'v2-policy-denied',
        'v2-auto-approve',
        'v2-notices',
        'v2-quorum',
        'v2-signed',
        'v2-halted',
        'v2-resumed',
        'v2-provider',
        'v2-client-output',
        'v2-supersede',
        'v2-supersede/turn-1',
        'v2-continued',
        'v2-continued/turn-2',
      ]),
    );
  });

  it('include turns and a conversation that recorded no patch marker, as today\'s code starts them, for each turn revision', () => {
    const markerless = histories.filter((entry) => patchMarkers(entry).length === 0);
    expect(markerless.map((entry) => entry.workflowId)).toEqual(
      expect.arrayContaining([
        'retired-approved',
        'retired-conversation',
        'retired-conversation/turn-1',
        // Model steps as local activities: their results are markers of their own.
        'retired-local-steps',
        // Revision 2 of the turn code: a decision leaves the pending list before its tool runs.
        'retired-revision-2',
        // Revision 3: a step's last tool runs in one activity with the next model step.
        'retired-revision-3',
        // Revision 4: the search attribute follows a decision at the turn's next workflow task.
        'retired-revision-4',
        'retired-revision-4/turn-1',
        // Revision 5: a signed decision counts only when bound to its turn, approval, tool, arguments and a time.
        'retired-revision-5',
        // Revision 6, before editing arguments: a decision's `input` is an unknown field.
        'retired-revision-6',
        // Revisions 7–9: edited arguments, the expiry warning's timer, the search attributes of inspection.
        'revision-9',
        // Revision 10: a standing grant approves a call that asks; and the grant ledger that counted its use.
        'revision-10',
        'tollgate-grants/capture-revision-10',
        // Revision 12: an approved plan; the two calls it covers run unasked, a repeat asks.
        'revision-12',
        // Revision 11: a parent turn waiting on a sub-agent that waits; revision 14: the parent shows and passes on.
        'revision-11',
        'revision-11/reader-1',
        'revision-14',
        'revision-14/reader-1',
        'revision-14-superseded',
        'revision-14-superseded/reader-1',
        // Revision 15: the decision's flatter path, with a reminder and an expiry warning waiting beside it.
        'revision-15',
        // Revision 16: a sub-agent's call its requester may not approve says so to its parent.
        'revision-16',
        'revision-16/reader-1',
        // Revision 17: an update for the sub-agent's call passed on and answered; a cancelled parent and sub-agent.
        'revision-17',
        'revision-17/reader-1',
        'revision-17-cancelled',
        'revision-17-cancelled/reader-1',
        'revision-17-failed',
        'revision-17-failed/reader-1',
        // Revision 18: a step's calls waited for through one condition; two calls with notices decided at once.
        'revision-18',
        // Revision 19: a step's calls waiting without promises of their own; the same two calls, and an expiry.
        'revision-19',
        'revision-19-expired',
      ]),
    );
  });

  // A pre-release worker recorded the `turn-v2` / `conversation-v2` marker in every execution it started. Today's
  // code answers it while replaying (src/workflows/retired-patches.ts); these files keep that answer tested.
  it('include turns and a conversation that recorded the turn-v2 or conversation-v2 patch marker', () => {
    const marked = histories.filter((entry) => patchMarkers(entry).length > 0);
    expect(new Set(marked.flatMap(patchMarkers))).toEqual(new Set(['turn-v2', 'conversation-v2']));
    expect(marked.map((entry) => entry.workflowId)).toEqual(
      expect.arrayContaining(['v2-approved', 'v2-continued', 'v2-continued/turn-2']),
    );
  });

  it('hold both orders of showing a decision: after its tool before revision 2, before it since', () => {
    const order = (workflowId: string) => {
      const events = histories.find((entry) => entry.workflowId === workflowId)?.history.events as Array<{
        upsertWorkflowSearchAttributesEventAttributes?: unknown;
        activityTaskScheduledEventAttributes?: { activityType?: { name?: string } };
        activityTaskCompletedEventAttributes?: unknown;
      }>;
      const toolScheduled = events.findIndex(
        (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool',
      );
      const upserts = events.flatMap((event, index) => (event.upsertWorkflowSearchAttributesEventAttributes ? [index] : []));
      // The first upsert shows the request; the next one is the first to take a decision off the list.
      return upserts[1]! < toolScheduled ? 'before the tool' : 'after the tool';
    };
    expect(order('retired-approved')).toBe('after the tool');
    expect(order('retired-revision-2')).toBe('before the tool');
  });

  it('hold a call a standing grant approved (revision 10), and the ledger that checked the grant and counted its use', () => {
    type Event = {
      activityTaskScheduledEventAttributes?: { activityType?: { name?: string } };
      workflowExecutionUpdateAcceptedEventAttributes?: { acceptedRequest?: { input?: { name?: string } } };
    };
    const events = (workflowId: string) =>
      histories.find((entry) => entry.workflowId === workflowId)?.history.events as Event[];
    const activities = (workflowId: string) =>
      events(workflowId).flatMap((event) => event.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
    // Nobody was asked: the covered call and the lookup ran, then the model answered.
    expect(activities('revision-10')).toEqual(['runModelStep', 'runTool', 'runTool', 'runModelStep']);
    expect(activities('tollgate-grants/capture-revision-10')).toEqual(['checkGrantTerms']);
    expect(
      events('tollgate-grants/capture-revision-10').flatMap(
        (event) => event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name ?? [],
      ),
    ).toEqual(['grant', 'claimGrant']);
  });

  it('hold a plan approved by a person (revision 12): no tool runs for it, its calls run unasked, a repeat asks', () => {
    type Event = {
      activityTaskScheduledEventAttributes?: { activityType?: { name?: string } };
      workflowExecutionUpdateAcceptedEventAttributes?: unknown;
    };
    const events = histories.find((entry) => entry.workflowId === 'revision-12')?.history.events as Event[];
    const steps = events.flatMap((event) =>
      event.workflowExecutionUpdateAcceptedEventAttributes
        ? ['decision']
        : (event.activityTaskScheduledEventAttributes?.activityType?.name ?? []),
    );
    expect(steps).toEqual([
      'runModelStep',
      'decision',
      'runModelStep',
      'runTool',
      'runTool',
      'runModelStep',
      'decision',
      'runToolThenModelStep',
    ]);
  });

  it("hold a parent waiting on its sub-agent's approval: unread before revision 14, shown and passed on since", () => {
    const kinds = (workflowId: string) =>
      (histories.find((entry) => entry.workflowId === workflowId)?.history.events as Array<{ eventType: string }>)
        .map((event) => event.eventType.replace('EVENT_TYPE_', ''))
        .filter((type) => /SIGNAL|CHILD|UPSERT/.test(type));
    // Revision 11: the sub-agent's signals arrive and change nothing; the decision went to the sub-agent itself.
    expect(kinds('revision-11')).toEqual([
      'START_CHILD_WORKFLOW_EXECUTION_INITIATED',
      'CHILD_WORKFLOW_EXECUTION_STARTED',
      'WORKFLOW_EXECUTION_SIGNALED',
      'WORKFLOW_EXECUTION_SIGNALED',
      'CHILD_WORKFLOW_EXECUTION_COMPLETED',
    ]);
    // Revision 14: the parent's search attributes follow the sub-agent's list, and what is signalled to it goes down.
    expect(kinds('revision-14')).toEqual([
      'START_CHILD_WORKFLOW_EXECUTION_INITIATED',
      'CHILD_WORKFLOW_EXECUTION_STARTED',
      'WORKFLOW_EXECUTION_SIGNALED',
      'UPSERT_WORKFLOW_SEARCH_ATTRIBUTES',
      'WORKFLOW_EXECUTION_SIGNALED',
      'SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED',
      'EXTERNAL_WORKFLOW_EXECUTION_SIGNALED',
      'WORKFLOW_EXECUTION_SIGNALED',
      'UPSERT_WORKFLOW_SEARCH_ATTRIBUTES',
      'CHILD_WORKFLOW_EXECUTION_COMPLETED',
    ]);
    expect(kinds('revision-14-superseded')).toContain('SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED');
  });

  it("hold an update for a sub-agent's call passed on and answered (revision 17), and a tree cancelled or failed while it waits", () => {
    const kinds = (workflowId: string) =>
      (histories.find((entry) => entry.workflowId === workflowId)?.history.events as Array<{ eventType: string }>)
        .map((event) => event.eventType.replace('EVENT_TYPE_', ''))
        .filter((type) => /SIGNAL|UPDATE|TIMER|CANCEL/.test(type));
    // Two updates to the parent: each sent on to the sub-agent and answered (a refusal, then the approval) in time.
    const passedOn = [
      'WORKFLOW_EXECUTION_UPDATE_ACCEPTED',
      'SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED',
      'EXTERNAL_WORKFLOW_EXECUTION_SIGNALED',
      'TIMER_STARTED',
    ];
    expect(kinds('revision-17')).toEqual([
      'WORKFLOW_EXECUTION_SIGNALED',
      ...passedOn,
      'WORKFLOW_EXECUTION_SIGNALED',
      'TIMER_CANCELED',
      'WORKFLOW_EXECUTION_UPDATE_COMPLETED',
      ...passedOn,
      'WORKFLOW_EXECUTION_SIGNALED',
      'WORKFLOW_EXECUTION_SIGNALED',
      'TIMER_CANCELED',
      'WORKFLOW_EXECUTION_UPDATE_COMPLETED',
    ]);
    // The cancelled parent waited for its sub-agent to end cancelled before it closed.
    expect(kinds('revision-17-cancelled')).toEqual([
      'WORKFLOW_EXECUTION_SIGNALED',
      'WORKFLOW_EXECUTION_CANCEL_REQUESTED',
      'REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED',
      'TIMER_STARTED',
      'EXTERNAL_WORKFLOW_EXECUTION_CANCEL_REQUESTED',
      'CHILD_WORKFLOW_EXECUTION_CANCELED',
      'TIMER_CANCELED',
      'WORKFLOW_EXECUTION_CANCELED',
    ]);
    // The failing parent (its launch expired, onExpire 'fail') superseded its sub-agent and waited for it to end.
    expect(kinds('revision-17-failed')).toEqual([
      'TIMER_STARTED',
      'WORKFLOW_EXECUTION_SIGNALED',
      'TIMER_FIRED',
      'SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED',
      'TIMER_STARTED',
      'EXTERNAL_WORKFLOW_EXECUTION_SIGNALED',
      'TIMER_CANCELED',
    ]);
  });

  it("hold both ways of running a step's last tool: alone before revision 3, with the next model step since", () => {
    const activities = (workflowId: string) =>
      (
        histories.find((entry) => entry.workflowId === workflowId)?.history.events as Array<{
          activityTaskScheduledEventAttributes?: { activityType?: { name?: string } };
        }>
      ).flatMap((event) => event.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
    expect(activities('retired-revision-2')).toEqual(['runModelStep', 'runTool', 'runModelStep']);
    // The first call ran while the second waited; each later step's last tool ran with the model step after it,
    // and the model that failed there was called again on its own.
    expect(activities('retired-revision-3')).toEqual([
      'runModelStep',
      'runTool',
      'runToolThenModelStep',
      'runToolThenModelStep',
      'runModelStep',
    ]);
  });

  it('hold both moments of taking a decision off the search attribute: with it before revision 4, at the end since', () => {
    const upsertsAfterDecision = (workflowId: string) => {
      const events = histories.find((entry) => entry.workflowId === workflowId)?.history.events as Array<{
        eventType?: string;
        upsertWorkflowSearchAttributesEventAttributes?: unknown;
      }>;
      const decided = events.findIndex((event) => event.eventType === 'EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED');
      return events.slice(decided).flatMap((event) =>
        event.upsertWorkflowSearchAttributesEventAttributes
          ? [event.eventType]
          : event.eventType === 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED' ||
              event.eventType === 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED'
            ? [event.eventType]
            : [],
      );
    };
    expect(upsertsAfterDecision('retired-revision-3').slice(0, 2)).toEqual([
      'EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES',
      'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED',
    ]);
    expect(upsertsAfterDecision('retired-revision-4/turn-1')).toEqual([
      'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED',
      'EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES',
      'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED',
    ]);
  });

  it("hold a decision carrying input before revision 7: ignored, and the tool ran with the model's input", () => {
    const events = histories.find((entry) => entry.workflowId === 'retired-revision-6')?.history.events as Array<{
      workflowExecutionSignaledEventAttributes?: { input?: Payloads };
      activityTaskScheduledEventAttributes?: { activityType?: { name?: string }; input?: Payloads };
    }>;
    const decoded = (payloads: Payloads | undefined) =>
      JSON.parse(Buffer.from(payloads?.payloads?.[0]?.data ?? '', 'base64').toString()) as Record<string, unknown>;
    const signals = events.flatMap((event) =>
      event.workflowExecutionSignaledEventAttributes ? [decoded(event.workflowExecutionSignaledEventAttributes.input)] : [],
    );
    expect(signals).toEqual([expect.objectContaining({ approved: true, input: { path: 'edited.txt' } })]);
    const runs = events.flatMap((event) =>
      event.activityTaskScheduledEventAttributes?.activityType?.name === 'runToolThenModelStep'
        ? [decoded(event.activityTaskScheduledEventAttributes.input).call]
        : [],
    );
    // The approved call ran last, with the next model step, on the model's input: the signal's input changed nothing.
    expect(runs).toEqual([{ toolCallId: 'retired-revision-6-delete', toolName: 'deleteFile', input: { path: 'retired-revision-6.txt' } }]);
  });

  it('hold a turn of revisions 7–9: edited arguments ran, the expiry warning had its timer, the UI could filter it', () => {
    const events = histories.find((entry) => entry.workflowId === 'revision-9')?.history.events as Array<{
      timerStartedEventAttributes?: unknown;
      userMetadata?: { summary?: { data?: string } };
      upsertWorkflowSearchAttributesEventAttributes?: { searchAttributes?: { indexedFields?: Record<string, unknown> } };
      activityTaskScheduledEventAttributes?: { activityType?: { name?: string }; input?: Payloads };
    }>;
    const decoded = (data: string | undefined) => JSON.parse(Buffer.from(data ?? '', 'base64').toString()) as unknown;
    const timers = events.flatMap((event) =>
      event.timerStartedEventAttributes ? [decoded(event.userMetadata?.summary?.data)] : [],
    );
    expect(timers).toEqual(['expiry warning: deleteFile revision-9.txt', 'approval: deleteFile revision-9.txt']);
    const upserted = events.flatMap((event) =>
      Object.keys(event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {}),
    );
    expect(new Set(upserted)).toEqual(
      new Set(['TollgatePendingApprovals', 'TollgateWaitingTools', 'TollgateApprovers', 'TollgateRequester']),
    );
    const runs = events.flatMap((event) =>
      event.activityTaskScheduledEventAttributes?.activityType?.name === 'runToolThenModelStep'
        ? [(decoded(event.activityTaskScheduledEventAttributes.input?.payloads?.[0]?.data as string | undefined) as { call: unknown }).call]
        : [],
    );
    expect(runs).toEqual([
      {
        toolCallId: 'revision-9-delete',
        toolName: 'deleteFile',
        input: { path: 'kept.txt' },
        edit: { editedBy: 'ana', originalInput: { path: 'revision-9.txt' } },
      },
    ]);
  });

  /** A committed turn's revision (from its first model step) and the first `count` commands after its decision. */
  function decidedCommands(workflowId: string, count: number): { revision: number; commands: string[] } {
    const events = histories.find((entry) => entry.workflowId === workflowId)?.history.events as Array<{
      eventType: string;
      activityTaskScheduledEventAttributes?: { activityType?: { name?: string } };
      activityTaskCompletedEventAttributes?: { result?: Payloads };
    }>;
    const planned = events.find((event) => event.activityTaskCompletedEventAttributes)?.activityTaskCompletedEventAttributes;
    const step = JSON.parse(Buffer.from(planned?.result?.payloads?.[0]?.data ?? '', 'base64').toString()) as {
      settings: { revision: number };
    };
    const decided = events.findIndex((event) => event.eventType === 'EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED');
    const commands = events
      .slice(decided + 1, decided + 1 + count)
      .map((event) => event.activityTaskScheduledEventAttributes?.activityType?.name ?? event.eventType);
    return { revision: step.settings.revision, commands };
  }

  it('hold a turn of revision 15: the decision cancels the timers, resolves the notices, then runs the tool', () => {
    expect(decidedCommands('revision-15', 5)).toEqual({
      revision: 15,
      commands: [
        'EVENT_TYPE_TIMER_CANCELED',
        'EVENT_TYPE_TIMER_CANCELED',
        'notifyApproval',
        'notifyApproval',
        'runToolThenModelStep',
      ],
    });
  });

  it('hold a turn of revision 18: two decisions cancel the timers, resolve the notices, then run both tools', () => {
    expect(decidedCommands('revision-18', 10)).toEqual({
      revision: 18,
      commands: [
        ...Array(4).fill('EVENT_TYPE_TIMER_CANCELED'),
        ...Array(4).fill('notifyApproval'),
        'runTool',
        'runTool',
      ],
    });
  });

  it('hold a turn of revision 19: two decisions run both tools, then cancel the timers and resolve the notices', () => {
    expect(decidedCommands('revision-19', 10)).toEqual({
      revision: 19,
      commands: [
        'runTool',
        'runTool',
        ...Array(4).fill('EVENT_TYPE_TIMER_CANCELED'),
        ...Array(4).fill('notifyApproval'),
      ],
    });
  });

  it('hold a turn of revision 19 whose approval expires on its timer while a tool that needs none runs', () => {
    const events = histories.find((entry) => entry.workflowId === 'revision-19-expired')?.history.events as Array<{
      eventType: string;
      activityTaskScheduledEventAttributes?: { activityType?: { name?: string } };
    }>;
    const commands = events.flatMap((event) => {
      const name = event.activityTaskScheduledEventAttributes?.activityType?.name;
      if (name) return [name];
      return /TIMER|UPSERT|EXECUTION_COMPLETED/.test(event.eventType) ? [event.eventType.replace('EVENT_TYPE_', '')] : [];
    });
    expect(commands).toEqual([
      'runModelStep',
      'UPSERT_WORKFLOW_SEARCH_ATTRIBUTES',
      'TIMER_STARTED',
      'runTool',
      'TIMER_FIRED',
      'runModelStep',
      'UPSERT_WORKFLOW_SEARCH_ATTRIBUTES',
      'WORKFLOW_EXECUTION_COMPLETED',
    ]);
  });

  it('replay on today\'s workflow code, with the patch marker or without', async () => {
    expect(await replay(workflowBundlePath(), histories)).toEqual([]);
  });
});
