import { turnRevisions } from '../../protocol';
import { proposePlanToolName } from '../../protocol/plan-approval';
import { appendTranscript, resolveStoredContent } from '../../store';
import { boundAnswerText } from '../model/bound-answer-text';
import { boundToolArguments } from '../model/bound-tool-arguments';
import { checkTurnInput } from '../planning/check-turn-input';
import { planProposal, proposePlanManifestEntry } from '../planning/plan-proposal';
import { planStepCalls } from '../planning/plan-step-calls';
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
  { workflowId, step, revision, options, transcript }: ModelStepInput,
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
  // The built-in proposePlan (docs/asking-less.md), where the operator enables it: never for a turn planned before
  // revision 12, whose workflow code would run it as a tool, nor in autonomous mode, where nothing asks, nor in halt
  // mode, where the turn ends at the first approval and its plan with it.
  const proposesPlans =
    dependencies.planApproval === true &&
    (revision ?? turnRevisions.current) >= turnRevisions.planApproval &&
    !input.autoApprove &&
    settings.approvalWait !== 'halt' &&
    registry.get(proposePlanToolName) === undefined;
  const answer = await dependencies.callModel(
    {
      messages,
      tools: [...registry.manifest(offered), ...(proposesPlans ? [proposePlanManifestEntry] : [])],
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
  // Turns planned before revision 10 never take grants: their workflow code would wait for a person regardless.
  if (dependencies.claimGrant && (revision ?? turnRevisions.current) >= turnRevisions.standingGrants) {
    context.step = step;
    context.claimGrant = dependencies.claimGrant;
    if (settings.trust.requireSigned) context.grantKeys = { ...settings.trust.keys };
  }
  if (proposesPlans) context.proposePlan = planProposal;
  const { calls, content } = await planStepCalls(modelStep.content, modelStep.invalidToolCalls, input, context);
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
