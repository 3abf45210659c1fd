import type { TollgateClient } from '../../client';
import { workflowIdOfApproval } from '../../protocol';
import type { AgentTurnState } from '../../protocol';
import { GatewayError } from '../http/gateway-error';
import { turnOfApprovalQuery } from './visibility-query';

/** How long one read of a turn may take by default before it is a 503: a turn with no worker never answers. */
export const defaultReadTimeoutMs = 10_000;

/**
 * Runs Temporal calls with a deadline, so that a turn no worker serves gives a 503 ("Temporal did not
 * answer") in seconds instead of holding the request open.
 */
export function withReadDeadline<T>(tollgate: TollgateClient, timeoutMs: number, read: () => Promise<T>): Promise<T> {
  return tollgate.client.withDeadline(Date.now() + timeoutMs, read);
}

/** A turn's state within the deadline. */
export function readTurnState(
  tollgate: TollgateClient,
  workflowId: string,
  timeoutMs: number,
): Promise<AgentTurnState> {
  return withReadDeadline(tollgate, timeoutMs, () => tollgate.state(workflowId));
}

/**
 * The workflow an approvalId belongs to: from the id itself for Tollgate's ids, else from the pending-approvals
 * search attribute, queried only with ids a query can carry unescaped. Unknown: a 404.
 */
export async function workflowIdOfApprovalId(
  tollgate: TollgateClient,
  approvalId: string,
  timeoutMs: number,
): Promise<string> {
  const embedded = workflowIdOfApproval(approvalId);
  if (embedded) return embedded;
  const query = turnOfApprovalQuery(approvalId);
  if (query) {
    const found = await withReadDeadline(tollgate, timeoutMs, async () => {
      for await (const execution of tollgate.client.workflow.list({ query })) return execution.workflowId;
      return undefined;
    });
    if (found) return found;
  }
  throw new GatewayError('unknown-approval', `Unknown approvalId "${approvalId}".`, { approvalId });
}
