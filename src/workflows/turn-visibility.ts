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
  private shownAttribute = '';
  private shownDetails = '';

  constructor(
    private readonly workflowId: string,
    private readonly parentWorkflowId: string | undefined,
  ) {}

  /** Shows `pending` everywhere, in the workflow task that calls it. */
  publish(pending: readonly PendingToolApproval[]): void {
    // In this order: the upsert's command comes before the conversation's signal in histories already written.
    this.publishAttribute(pending);
    this.publishDetails(pending);
  }

  /**
   * Shows `pending` in the Temporal UI's current details and the conversation, and not yet in the search attribute:
   * that follows with the turn's next `publish`, in a workflow task the turn makes anyway (its tool and the model's
   * answer done, new approvals, the end). Of the three it alone costs the Temporal server a write of its own (a
   * visibility update), and a decided turn usually ends soon after.
   */
  publishDetails(pending: readonly PendingToolApproval[]): void {
    const key = keyOf(pending);
    if (key === this.shownDetails) return;
    this.shownDetails = key;
    setCurrentDetails(describePendingApprovals(pending));
    if (this.parentWorkflowId !== undefined) {
      // A conversation shows its turn's pending approvals; if it is gone, the turn does not care.
      void getExternalWorkflowHandle(this.parentWorkflowId)
        .signal(turnPendingApprovalsSignal, { turnId: this.workflowId, pending: [...pending] })
        .catch(() => undefined);
    }
  }

  private publishAttribute(pending: readonly PendingToolApproval[]): void {
    const key = keyOf(pending);
    if (key === this.shownAttribute) return;
    this.shownAttribute = key;
    upsertSearchAttributes([
      {
        key: pendingApprovalsSearchAttribute,
        value: pending.length > 0 ? pending.map(({ approvalId }) => approvalId) : null,
      },
    ]);
  }
}

function keyOf(pending: readonly PendingToolApproval[]): string {
  return pending.map((approval) => approval.approvalId).join(',');
}
