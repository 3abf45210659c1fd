import { ApplicationFailure } from '@temporalio/common';
import { collectToolApprovals, type PlannedToolCall, type ToolCallPart } from '../../protocol';
import { inputDigestOf, verifyToolApproval } from './approval-signature';
import { checkTurnInput } from './check-turn-input';
import { issueApproval, planToolCalls, type PlanningContext } from './plan-tool-calls';
import { planningContextOf } from './planning-context';
import { readResumedDecision } from './read-resumed-decision';
import type { ResumeInput, ResumeOutput, ResumedCall } from '../turn-activity-types';
import type { TurnActivityDependencies } from '../turn-activity-dependencies';

/**
 * Checks the approvals a caller's messages carry and issues a fresh request for every call still open: each call is
 * planned again under today's rules (a call that may no longer run is refused), always asks (never auto-approved),
 * and the caller's answer, if any, is read with its signature ({@link readResumedDecision}) for the turn to weigh. A
 * request this Tollgate did not sign is noted: a person is asked again.
 */
export async function planResumedCalls(
  dependencies: TurnActivityDependencies,
  { workflowId, options, messages, startedAt }: ResumeInput,
): Promise<ResumeOutput> {
  const checked = checkTurnInput(options, messages, dependencies);
  const { input, settings } = checked;
  const collected = collectToolApprovals(input.messages);
  if (!collected.ok) throw ApplicationFailure.nonRetryable(collected.error, 'UnknownApproval');
  const context = planningContextOf(workflowId, checked, input.messages, dependencies);
  const entries = [
    ...collected.answered,
    ...collected.unanswered.map((entry) => ({ ...entry, response: undefined })),
  ].filter((entry) => !entry.toolCall.providerExecuted);
  const calls = await Promise.all(
    entries.map(async ({ request, toolCall, response }): Promise<ResumedCall> => {
      const issuedHere =
        dependencies.approvalSecret !== undefined &&
        verifyToolApproval(dependencies.approvalSecret, request.signature, {
          approvalId: request.approvalId,
          toolCallId: toolCall.toolCallId,
          toolName: toolCall.toolName,
          input: toolCall.input,
        });
      if (!issuedHere) {
        context.notes.push(
          `The request ${request.approvalId} for ${toolCall.toolName} in the messages was not issued by this Tollgate (${
            request.signature === undefined ? 'unsigned' : 'signature does not match'
          }); a person is asked again.`,
        );
      }
      const plan = await planResumedCall(toolCall, context);
      if (!response) return { plan };
      const decision = readResumedDecision(
        response,
        {
          workflowId,
          approvalId: request.approvalId,
          toolName: toolCall.toolName,
          argumentsDigest: inputDigestOf(toolCall.input),
        },
        { keys: settings.trust.keys, ...(startedAt !== undefined && { startedAt }) },
      );
      return { plan, response: { ...decision, issuedHere } };
    }),
  );
  return { settings, calls, notes: context.notes };
}

/** A resumed call planned again: refused if today's rules refuse it, otherwise held for a decision with a fresh request. */
async function planResumedCall(toolCall: ToolCallPart, context: PlanningContext): Promise<PlannedToolCall> {
  const [plan] = await planToolCalls([toolCall], [], { ...context, autoApprove: false, batch: 'per-call' });
  if (plan === undefined || plan.kind === 'reject') {
    return plan ?? { kind: 'reject', call: toolCall, error: 'The call could not be checked.' };
  }
  return {
    kind: 'ask',
    call: toolCall,
    executor: plan.kind === 'provider' ? 'worker' : plan.executor,
    approval: issueApproval(toolCall, context.registry.get(toolCall.toolName), context),
  };
}
