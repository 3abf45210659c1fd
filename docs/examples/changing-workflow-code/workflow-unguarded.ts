// The same change without patched(): what the replay test must catch. Replaying histories/expense-before.json,
// this code schedules `notifyApprover` where the history has the workflow waiting, so replay fails with a
// nondeterminism error, as a waiting execution would on a worker running this code.
import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Expense, expenseActivities } from './activities';
import { decideSignal } from './definitions';

const { notifyApprover, pay } = proxyActivities<typeof expenseActivities>({ startToCloseTimeout: '1m' });

export async function expenseApproval(expense: Expense): Promise<string> {
  let approved: boolean | undefined;
  setHandler(decideSignal, (decision) => void (approved ??= decision.approved));
  await notifyApprover(expense);
  await condition(() => approved !== undefined);
  return approved ? await pay(expense) : 'denied';
}
