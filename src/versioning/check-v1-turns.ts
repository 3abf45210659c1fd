import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import type { NativeConnection } from '@temporalio/worker';
import type { V1Turns } from '../workflows/turn-version';

type WorkflowExecutionInfo = temporal.api.workflow.v1.IWorkflowExecutionInfo;

/** The markers of the v2 turn and conversation, as the `TemporalChangeVersion` search attribute lists them. */
const v2Markers = ['turn-v2', 'conversation-v2'];

/** Histories read at most, oldest first, to find one that has run far enough to tell its version. */
const historiesReadAtMost = 5;

/** A worker would run executions on its task queue with code they did not start on; the message says what to do. */
export class V1TurnsConflict extends Error {
  override readonly name = 'V1TurnsConflict';

  constructor(
    message: string,
    /** The execution that decided it. */
    readonly workflowId: string,
    /** The worker's task queue. */
    readonly taskQueue: string,
  ) {
    super(message);
  }
}

/** Recognises {@link V1TurnsConflict} by name, which survives Jest realms where `instanceof` does not. */
export function isV1TurnsConflict(error: unknown): error is V1TurnsConflict {
  return error instanceof Error && error.name === 'V1TurnsConflict';
}

/** The visibility query of the turns and conversations running on `taskQueue`. */
export function runningExecutionsQuery(taskQueue: string): string {
  return `WorkflowType IN ('agentTurn','conversation') AND ExecutionStatus = 'Running' AND TaskQueue = '${taskQueue.replace(/'/g, "\\'")}'`;
}

/**
 * Refuses to let a worker start when its `v1Turns` mode does not match the executions running on its
 * task queue: a `retired` worker cannot run a v1 turn (it has no v1 code), and a `run` worker would replay a
 * turn started by a `retired` worker (no marker) as v1 and fail it.
 *
 * Cheap by design: one visibility listing (a page per 1000 executions); executions that recorded the v2 marker
 * are fine in both modes and are recognised by their `TemporalChangeVersion` search attribute. Of the others,
 * one turn's history is read (its first page; a few more if that turn has not run yet). v1 turns all started
 * before any turn of a `retired` worker, so for a `retired` worker the oldest decides (is any v1 turn left?),
 * and for a `run` worker the newest (did a `retired` worker start one?). A v1 turn's first command schedules
 * `describeTools`; a v2 turn's schedules `runModelStep`.
 *
 * Conversations without the marker are counted but never decide: the v1 and v2 conversation issue the same
 * first commands (none until a message arrives, then the child turn), so their first events cannot tell them
 * apart; their running turns are checked themselves.
 */
export async function checkV1Turns(options: {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  v1Turns: V1Turns;
}): Promise<void> {
  const { connection, namespace, taskQueue, v1Turns } = options;
  const withoutMarker = await listWithoutMarker(connection, namespace, taskQueue);
  const turns = withoutMarker.filter((execution) => execution.type?.name === 'agentTurn').sort(byStartTime);
  if (v1Turns === 'run') turns.reverse();
  for (const turn of turns.slice(0, historiesReadAtMost)) {
    const version = await turnVersion(connection, namespace, turn);
    if (version === 'not-run-yet') continue;
    const workflowId = turn.execution?.workflowId ?? '';
    const started = startedAt(turn);
    if (version === 'v1' && v1Turns === 'retired') {
      throw new V1TurnsConflict(
        `${withoutMarker.length} running execution(s) on task queue "${taskQueue}" lack the v2 marker, and the ` +
          `oldest turn, ${workflowId} (started ${started}), is a v1 turn: this worker (v1 turns retired, the default) ` +
          `cannot run it. Start workers with TOLLGATE_V1_TURNS=run (v1Turns: 'run') until none is left ` +
          `(temporal workflow count --query "${runningExecutionsQuery(taskQueue)} AND TemporalChangeVersion IS NULL" ` +
          `shows 0), then switch them to retired.`,
        workflowId,
        taskQueue,
      );
    }
    if (version === 'v2' && v1Turns === 'run') {
      throw new V1TurnsConflict(
        `${withoutMarker.length} running execution(s) on task queue "${taskQueue}" lack the v2 marker, and turn ${workflowId} (started ${started}) is not a v1 turn: ` +
          `a worker with v1 turns retired started it, and this worker (TOLLGATE_V1_TURNS=run, v1Turns: 'run') would ` +
          `replay it as a v1 turn and fail it. Keep every worker on this task queue at retired (unset ` +
          `TOLLGATE_V1_TURNS, or v1Turns: 'retired').`,
        workflowId,
        taskQueue,
      );
    }
    return;
  }
}

/** Running turns and conversations on the task queue that recorded no v2 marker. */
async function listWithoutMarker(
  connection: NativeConnection,
  namespace: string,
  taskQueue: string,
): Promise<WorkflowExecutionInfo[]> {
  const found: WorkflowExecutionInfo[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await connection.workflowService.listWorkflowExecutions({
      namespace,
      query: runningExecutionsQuery(taskQueue),
      pageSize: 1000,
      ...(nextPageToken && { nextPageToken }),
    });
    for (const execution of page.executions ?? []) {
      if (!markersOf(execution).some((marker) => v2Markers.includes(marker))) found.push(execution);
    }
    nextPageToken = page.nextPageToken && page.nextPageToken.length > 0 ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return found;
}

/** The patch ids in an execution's `TemporalChangeVersion` search attribute (a keyword list). */
function markersOf(execution: WorkflowExecutionInfo): string[] {
  const payload = execution.searchAttributes?.indexedFields?.TemporalChangeVersion;
  if (!payload) return [];
  const value: unknown = defaultPayloadConverter.fromPayload(payload);
  return (Array.isArray(value) ? value : [value]).map(String);
}

/** v1 or v2 by the first activity the turn scheduled, read from the first page of its history. */
async function turnVersion(
  connection: NativeConnection,
  namespace: string,
  turn: WorkflowExecutionInfo,
): Promise<'v1' | 'v2' | 'not-run-yet'> {
  const { history } = await connection.workflowService.getWorkflowExecutionHistory({
    namespace,
    execution: { workflowId: turn.execution?.workflowId, runId: turn.execution?.runId },
    maximumPageSize: 20,
  });
  for (const event of history?.events ?? []) {
    const activity = event.activityTaskScheduledEventAttributes?.activityType?.name;
    if (activity) return activity === 'describeTools' ? 'v1' : 'v2';
  }
  return 'not-run-yet';
}

function startMillis(execution: WorkflowExecutionInfo): number {
  const seconds = Number(execution.startTime?.seconds ?? 0);
  return seconds * 1000 + Math.floor((execution.startTime?.nanos ?? 0) / 1e6);
}

function byStartTime(a: WorkflowExecutionInfo, b: WorkflowExecutionInfo): number {
  return startMillis(a) - startMillis(b);
}

function startedAt(execution: WorkflowExecutionInfo): string {
  return new Date(startMillis(execution)).toISOString();
}
