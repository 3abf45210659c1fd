import type { AgentTurnInput, AssistantContentPart, PlannedToolCall, ToolCallPart } from '../../protocol';
import { appendTranscript, resolveStoredContent } from '../../store';
import { boundAnswerText } from '../model/bound-answer-text';
import { boundToolArguments } from '../model/bound-tool-arguments';
import { checkTurnInput } from '../planning/check-turn-input';
import { issueApproval, planToolCalls, type PlanningContext } from '../planning/plan-tool-calls';
import { planningContextOf } from '../planning/planning-context';
import { readWholeTranscript } from './read-whole-transcript';
import type { StepHeartbeat } from '../model/step-heartbeat';
import type { ModelStepInput, ModelStepOutput } from '../turn-activity-types';
import type { TurnActivityDependencies } from '../turn-activity-dependencies';

/**
 * One model step: checks the turn, calls the model (its stream reporting to `heartbeat`), plans every call it made,
 * adds a `tool-approval-request` for each call that asks, and appends the assistant message to the transcript. It
 * folds in what used to be four round trips (describe tools, inspect calls, ask the policy, call the model).
 */
export async function runModelStep(
  dependencies: TurnActivityDependencies,
  { workflowId, options, transcript }: ModelStepInput,
  heartbeat: StepHeartbeat,
): Promise<ModelStepOutput> {
  const { registry, store } = dependencies;
  const checked = checkTurnInput(
    options,
    transcript.tail.length > 0 ? transcript.tail : [{ role: 'user', content: '' }],
    dependencies,
  );
  const { input, settings, offered } = checked;
  const messages = await resolveStoredContent(store, await readWholeTranscript(store, transcript));
  const answer = await dependencies.callModel(
    {
      messages,
      tools: registry.manifest(offered),
      ...(input.model && { settings: input.model }),
      ...(input.modelApi !== undefined && { api: input.modelApi }),
      ...(input.providerTools !== undefined && { providerTools: input.providerTools }),
    },
    heartbeat.sink,
  );
  // Too large for a workflow's payloads: arguments become an error the model reads, text is cut; the step finishes.
  const bounded = boundToolArguments(boundAnswerText(answer.content), answer.invalidToolCalls);
  const modelStep = { ...answer, ...bounded };
  const context = planningContextOf(workflowId, checked, messages, dependencies);
  const ours = modelStep.content.filter(
    (part): part is ToolCallPart => part.type === 'tool-call' && !part.providerExecuted,
  );
  const calls = [
    ...(await planToolCalls(ours, modelStep.invalidToolCalls, context)),
    ...providerPlans(modelStep.content, input, context),
  ];
  const content: AssistantContentPart[] = [...modelStep.content];
  for (const plan of calls) {
    if (plan.kind !== 'ask') continue;
    content.push({
      type: 'tool-approval-request',
      approvalId: plan.approval.approvalId,
      toolCallId: plan.call.toolCallId,
      ...(plan.approval.signature !== undefined && { signature: plan.approval.signature }),
    });
  }
  const head = await appendTranscript(store, transcript.head, [...transcript.tail, { role: 'assistant', content }]);
  return {
    head: head as string,
    content,
    text: modelStep.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join(''),
    calls,
    notes: context.notes,
    settings,
  };
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
