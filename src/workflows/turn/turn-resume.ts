import { workflowInfo } from '@temporalio/workflow';
import type { ResumedCall } from '../../activities/turn-activity-types';
import type { AssistantContentPart, PlannedToolCall, ToolResultPart } from '../../protocol';
import { resumeFromMessages } from './resume-from-messages';
import { openApproval, settle, settleWhatNeedsNoPerson } from './settle-step';
import { modelSteps } from './turn-activity-options';
import { continuesAsNewWhenLarge, unlessContinuingAsNew } from './turn-continue-as-new';
import { type Settling, type TurnState, unsettled } from './turn-state';

const noop = () => undefined;

/** Continues a halted turn from the messages its caller sent back; true when it halts again. */
export async function resume(turn: TurnState): Promise<boolean> {
  const resumed = await resumeFromMessages(
    turn.input,
    turn.workflowId,
    workflowInfo().runStartTime,
    modelSteps(turn.input).planResumedCalls,
  );
  if (!resumed) return false;
  turn.adopt(resumed.settings, resumed.notes);
  const opened = resumed.calls.map(({ plan, response }) => {
    const approvalId = openApproval(turn, plan);
    if (approvalId !== undefined && response) applyMessageDecision(turn, approvalId, response);
    return approvalId;
  });
  turn.showPending();
  addFreshRequests(
    turn,
    resumed.calls.map(({ plan }) => plan),
  );
  const plans = resumed.calls.map(({ plan }) => plan);
  if (turn.halted()) {
    await settleWhatNeedsNoPerson(turn, plans, opened, false);
    return true;
  }
  if (!continuesAsNewWhenLarge(turn)) {
    // As turns before revision 6 ran it, to the microtask: the order of commands in their histories depends on it.
    const results = await Promise.all(plans.map((plan, index) => settle(turn, plan, opened[index])));
    turn.addToolMessage(plans, opened, results as Array<ToolResultPart | undefined>, false);
    return false;
  }
  await settleResumed(turn, { kind: 'resumed', plans, opened, results: plans.map(() => unsettled) });
  return false;
}

/**
 * Settles the calls a halted turn's messages left open (from revision 6, which may continue as new while they
 * wait); the caller's messages already hold the decisions.
 */
export async function settleResumed(turn: TurnState, settling: Settling): Promise<void> {
  const { plans, opened, results } = settling;
  const all = Promise.all(
    plans.map((plan, index) => {
      const known = results[index];
      if (known !== unsettled) return known as ToolResultPart | undefined;
      const settled = settle(turn, plan, opened[index], { awaitingOutput: turn.awaitsOutput(plan) });
      // A side branch that only takes note, so that commands keep the order histories already hold.
      settled.then((result) => (results[index] = result), noop);
      return settled;
    }),
  );
  const settled = await unlessContinuingAsNew(turn, all, settling);
  turn.addToolMessage(plans, opened, settled as Array<ToolResultPart | undefined>, false);
}

/**
 * Open calls of an earlier turn wait under fresh requests of this turn (so a decision by id
 * reaches the turn that waits); the caller sees them as an assistant message of requests.
 */
function addFreshRequests(turn: TurnState, plans: PlannedToolCall[]): void {
  const content = plans.flatMap((plan): AssistantContentPart[] =>
    plan.kind === 'ask' && !turn.approvals.book.decisionOf(plan.approval.approvalId)
      ? [
          {
            type: 'tool-approval-request',
            approvalId: plan.approval.approvalId,
            toolCallId: plan.call.toolCallId,
            ...(plan.approval.signature !== undefined && { signature: plan.approval.signature }),
          },
        ]
      : [],
  );
  if (content.length > 0) turn.append({ role: 'assistant', content });
}

/** A decision from the messages counts like any other: authenticated, and by someone with the right. */
function applyMessageDecision(
  turn: TurnState,
  approvalId: string,
  response: NonNullable<ResumedCall['response']>,
): void {
  const trust = turn.settings?.trust;
  // An answer to a request Tollgate did not issue was noted by the activity; a person is asked again.
  if (!response.issuedHere) return;
  if (trust?.requireSigned && !response.signed) {
    turn.events.note('approval-decided', turn.steps, {
      approvalId,
      detail: `not applied: the decision in the messages ${response.signatureProblem ?? 'is not signed'}; a person is asked again`,
    });
    return;
  }
  const decision = {
    approvalId,
    approved: response.approved,
    ...(response.reason !== undefined && { reason: response.reason }),
    ...(response.approver !== undefined && { approver: response.approver }),
  };
  const check = turn.approvals.book.check(decision, 'message');
  if (check.accepted) turn.approvals.book.apply(decision, 'message', new Date());
  else turn.events.note('approval-decided', turn.steps, { approvalId, detail: `not applied: ${check.message}` });
}
