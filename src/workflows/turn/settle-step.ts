import { condition } from '@temporalio/workflow';
import type { RunToolInput } from '../../activities/turn-activity-types';
import type { PlannedToolCall, ToolCallPart, ToolResultOutput, ToolResultPart, TurnSettings } from '../../protocol';
// Not from the protocol's index, which builds every zod schema in each workflow's module scope.
import { errorText, executionDenied } from '../../protocol/denial-and-error-outputs';
import { turnRevisions } from '../../protocol/turn-plan';
import { toolSummary } from '../visibility/describe-turn';
import { runSubAgent } from './sub-agent';
import { toolRunner } from './turn-activity-options';
import {
  continueAsNewWhenLarge,
  continuesAsNewWhenLarge,
  unlessContinuingAsNew,
  whenSettledOrLarge,
} from './turn-continue-as-new';
import { type Settled, type Settling, type TurnState, unsettled, withNextStep } from './turn-state';

/** Opens the approval a planned call needs, if any, and announces it; returns its id. */
export function openApproval(turn: TurnState, plan: PlannedToolCall): string | undefined {
  if (plan.kind === 'reject') return undefined;
  if (plan.kind === 'run') {
    if (!plan.autoApproved) return undefined;
    return turn.approvals.open(plan.call, plan.autoApproved, 'auto-approve').approvalId;
  }
  const how = plan.kind === 'provider' && plan.autoApproved ? 'auto-approve' : 'ask';
  const pending = turn.approvals.open(plan.call, plan.approval, how);
  // A call an approved plan of this turn covers is decided at once (turn revision 12).
  if (how === 'ask' && turn.revision() >= turnRevisions.planApproval)
    turn.plans.cover(turn.approvals.book, plan, pending, new Date());
  if (how === 'ask' && plan.approval.notices && !turn.approvals.book.decisionOf(pending.approvalId)) {
    const halt = turn.settings?.approvalWait === 'halt';
    turn.notices.announce(
      // Slack, email and the inbox's notices name the sub-agents that led to the call.
      turn.onPath(pending),
      plan.approval.notices,
      halt ? undefined : () => turn.approvals.book.decisionOf(pending.approvalId),
    );
  }
  return pending.approvalId;
}

/**
 * Settles a model step's calls together. The call settled last, when it is a worker's tool and another model
 * step follows, is left to run in one activity with that step (from turn revision 3, model steps as activities).
 */
export async function settleStep(turn: TurnState, settling: Settling): Promise<Settled[]> {
  const { plans, opened, results } = settling;
  const joins = turn.input.modelSteps !== 'local' && turn.revision() >= turnRevisions.lastToolRunsWithNextStep;
  let open = results.filter((result) => result === unsettled).length;
  const isLast = () => joins && open === 1 && turn.nextStepFollows();
  const all = Promise.all(
    plans.map(async (plan, index) => {
      const known = results[index];
      if (known !== unsettled) return known as Settled;
      try {
        const result = await settle(turn, plan, opened[index], { isLast, awaitingOutput: turn.awaitsOutput(plan) });
        results[index] = result;
        return result;
      } finally {
        open -= 1;
      }
    }),
  );
  return continuesAsNewWhenLarge(turn) ? unlessContinuingAsNew(turn, all, settling) : all;
}

/**
 * {@link settleStep} from turn revision 15, with fewer promises between a decision and its tool (the workflow sandbox
 * records a stack for every promise workflow code creates, see docs/performance.md): a step with one call to settle
 * settles it without `Promise.all`, and the large-history watch runs beside the calls, not in front of them.
 */
export function settleCalls(turn: TurnState, settling: Settling): Promise<Settled[]> {
  const { plans, opened, results } = settling;
  const joins = turn.input.modelSteps !== 'local';
  const waiting = plans.flatMap((_, index) => (results[index] === unsettled ? [index] : []));
  const isLast = () => joins && results.filter((result) => result === unsettled).length === 1 && turn.nextStepFollows();
  const settleOne = (index: number) => {
    const plan = plans[index] as PlannedToolCall;
    return settle(turn, plan, opened[index], { isLast, awaitingOutput: turn.awaitsOutput(plan) }).then((result) => {
      results[index] = result;
    });
  };
  const all = (waiting.length === 1 ? settleOne(waiting[0] as number) : Promise.all(waiting.map(settleOne))).then(
    () => results.slice() as Settled[],
  );
  return Promise.race([all, continueAsNewWhenLarge(turn, settling, all)]);
}

/**
 * {@link settleCalls} from turn revision 18: each call not settled yet is settled as before, side by side, and the step
 * waits for them in one `condition` (`whenSettledOrLarge`) instead of `Promise.all`, `Promise.race` and a second
 * condition for the large-history watch: fewer promises for the sandbox to record on the way to the approval request
 * and from a decision to its tool. A call that fails fails the step, as `Promise.all` did.
 */
export function settleWaitingCalls(turn: TurnState, settling: Settling): Promise<Settled[]> {
  const { plans, opened, results } = settling;
  const joins = turn.input.modelSteps !== 'local';
  const isLast = () => joins && results.filter((result) => result === unsettled).length === 1 && turn.nextStepFollows();
  let failure: { error: unknown } | undefined;
  plans.forEach((plan, index) => {
    if (results[index] !== unsettled) return;
    settle(turn, plan, opened[index], { isLast, awaitingOutput: turn.awaitsOutput(plan) }).then(
      (result) => {
        results[index] = result;
      },
      (error: unknown) => {
        failure ??= { error };
      },
    );
  });
  return whenSettledOrLarge(turn, settling, () => failure);
}

/** How {@link settle} treats one call. */
export interface SettleOptions {
  /** Asked as the worker's tool is about to run: true leaves it to run with the next model step. */
  isLast?: () => boolean;
  /** An earlier run of the turn recorded the decision and started the client's call. */
  awaitingOutput?: boolean;
}

/**
 * The result part of one call: its output, an error the model can read, or a denial; or, when `isLast` says so
 * as the worker's tool is about to run, `withNextStep`.
 */
export async function settle(
  turn: TurnState,
  plan: PlannedToolCall,
  approvalId: string | undefined,
  options: SettleOptions = {},
): Promise<Settled> {
  const { isLast = () => false, awaitingOutput = false } = options;
  const { call } = plan;
  if (plan.kind === 'provider') {
    // The provider runs it; the decision goes back to it with the next model call.
    await turn.approvals.decision(plan.approval.approvalId);
    turn.showDecided();
    return undefined;
  }
  const result = (output: ToolResultOutput): ToolResultPart => ({
    type: 'tool-result',
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    output,
  });
  if (plan.kind === 'reject') return result(errorText(plan.error));
  if (!awaitingOutput) {
    if (plan.kind === 'ask' && approvalId !== undefined) {
      const decision = await turn.approvals.decision(approvalId);
      turn.showDecided();
      if (decision.decision !== 'approved') return result(executionDenied(decision.reason));
      // An approved plan runs nothing: its calls run as the model makes them (turn revision 12).
      if (plan.proposal && turn.revision() >= turnRevisions.planApproval) {
        const part = result(turn.plans.adopt(plan, decision));
        toolFinished(turn, part);
        return part;
      }
    }
    turn.events.note('tool-started', turn.steps, { toolCallId: call.toolCallId, toolName: call.toolName });
  }
  let part: ToolResultPart;
  if (plan.agent && turn.revision() >= turnRevisions.subAgentsAsChildWorkflows) {
    part = result(await runSubAgent(turn, plan.agent, runToolInput(turn, call, approvalId).input, call.toolCallId));
  } else if (plan.executor === 'client') {
    if (!awaitingOutput) turn.outputs.expect(call);
    turn.visibility.refresh();
    await condition(() => turn.outputs.outputOf(call.toolCallId) !== undefined);
    part = result(turn.outputs.outputOf(call.toolCallId) as ToolResultOutput);
  } else if (isLast()) {
    return withNextStep;
  } else {
    const input = runToolInput(turn, call, approvalId);
    turn.visibility.toolStarted(call.toolCallId, call);
    try {
      part = await toolRunner(turn.settings as TurnSettings, {
        turnSetsLength: turn.input.toolTimeouts?.startToClose !== undefined,
        // What runs: the approver's edited input when there is one.
        summary: toolSummary(call.toolName, input.input),
      }).runTool(input);
    } finally {
      turn.visibility.toolEnded(call.toolCallId);
    }
  }
  toolFinished(turn, part);
  return part;
}

/**
 * What an approved call runs with: the model's input, or from turn revision 7 the input an editor approved instead,
 * with who edited it and the model's original (so the result can tell the model, and the Temporal UI shows both).
 */
export function runToolInput(turn: TurnState, call: ToolCallPart, approvalId: string | undefined): RunToolInput {
  const asked: RunToolInput = { toolCallId: call.toolCallId, toolName: call.toolName, input: call.input };
  if (approvalId === undefined || turn.revision() < turnRevisions.editedInputOnApproval) return asked;
  const decision = turn.approvals.book.decisionOf(approvalId);
  if (decision?.decision !== 'approved' || decision.editedInput === undefined) return asked;
  return {
    ...asked,
    input: decision.editedInput,
    edit: { editedBy: decision.editedBy ?? decision.approver ?? 'an approver', originalInput: call.input },
  };
}

/** Shows what the finished tool changed and notes it. */
export function toolFinished(turn: TurnState, part: ToolResultPart): void {
  turn.showPending();
  turn.events.note('tool-finished', turn.steps, {
    toolCallId: part.toolCallId,
    toolName: part.toolName,
    detail: part.output.type,
  });
}

/** Halt mode: runs what needs no person, records it, and leaves the rest to the caller. */
export async function settleWhatNeedsNoPerson(
  turn: TurnState,
  plans: PlannedToolCall[],
  opened: Array<string | undefined>,
  withDecisions = true,
): Promise<void> {
  const waitsForCaller = (index: number) => {
    const approvalId = opened[index];
    const plan = plans[index] as PlannedToolCall;
    return (plan.kind === 'ask' || plan.kind === 'provider') && !turn.approvals.book.decisionOf(approvalId as string);
  };
  const results = await Promise.all(
    plans.map((plan, index) => (waitsForCaller(index) ? undefined : settle(turn, plan, opened[index]))),
  );
  turn.addToolMessage(plans, opened, results as Array<ToolResultPart | undefined>, withDecisions);
  turn.notices.handBack(turn.approvals.book.pending(), new Date());
}
