// The workflow as it was when `histories/expense-before.json` was captured: it waits for a decision, then pays.
// Kept only so that the history can be captured again; a real project keeps the history, not the old code.
import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Expense, expenseActivities } from './activities';
import { decideSignal } from './definitions';

const { pay } = proxyActivities<typeof expenseActivities>({ startToCloseTimeout: '1m' });

export async function expenseApproval(expense: Expense): Promise<string> {
  let approved: boolean | undefined;
  setHandler(decideSignal, (decision) => void (approved ??= decision.approved));
  await condition(() => approved !== undefined);
  return approved ? await pay(expense) : 'denied';
}
