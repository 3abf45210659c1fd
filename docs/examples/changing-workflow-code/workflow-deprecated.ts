// The step after: once no execution that started before the change can still be running (none without the
// marker), the old path goes. deprecatePatch() keeps histories that recorded the marker (histories/expense-after.json)
// replaying; once none of those can be running either, the call goes too.
import { condition, deprecatePatch, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Expense, expenseActivities } from './activities';
import { decideSignal } from './definitions';

const { notifyApprover, pay } = proxyActivities<typeof expenseActivities>({ startToCloseTimeout: '1m' });

export async function expenseApproval(expense: Expense): Promise<string> {
  let approved: boolean | undefined;
  setHandler(decideSignal, (decision) => void (approved ??= decision.approved));
  deprecatePatch('notify-approver');
  await notifyApprover(expense);
  await condition(() => approved !== undefined);
  return approved ? await pay(expense) : 'denied';
}
