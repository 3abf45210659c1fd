import { getExternalWorkflowHandle, setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import type { PendingToolApproval } from '../protocol';
import { pendingApprovalsSearchAttribute, turnPendingApprovalsSignal } from './definitions';
import { describePendingApprovals } from './describe-pending-approvals';

/**
 * The one place a turn shows what it waits for: the search attribute (inboxes, `temporal workflow
 * list`), the Temporal UI's current details, and the parent conversation. It writes only when the
 * set of pending approvals changes, so it costs history once per change.
 */
export class TurnVisibility {
  private shown = '';

  constructor(
    private readonly workflowId: string,
    private readonly parentWorkflowId: string | undefined,
  ) {}

  publish(pending: readonly PendingToolApproval[]): void {
    const ids = pending.map((approval) => approval.approvalId);
    const key = ids.join(',');
    if (key === this.shown) return;
    this.shown = key;
    upsertSearchAttributes([{ key: pendingApprovalsSearchAttribute, value: ids.length > 0 ? ids : null }]);
    setCurrentDetails(describePendingApprovals(pending));
    if (this.parentWorkflowId !== undefined) {
      // A conversation shows its turn's pending approvals; if it is gone, the turn does not care.
      void getExternalWorkflowHandle(this.parentWorkflowId)
        .signal(turnPendingApprovalsSignal, { turnId: this.workflowId, pending: [...pending] })
        .catch(() => undefined);
    }
  }
}
