import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import {
  agentTurnInputSchema,
  collectToolApprovals,
  durationToMilliseconds,
  type Duration,
  type AgentTurnInput,
  type AssistantContentPart,
  type ModelMessage,
  type PlannedToolCall,
  type ToolCallPart,
  type ToolResultOutput,
  type ToolResultPart,
  type TurnActivityLimits,
  type TranscriptPointer,
  type TurnSettings,
  turnRevisions,
} from '../protocol';
import type { OperatorPolicy } from '../policy';
import { appendTranscript, readTranscript, resolveStoredContent, storeLargeOutput, type ContentStore } from '../store';
import type { ToolRegistry } from '../tools';
import { signatureClockSkewMs, verifyBoundDecision } from '../protocol/verify-decision-signature';
import type { ExecuteTool, ToolApprovalPolicy } from './activity-types';
import type { ModelCall } from './call-model';
import { inputDigestOf, verifyToolApproval } from './approval-signature';
import { issueApproval, planToolCalls, type PlanningContext } from './plan-tool-calls';
import { StepHeartbeat } from './step-heartbeat';
import type {
  ModelStepInput,
  ModelStepOutput,
  ResumedCall,
  RunToolInput,
  TurnActivities,
  TurnOptions,
} from './turn-activity-types';

/** A turn's input as a step checks it: later steps carry only what the turn wrote since, which may be nothing. */
const turnInputSchema = agentTurnInputSchema.extend({ messages: agentTurnInputSchema.shape.messages.unwrap().array() });

/** The most text one tool result may carry to the model; more is cut with a note. */
const maxToolOutputCharacters = 256 * 1024;

/** What the turn activities share. */
export interface TurnActivityDependencies {
  registry: ToolRegistry;
  store: ContentStore;
  policy: OperatorPolicy;
  callModel: ModelCall;
  executeTool: ExecuteTool;
  /** HMAC secret for approval requests, in the AI SDK's format. */
  approvalSecret?: string;
  onToolApproval?: ToolApprovalPolicy;
  /** Limits the worker's owner sets for the turn's activities. */
  activityLimits?: TurnActivityLimits;
}

/**
 * The activities of a turn: one model step (check, call, plan), resumed calls, and tool runs. The
 * model step folds in what used to be four round trips (describe tools, inspect calls, ask the
 * policy, call the model), and it alone holds the tools, the operator's policy and the secrets.
 */
export function createTurnActivities(dependencies: TurnActivityDependencies): TurnActivities {
  const { registry, store, policy } = dependencies;

  function check(
    options: TurnOptions,
    messages: ModelMessage[],
  ): { input: AgentTurnInput; settings: TurnSettings; offered: string[] } {
    // The first step checks the caller's messages; later ones check what the turn itself wrote.
    const parsed = turnInputSchema.safeParse({ ...options, messages });
    if (!parsed.success) {
      throw ApplicationFailure.nonRetryable(
        `Invalid agentTurn input: ${z.prettifyError(parsed.error)}`,
        'InvalidAgentTurnInput',
      );
    }
    const input = parsed.data;
    if (input.autoApprove && !policy.allowAutoApprove) {
      throw ApplicationFailure.nonRetryable(
        "This turn asks for autoApprove, which the worker's operator does not allow (set allowAutoApprove in the policy, or TOLLGATE_ALLOW_AUTO_APPROVE=true).",
        'AutoApproveNotAllowed',
      );
    }
    let offered: string[];
    try {
      offered = registry.manifest(input.tools).map((tool) => tool.name);
    } catch (error) {
      throw ApplicationFailure.nonRetryable((error as Error).message, 'UnknownTool');
    }
    const keys = policy.decisions?.trustedKeys ?? {};
    const settings: TurnSettings = {
      maxSteps: input.maxSteps ?? 10,
      approvalWait: input.approvalWait ?? 'durable',
      autoApprove: input.autoApprove === true,
      toolTimeouts: {
        heartbeatMs: durationOr(input.toolTimeouts?.heartbeat, 30_000),
        startToCloseMs: durationOr(input.toolTimeouts?.startToClose, 600_000),
      },
      trust: { requireSigned: policy.decisions?.requireSigned ?? Object.keys(keys).length > 0, keys },
      ...(dependencies.activityLimits && { activities: dependencies.activityLimits }),
      revision: turnRevisions.current,
    };
    return { input, settings, offered };
  }

  function planningContext(
    workflowId: string,
    input: AgentTurnInput,
    offered: string[],
    messages: ModelMessage[],
  ): PlanningContext {
    return {
      workflowId,
      registry,
      offered,
      policy,
      ...(dependencies.approvalSecret !== undefined && { approvalSecret: dependencies.approvalSecret }),
      ...(dependencies.onToolApproval && { onToolApproval: dependencies.onToolApproval }),
      caller: {
        ...input.approvalRules,
        ...(input.approvalTimeout !== undefined && { approvalTimeout: input.approvalTimeout }),
        ...(input.onExpire !== undefined && { onExpire: input.onExpire }),
      },
      ...(input.requester !== undefined && { requester: input.requester }),
      autoApprove: input.autoApprove === true,
      batch: input.approvalBatch ?? 'per-call',
      messages,
      notes: [],
    };
  }

  /** Checks the turn, calls the model (its stream reporting to `heartbeat`), and plans every call it made. */
  async function modelStep(
    { workflowId, options, transcript }: ModelStepInput,
    heartbeat: StepHeartbeat,
  ): Promise<ModelStepOutput> {
    const { input, settings, offered } = check(
      options,
      transcript.tail.length > 0 ? transcript.tail : [{ role: 'user', content: '' }],
    );
    const messages = await resolveStoredContent(store, await readWholeTranscript(store, transcript));
    const modelStep = await dependencies.callModel(
      {
        messages,
        tools: registry.manifest(offered),
        ...(input.model && { settings: input.model }),
        ...(input.modelApi !== undefined && { api: input.modelApi }),
        ...(input.providerTools !== undefined && { providerTools: input.providerTools }),
      },
      heartbeat.sink,
    );
    const context = planningContext(workflowId, input, offered, messages);
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

  async function runTool(call: RunToolInput): Promise<ToolResultPart> {
    const output = capOutput(await dependencies.executeTool(call));
    // The stub names this turn: its output is read through the turn that produced it.
    return storeLargeOutput(
      store,
      { type: 'tool-result', toolCallId: call.toolCallId, toolName: call.toolName, output },
      Context.current().info.workflowExecution?.workflowId,
    );
  }

  return {
    async runModelStep(input) {
      const heartbeat = StepHeartbeat.current();
      const stop = heartbeat.keepAlive();
      try {
        return await modelStep(input, heartbeat);
      } finally {
        stop();
      }
    },

    runTool,

    async runToolThenModelStep({ call, toolMessage, step }) {
      const heartbeat = StepHeartbeat.current();
      // A retry after the checkpoint reached the server does not run the tool again; one before it is an
      // interrupted tool call like any other (a tool not safe to repeat is refused, with a reason the model reads).
      const result = heartbeat.checkpointed(call.toolCallId) ?? (await runTool(call));
      heartbeat.checkpoint([result]);
      const stop = heartbeat.keepAlive();
      const message: ModelMessage = { role: 'tool', content: [...toolMessage.before, result, ...toolMessage.after] };
      try {
        const next = await modelStep(
          { ...step, transcript: { ...step.transcript, tail: [...step.transcript.tail, message] } },
          heartbeat,
        );
        return { result, step: next };
      } catch (error) {
        if (Context.current().cancellationSignal.aborted) throw error;
        // The tool's result must reach the turn whatever the model does: the turn calls the model again in an
        // activity of its own, with the model step's retry policy.
        return { result, modelFailure: error instanceof Error ? error.message : String(error) };
      } finally {
        stop();
      }
    },

    async planResumedCalls({ workflowId, options, messages, startedAt }) {
      const { input, settings, offered } = check(options, messages);
      const collected = collectToolApprovals(input.messages);
      if (!collected.ok) throw ApplicationFailure.nonRetryable(collected.error, 'UnknownApproval');
      const context = planningContext(workflowId, input, offered, input.messages);
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
          const [plan] = await planToolCalls([toolCall], [], { ...context, autoApprove: false, batch: 'per-call' });
          const planned: PlannedToolCall =
            plan === undefined || plan.kind === 'reject'
              ? (plan ?? { kind: 'reject', call: toolCall, error: 'The call could not be checked.' })
              : {
                  kind: 'ask',
                  call: toolCall,
                  executor: plan.kind === 'provider' ? 'worker' : plan.executor,
                  approval: issueApproval(toolCall, registry.get(toolCall.toolName), context),
                };
          if (!response) return { plan: planned };
          const tollgate = response.providerOptions?.tollgate as Record<string, unknown> | undefined;
          const approver = typeof tollgate?.approver === 'string' ? tollgate.approver : undefined;
          // Signed for this turn (the one the messages start), this request, its tool and arguments, and not
          // before this run started: a decision copied from another turn's messages or history counts for nothing.
          const verdict = verifyBoundDecision(
            {
              approved: response.approved,
              ...(response.reason !== undefined && { reason: response.reason }),
              ...(approver !== undefined && { approver }),
              ...(isSignatureShape(tollgate?.signature) && { signature: tollgate.signature }),
            },
            {
              workflowId,
              approvalId: request.approvalId,
              toolName: toolCall.toolName,
              argumentsDigest: inputDigestOf(toolCall.input),
            },
            settings.trust.keys,
            {
              notBefore: new Date((startedAt ? Date.parse(startedAt) : Date.now()) - signatureClockSkewMs),
              notAfter: new Date(Date.now() + signatureClockSkewMs),
            },
          );
          return {
            plan: planned,
            response: {
              approved: response.approved,
              ...(response.reason !== undefined && { reason: response.reason }),
              ...(approver !== undefined && { approver }),
              signed: verdict.valid,
              ...(!verdict.valid && { signatureProblem: verdict.why }),
              issuedHere,
            },
          };
        }),
      );
      return { settings, calls, notes: context.notes };
    },
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

/**
 * The turn's transcript, read whole. A stored piece that is missing is not like a missing tool output, which the model
 * is told about and can work around: the piece is the conversation itself (what the person asked, which calls were
 * approved and ran), and a model answering without it would act on a history it does not know is cut short. The step
 * fails at once, not after ten retries of the same read, with a message that says what is missing; the turn's
 * failure keeps what it did. A store that cannot be read just now (not a missing piece) is retried as before.
 */
async function readWholeTranscript(store: ContentStore, transcript: TranscriptPointer): Promise<ModelMessage[]> {
  try {
    return await readTranscript(store, transcript);
  } catch (error) {
    const name = (error as Error | undefined)?.name;
    if (name !== 'ContentNotFound' && name !== 'NotATranscript') throw error;
    throw ApplicationFailure.nonRetryable(
      `The turn's earlier history cannot be read: ${(error as Error).message}`,
      'TranscriptNotFound',
    );
  }
}

function capOutput(output: ToolResultOutput): ToolResultOutput {
  if ((output.type === 'text' || output.type === 'error-text') && output.value.length > maxToolOutputCharacters) {
    return {
      ...output,
      value: `${output.value.slice(0, maxToolOutputCharacters)}\n[output cut at ${maxToolOutputCharacters} characters of ${output.value.length}]`,
    };
  }
  return output;
}

function durationOr(value: Duration | undefined, fallback: number): number {
  return value === undefined ? fallback : durationToMilliseconds(value);
}

/** A signature as the gateway writes it into `providerOptions.tollgate.signature`. */
function isSignatureShape(value: unknown): value is { keyId: string; signedAt: string; value: string } {
  if (typeof value !== 'object' || value === null) return false;
  const { keyId, signedAt, value: signed } = value as Record<string, unknown>;
  return [keyId, signedAt, signed].every(
    (field) => typeof field === 'string' && field.length > 0 && field.length <= 200,
  );
}
