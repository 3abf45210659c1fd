import { taskQueuesFilter } from '../../client/task-queues-filter';
import type { TollgateClient } from '../../client';
import { toGatewayError } from '../http/to-gateway-error';
import { withReadDeadline } from '../turns/turn-reads';
import { visibilityLiteral } from '../turns/visibility-query';
import type { TurnApprovalRecord } from './approval-stats';

/** How far one reading of approval history reaches. */
export interface ApprovalHistoryLimits {
  /** Most turns read (default 200); more in the window makes the answer `truncated`. */
  maxTurns?: number;
  /** Turns read at the same time (default 8). */
  concurrency?: number;
  /** How long one turn may take to answer before it is skipped and counted (default 3 s). */
  perTurnTimeoutMs?: number;
}

/** The approvals of the turns in a window, as far as the limits reach. */
export interface ApprovalHistory {
  turns: TurnApprovalRecord[];
  /** More turns were in the window than were read. */
  truncated: boolean;
  /** Turns that did not answer in time. */
  unansweredTurns: number;
}

/** Turns on `taskQueue` still running, or closed since `since`: the ones whose approvals can fall in the window. */
export function turnsSinceQuery(taskQueues: string | readonly string[], since: Date): string {
  const queues = taskQueuesFilter(typeof taskQueues === 'string' ? [taskQueues] : taskQueues);
  const time = visibilityLiteral(since.toISOString());
  if (!time) throw new TypeError(`The time ${since.toISOString()} cannot be put in a visibility query.`);
  return `WorkflowType = 'agentTurn' AND ${queues} AND (ExecutionStatus = 'Running' OR CloseTime >= ${time})`;
}

/**
 * Reads the approvals of the turns that ran in the window, newest first and at most `maxTurns` of them: a completed
 * turn from its result (in its history: no worker needed), any other from its state query, each within a deadline,
 * a few at a time. A turn that does not answer is counted, not waited for.
 */
export async function readApprovalHistory(
  tollgate: TollgateClient,
  since: Date,
  limits: ApprovalHistoryLimits = {},
): Promise<ApprovalHistory> {
  const maxTurns = limits.maxTurns ?? 200;
  const concurrency = limits.concurrency ?? 8;
  const perTurnTimeoutMs = limits.perTurnTimeoutMs ?? 3_000;
  const found = new Map<string, string>();
  let truncated = false;
  await withReadDeadline(tollgate, perTurnTimeoutMs * 3, async () => {
    for await (const execution of tollgate.client.workflow.list({
      query: turnsSinceQuery(tollgate.taskQueues, since),
      pageSize: Math.min(maxTurns + 1, 1000),
    })) {
      // An earlier run of a turn that continued as new: the turn's latest run carries its whole audit.
      const status = execution.status.name;
      if (status === 'CONTINUED_AS_NEW' || found.has(execution.workflowId)) continue;
      if (found.size >= maxTurns) {
        truncated = true;
        break;
      }
      found.set(execution.workflowId, status);
    }
  });

  const queue = [...found.entries()];
  const turns: TurnApprovalRecord[] = [];
  let unansweredTurns = 0;
  const readNext = async (): Promise<void> => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const [workflowId, status] = next;
      try {
        const record = await withReadDeadline(tollgate, perTurnTimeoutMs, async () => {
          const read =
            status === 'COMPLETED' ? await tollgate.turn(workflowId).result() : await tollgate.state(workflowId);
          return { audit: read.audit, pending: read.pending };
        });
        turns.push(record);
      } catch (error) {
        // Gone since it was listed: nothing to count.
        if (toGatewayError(error).kind === 'unknown-turn') continue;
        unansweredTurns += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, readNext));
  return { turns, truncated, unansweredTurns };
}
