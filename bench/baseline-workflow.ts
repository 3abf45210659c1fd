// The bare-Temporal baseline: a workflow that waits for one decision (by signal, or by update when
// Tollgate is decided by update), then runs one activity. It is bundled on its own and does what a
// Tollgate turn does around an approval, and nothing else.
import {
  condition,
  defineQuery,
  defineSignal,
  defineUpdate,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { BaselineActivities } from './baseline-activities';

/** Workflow type of the baseline. */
export const baselineWorkflowType = 'baselineApproval';

/** The decision, with the same name and shape as Tollgate's signal. */
export const baselineDecisionSignal = defineSignal<[{ approvalId: string; approved: boolean }]>('toolApprovalResponse');

/** The decision by update, with the same name as Tollgate's: answers whether it was the one recorded. */
export const baselineDecisionUpdate = defineUpdate<boolean, [{ approvalId: string; approved: boolean }]>(
  'respondToToolApprovals',
);

/** What the baseline waits for: one approval until it is decided, then nothing. */
export const baselinePendingQuery = defineQuery<Array<{ approvalId: string }>>('pendingToolApprovals');

const { runTool } = proxyActivities<BaselineActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 3 },
});

/** Waits for the decision on one approval, then runs the tool if it was approved. */
export async function baselineApproval(input: { turn: string }): Promise<string> {
  const approvalId = `${workflowInfo().workflowId}:approval`;
  let approved: boolean | undefined;
  const decide = (decision: { approvalId: string; approved: boolean }): boolean => {
    if (approved !== undefined || decision.approvalId !== approvalId) return false;
    approved = decision.approved;
    return true;
  };
  setHandler(baselineDecisionSignal, (decision) => void decide(decision));
  setHandler(baselineDecisionUpdate, decide);
  setHandler(baselinePendingQuery, () => (approved === undefined ? [{ approvalId }] : []));
  await condition(() => approved !== undefined);
  return approved ? runTool({ turn: input.turn }) : 'denied';
}
