import type { AgentTurnInput, AssistantContentPart, PlannedToolCall, ToolCallPart } from '../../protocol';
import type { InvalidToolCall } from '../activity-types';
import { issueApproval, planToolCalls, type PlanningContext } from './plan-tool-calls';

/**
 * What happens to every call a model step made: the calls the worker or the client runs (refused, run at once, or
 * held for approval: {@link planToolCalls}), then the approval requests the model provider made for calls it runs
 * itself. Returns the plans, in that order, and the assistant content with a `tool-approval-request` for each call
 * that asks.
 */
export async function planStepCalls(
  content: readonly AssistantContentPart[],
  invalidToolCalls: readonly InvalidToolCall[],
  input: AgentTurnInput,
  context: PlanningContext,
): Promise<{ calls: PlannedToolCall[]; content: AssistantContentPart[] }> {
  const ours = content.filter((part): part is ToolCallPart => part.type === 'tool-call' && !part.providerExecuted);
  const calls = [...(await planToolCalls(ours, invalidToolCalls, context)), ...providerPlans(content, input, context)];
  const withRequests: AssistantContentPart[] = [...content];
  for (const plan of calls) {
    if (plan.kind !== 'ask') continue;
    withRequests.push({
      type: 'tool-approval-request',
      approvalId: plan.approval.approvalId,
      toolCallId: plan.call.toolCallId,
      ...(plan.approval.signature !== undefined && { signature: plan.approval.signature }),
    });
  }
  return { calls, content: withRequests };
}

/** Plans for the approval requests a model provider made for calls it runs itself. */
function providerPlans(
  content: readonly AssistantContentPart[],
  input: AgentTurnInput,
  context: PlanningContext,
): PlannedToolCall[] {
  const calls = new Map(
    content.flatMap((part) => (part.type === 'tool-call' && part.providerExecuted ? [[part.toolCallId, part]] : [])),
  );
  return content.flatMap((part): PlannedToolCall[] => {
    const call = part.type === 'tool-approval-request' ? calls.get(part.toolCallId) : undefined;
    if (!call || part.type !== 'tool-approval-request') return [];
    // The provider's own id goes back to it with the decision, so it is kept.
    const approval = issueApproval(call, undefined, context, part.approvalId);
    return [{ kind: 'provider', call, approval, autoApproved: input.autoApprove === true }];
  });
}
