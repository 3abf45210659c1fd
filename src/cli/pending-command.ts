import type { PendingApprovalOfTurn } from '../client';
import { describeTaskQueues } from '../client/task-queues-filter';

/** Anything that lists pending approvals: Temporal directly, or the approval gateway. */
export interface ListsPendingApprovals {
  pending(options: { workflowId?: string }): Promise<PendingApprovalOfTurn[]>;
  /** The task queues whose turns are listed, when this lister knows them (Temporal directly). */
  readonly taskQueues?: readonly string[];
}
import { formatPending } from './format-turn';

/** `tollgate pending`: what waits for a decision. */
export async function pendingCommand(
  tollgate: ListsPendingApprovals,
  options: { workflowId?: string; json?: boolean },
): Promise<void> {
  const pending = await tollgate.pending({ workflowId: options.workflowId });
  if (options.json) {
    console.log(JSON.stringify(pending, null, 2));
    return;
  }
  if (pending.length === 0) {
    console.log(
      tollgate.taskQueues && !options.workflowId
        ? `No approvals are pending on ${describeTaskQueues(tollgate.taskQueues)}.`
        : 'No approvals are pending.',
    );
    return;
  }
  for (const approval of pending) console.log(formatPending(approval).join('\n'));
}
