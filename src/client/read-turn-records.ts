import type { ModelMessage, PendingToolApproval, ToolApprovalAuditEntry } from '../protocol';
import { requesterSearchAttribute } from '../workflows/definitions';
import type { TollgateClient } from './tollgate-client';

/** A tool call a turn made, as its messages hold it (asked about or not). */
export interface RecordedToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/** What one turn recorded about its tool calls: its approval audit, what still waits, and every call it made. */
export interface TurnRecord {
  workflowId: string;
  /** Who started the turn (its `TollgateRequester` search attribute); absent for turns started without one. */
  requester?: string;
  /** Every approval of the turn: what was asked, what was decided, by whom, when. */
  audit: readonly ToolApprovalAuditEntry[];
  /** Approvals still waiting. */
  pending: readonly PendingToolApproval[];
  /** Every tool call in the turn's messages, asked about or not. */
  calls: readonly RecordedToolCall[];
}

/** How far one reading reaches. */
export interface TurnRecordLimits {
  /** Most turns read (default 200); more in the window makes the answer `truncated`. */
  maxTurns?: number;
  /** Turns read at the same time (default 8). */
  concurrency?: number;
  /** How long one turn may take to answer before it is skipped and counted (default 3 s). */
  perTurnTimeoutMs?: number;
  /** How long listing the window's turns may take (default three times `perTurnTimeoutMs`). */
  listTimeoutMs?: number;
}

/** The records of the turns in a window, as far as the limits reach. */
export interface TurnRecords {
  turns: TurnRecord[];
  /** More turns were in the window than were read. */
  truncated: boolean;
  /** Turns that did not answer in time (a turn no worker serves, Temporal too slow); their records are missing. */
  unansweredTurns: number;
}

// The characters a visibility query's string literal may hold without escaping.
const safeLiteral = /^[A-Za-z0-9._:@+=~/-]{1,1000}$/;

/** Turns on `taskQueue` still running, or closed since `since`: the ones whose approvals can fall in the window. */
export function turnsSinceQuery(taskQueue: string, since: Date): string {
  const time = since.toISOString();
  if (!safeLiteral.test(taskQueue))
    throw new TypeError(`The task queue "${taskQueue}" holds characters a visibility query cannot carry.`);
  return `WorkflowType = 'agentTurn' AND TaskQueue = '${taskQueue}' AND (ExecutionStatus = 'Running' OR CloseTime >= '${time}')`;
}

/**
 * Reads what the turns that ran since `since` recorded, newest first and at most `maxTurns` of them: a completed
 * turn from its result (in its history: no worker needed), any other from its state query, each within a deadline,
 * a few at a time. A turn that does not answer is counted, not waited for; a turn gone since it was listed is left
 * out. These are the records that hold the tool, the arguments, the decision, the approver and the requester of every
 * asked call (the gateway's `GET /v1/audit` holds decision attempts only, without tool or arguments).
 *
 * @example
 * const { turns, truncated } = await readTurnRecords(tollgate, new Date(Date.now() - 30 * 86_400_000), { maxTurns: 2000 });
 */
export async function readTurnRecords(
  tollgate: TollgateClient,
  since: Date,
  limits: TurnRecordLimits = {},
): Promise<TurnRecords> {
  const maxTurns = limits.maxTurns ?? 200;
  const concurrency = limits.concurrency ?? 8;
  const perTurnTimeoutMs = limits.perTurnTimeoutMs ?? 3_000;
  const listTimeoutMs = limits.listTimeoutMs ?? perTurnTimeoutMs * 3;
  const found = new Map<string, { status: string; requester?: string }>();
  let truncated = false;
  await tollgate.client.withDeadline(Date.now() + listTimeoutMs, async () => {
    for await (const execution of tollgate.client.workflow.list({
      query: turnsSinceQuery(tollgate.taskQueue, since),
      pageSize: Math.min(maxTurns + 1, 1000),
    })) {
      // An earlier run of a turn that continued as new: the turn's latest run carries its whole audit.
      const status = execution.status.name;
      if (status === 'CONTINUED_AS_NEW' || found.has(execution.workflowId)) continue;
      if (found.size >= maxTurns) {
        truncated = true;
        break;
      }
      const requester = execution.typedSearchAttributes.get(requesterSearchAttribute);
      found.set(execution.workflowId, { status, ...(requester !== undefined && { requester }) });
    }
  });

  const queue = [...found.entries()];
  const turns: TurnRecord[] = [];
  let unansweredTurns = 0;
  const readNext = async (): Promise<void> => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const [workflowId, { status, requester }] = next;
      try {
        const read = await tollgate.client.withDeadline(Date.now() + perTurnTimeoutMs, async () =>
          status === 'COMPLETED' ? await tollgate.turn(workflowId).result() : await tollgate.state(workflowId),
        );
        turns.push({
          workflowId,
          ...(requester !== undefined && { requester }),
          audit: read.audit,
          pending: read.pending,
          calls: toolCallsOf(read.messages),
        });
      } catch (error) {
        if (isGone(error)) continue;
        unansweredTurns += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, readNext));
  return { turns, truncated, unansweredTurns };
}

function toolCallsOf(messages: readonly ModelMessage[]): RecordedToolCall[] {
  const calls: RecordedToolCall[] = [];
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type === 'tool-call')
        calls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
    }
  }
  return calls;
}

// Deleted (retention) or not a Tollgate turn after all: nothing to count.
function isGone(error: unknown): boolean {
  const fields = (typeof error === 'object' && error !== null ? error : {}) as { name?: unknown; code?: unknown };
  return fields.name === 'WorkflowNotFoundError' || fields.name === 'QueryNotRegisteredError' || fields.code === 5;
}
