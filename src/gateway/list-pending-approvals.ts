import type { PendingApprovalOfTurn, TollgateClient } from '../client';
import { toGatewayError } from './to-gateway-error';

/** Which pending approvals to list. */
export interface PendingApprovalFilter {
  /** Only approvals of this tool. */
  tool?: string;
  /** Only approvals of turns whose workflow id starts with this: one turn, or a conversation's turns. */
  workflowId?: string;
}

/**
 * Pending approvals of the running turns on the gateway's task queue, oldest first. A turn named
 * exactly by the filter is asked directly as well: visibility lags, and a caller who has just
 * started a turn should see its approvals at once.
 */
export async function listPendingApprovals(
  tollgate: TollgateClient,
  filter: PendingApprovalFilter,
): Promise<PendingApprovalOfTurn[]> {
  const workflowIds = new Set<string>();
  if (filter.workflowId) workflowIds.add(filter.workflowId);
  const query = `ExecutionStatus = 'Running' AND TaskQueue = '${escapeQueryValue(tollgate.taskQueue)}'`;
  for await (const execution of tollgate.client.workflow.list({ query })) {
    if (!filter.workflowId || execution.workflowId.startsWith(filter.workflowId)) workflowIds.add(execution.workflowId);
  }
  const lists = await Promise.all(
    [...workflowIds].map(async (workflowId) => {
      try {
        return await tollgate.pending({ workflowId });
      } catch (error) {
        // Not a turn, no longer running, or never existed: it has nothing pending.
        if (toGatewayError(error).kind === 'unknown-turn' || isClosed(error)) return [];
        throw error;
      }
    }),
  );
  const unique = new Map(lists.flat().map((approval) => [approval.approvalId, approval]));
  return [...unique.values()]
    .filter((approval) => filter.tool === undefined || approval.toolName === filter.tool)
    .sort((first, second) => first.requestedAt.localeCompare(second.requestedAt));
}

function isClosed(error: unknown): boolean {
  return /completed|closed|terminated/i.test((error as Error | undefined)?.message ?? '');
}

function escapeQueryValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/'/g, "\\'");
}
