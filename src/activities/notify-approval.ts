import { ApplicationFailure } from '@temporalio/common';
import type { ApprovalNotifier, NotificationReceipt } from '../notifications/notification-types';
import type { NotifyApprovalInput } from './activity-types';

/** Makes the `notifyApproval` activity for the worker's notifiers (one per target type). */
export function createNotifyApproval(
  notifiers: readonly ApprovalNotifier[],
): (input: NotifyApprovalInput) => Promise<NotificationReceipt | null> {
  const byType = new Map(notifiers.map((notifier) => [notifier.type, notifier]));
  return async function notifyApproval({ event, notice, target, receipt, decision }) {
    const notifier = byType.get(target.type);
    if (!notifier) {
      // Configuration, not a passing fault: retrying cannot help, and the turn goes on without it.
      throw ApplicationFailure.nonRetryable(
        `No ${target.type} notifier is configured on this worker; approval ${notice.approval.approvalId} was not announced there.`,
        'NotifierMissing',
      );
    }
    if (event === 'resolved') {
      if (receipt && decision) await notifier.resolved(notice, decision, receipt);
      return null;
    }
    return notifier.requested(notice, target, event === 'requested' ? 'request' : event);
  };
}
