import { type AgentTurnInput, inlineTranscriptMaxBytes, type ModelMessage, turnRevisions } from '../../protocol';
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
  // The first step checks the caller's input; a later one (its turn has recorded a revision) gets the same options
  // and the turn's own messages back from workflow code, so only the operator's settings are applied again.
  const checked = checkTurnInput(
    options,
    transcript.tail.length > 0 ? transcript.tail : [{ role: 'user', content: '' }],
    dependencies,
    { alreadyChecked: revision !== undefined },
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
    // Streamed into the heartbeat only when someone follows the turn; otherwise the whole answer at once.
    streams(input, revision) ? heartbeat.sink : null,
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
  const tail: ModelMessage[] = [...transcript.tail, { role: 'assistant', content }];
  // Small: the messages stay in the turn's tail (the turn appends this step's assistant message itself).
  const head = keepsInline(tail) ? undefined : await appendTranscript(store, transcript.head, tail);
  return {
    ...(head !== undefined && { head }),
    content,
    text: modelStep.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join(''),
    calls,
    notes: context.notes,
    settings,
  };
}

/**
 * Whether a model step keeps the transcript's messages not stored yet inline in the turn (in workflow state and the
 * next step's input) instead of writing them to the content store: while they are small, an inline tail costs history
 * a few KiB and saves a store write (hashing, JSON, a file or an S3 PUT) on every model step. Past
 * {@link inlineTranscriptMaxBytes} they are stored as before, and the tail starts again empty.
 */
export function keepsInline(tail: readonly ModelMessage[]): boolean {
  let bytes = 0;
  for (const message of tail) {
    bytes += Buffer.byteLength(JSON.stringify(message));
    if (bytes > inlineTranscriptMaxBytes) return false;
  }
  return true;
}

/**
 * Whether the model's answer streams into the step's heartbeat: for a turn someone follows (`stream`, set on a
 * conversation's turns for the chat), and for every turn planned before revision 13, which streamed whatever it was.
 */
export function streams(input: Pick<AgentTurnInput, 'stream'>, revision: number | undefined): boolean {
  if (input.stream === true) return true;
  return revision !== undefined && revision < turnRevisions.modelStepsStreamOnlyWhenFollowed;
}
