// Today's workflow: the approver is notified before the wait. The notice is a new command, issued before the
// wait, so an execution that started on the code before it (histories/expense-before.json) and waits now must
// not issue it when replayed: patched() says whether this execution reached the change on the new code.
import { condition, patched, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Expense, expenseActivities } from './activities';
import { decideSignal } from './definitions';

const { notifyApprover, pay } = proxyActivities<typeof expenseActivities>({ startToCloseTimeout: '1m' });

export async function expenseApproval(expense: Expense): Promise<string> {
  let approved: boolean | undefined;
  setHandler(decideSignal, (decision) => void (approved ??= decision.approved));
  // Replaying a history without the marker: false, and the old path is taken. Otherwise: true, and a new
  // execution records the marker, so that its own replays take this path too.
  if (patched('notify-approver')) await notifyApprover(expense);
  await condition(() => approved !== undefined);
  return approved ? await pay(expense) : 'denied';
}
