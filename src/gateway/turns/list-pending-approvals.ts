import type { PendingApprovalOfTurn, TollgateClient } from '../../client';
import { toGatewayError } from '../http/to-gateway-error';
import { withReadDeadline } from './turn-reads';
import { turnsWithPendingApprovalsQuery } from './visibility-query';

/** Which pending approvals to list. */
export interface PendingApprovalFilter {
  /** Only approvals of this tool. */
  tool?: string;
  /** Only approvals of turns whose workflow id starts with this: one turn, or a conversation's turns. */
  workflowId?: string;
}

/** How far one listing reaches. */
export interface PendingListingLimits {
  /** Turns asked at the same time (default 8). */
  concurrency?: number;
  /** How long one turn may take to answer before it is skipped (default 3 s). */
  perTurnTimeoutMs?: number;
  /** Most turns asked in one listing (default 500). */
  maxTurns?: number;
}

/** Pending approvals the caller may see, and how many turns did not answer in time. */
export interface PendingListing {
  approvals: PendingApprovalOfTurn[];
  /** Turns with approvals pending that did not answer within the per-turn timeout (no worker, say). */
  unansweredTurns: number;
}

/**
 * Pending approvals of the running turns on the gateway's task queue, oldest first, that `visible` lets
 * the caller see. The turns come from visibility (the `TollgatePendingApprovals` search attribute), so only
 * turns with something pending are asked; they are asked a few at a time, each with a deadline, so one
 * turn no worker serves is skipped and counted instead of taking the whole inbox down. A turn named
 * exactly by the filter is asked directly as well: visibility lags, and a caller who has just started a
 * turn should see its approvals at once.
 */
export async function listPendingApprovals(
  tollgate: TollgateClient,
  filter: PendingApprovalFilter,
  visible: (approval: PendingApprovalOfTurn) => boolean | Promise<boolean>,
  limits: PendingListingLimits = {},
): Promise<PendingListing> {
  const concurrency = limits.concurrency ?? 8;
  const perTurnTimeoutMs = limits.perTurnTimeoutMs ?? 3_000;
  const maxTurns = limits.maxTurns ?? 500;
  const workflowIds = new Set<string>();
  if (filter.workflowId) workflowIds.add(filter.workflowId);
  const query = turnsWithPendingApprovalsQuery(tollgate.taskQueues);
  await withReadDeadline(tollgate, perTurnTimeoutMs * 3, async () => {
    for await (const execution of tollgate.client.workflow.list({ query, pageSize: 100 })) {
      if (filter.workflowId && !execution.workflowId.startsWith(filter.workflowId)) continue;
      workflowIds.add(execution.workflowId);
      if (workflowIds.size >= maxTurns) break;
    }
  });

  const queue = [...workflowIds];
  const found: PendingApprovalOfTurn[] = [];
  let unansweredTurns = 0;
  const askNext = async (): Promise<void> => {
    for (let workflowId = queue.shift(); workflowId !== undefined; workflowId = queue.shift()) {
      const id = workflowId;
      try {
        const pending = await withReadDeadline(tollgate, perTurnTimeoutMs, () => tollgate.pending({ workflowId: id }));
        for (const approval of pending) if (await visible(approval)) found.push(approval);
      } catch (error) {
        const problem = toGatewayError(error);
        // Not a turn, no longer running, or never existed: it has nothing pending.
        if (problem.kind === 'unknown-turn' || isClosed(error)) continue;
        if (problem.status >= 500) {
          unansweredTurns += 1;
          continue;
        }
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, askNext));
  const unique = new Map(found.map((approval) => [approval.approvalId, approval]));
  return {
    approvals: [...unique.values()]
      .filter((approval) => filter.tool === undefined || approval.toolName === filter.tool)
      .sort((first, second) => first.requestedAt.localeCompare(second.requestedAt)),
    unansweredTurns,
  };
}

function isClosed(error: unknown): boolean {
  return /completed|closed|terminated/i.test((error as Error | undefined)?.message ?? '');
}
