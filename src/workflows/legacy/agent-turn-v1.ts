import {
  ApplicationFailure,
  condition,
  getExternalWorkflowHandle,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import { z } from 'zod';
import type { TollgateActivities } from '../../activities/activity-types';
import {
  agentTurnInputSchema,
  collectToolApprovals,
  durationToMilliseconds,
  executionDenied,
  errorText,
  formatApprovalId,
  type AgentTurnInput,
  type AgentTurnResult,
  type AgentTurnStatus,
  type ApprovalRules,
  type NotificationTarget,
  type AssistantContentPart,
  type ModelMessage,
  type PendingToolApproval,
  type ToolApprovalAuditEntry,
  type ToolApprovalResponsePart,
  type ToolCallPart,
  type ToolResultOutput,
  type ToolResultPart,
  type TurnEvent,
} from '../../protocol';
import type { ToolManifestEntry } from '../../tools';
import { ApprovalBook, type ApprovalRights } from './approval-book-v1';
import { ClientToolOutputs } from './client-tool-outputs-v1';
import {
  agentTurnEventsQuery,
  agentTurnStateQuery,
  pendingApprovalsSearchAttribute,
  pendingToolApprovalsQuery,
  turnPendingApprovalsSignal,
} from '../definitions';
import { describePendingApprovals } from './describe-pending-approvals-v1';
import { registerDecisionHandlers } from './register-decision-handlers-v1';
import { planToolCalls, type ToolCallPlan } from './tool-call-plan-v1';

const { notifyApproval } = proxyActivities<TollgateActivities>({
  startToCloseTimeout: '30s',
  // Bounded: a channel that is down must not hold the turn's end for long.
  retry: { initialInterval: '1s', maximumInterval: '10s', maximumAttempts: 5 },
});

const { describeTools, inspectToolCalls, decideByPolicy, validateToolOutput } = proxyActivities<TollgateActivities>({
  startToCloseTimeout: '1m',
  retry: { maximumAttempts: 5 },
});

const { callModel } = proxyActivities<TollgateActivities>({
  startToCloseTimeout: '3m',
  // 4xx answers other than 429 come back as ModelRequestRejected: retrying them cannot help.
  retry: {
    initialInterval: '1s',
    maximumInterval: '1m',
    maximumAttempts: 10,
    nonRetryableErrorTypes: ['ModelRequestRejected'],
  },
});

/** Runs tools. The activity heartbeats while a tool runs, so a dead worker is noticed in seconds, not minutes. */
function toolRunner(timeouts: AgentTurnInput['toolTimeouts']): TollgateActivities['executeTool'] {
  return proxyActivities<TollgateActivities>({
    startToCloseTimeout: timeouts?.startToClose === undefined ? '10m' : durationToMilliseconds(timeouts.startToClose),
    heartbeatTimeout: timeouts?.heartbeat === undefined ? '30s' : durationToMilliseconds(timeouts.heartbeat),
    retry: { maximumAttempts: 3 },
  }).executeTool;
}

/** Approval requests the model provider made for calls it will run itself, with their calls. */
function providerApprovalRequests(content: AssistantContentPart[]): Array<{ approvalId: string; call: ToolCallPart }> {
  const providerCalls = new Map(
    content.flatMap((part) => (part.type === 'tool-call' && part.providerExecuted ? [[part.toolCallId, part]] : [])),
  );
  return content.flatMap((part) => {
    const call = part.type === 'tool-approval-request' ? providerCalls.get(part.toolCallId) : undefined;
    return call && part.type === 'tool-approval-request' ? [{ approvalId: part.approvalId, call }] : [];
  });
}

/** Patch ids: each guards a change for executions that were already waiting when it shipped. */
const patches = {
  /** The worker's onToolApproval policy is consulted before anyone is asked. */
  approvalPolicy: 'approval-policy',
} as const;

/**
 * One agent turn: call the model, run its tool calls (waiting durably for approval where a tool
 * needs it), feed the results back, until the model answers without tool calls or `maxSteps`.
 *
 * @example
 * const handle = await client.workflow.start(agentTurn, {
 *   taskQueue: 'tollgate',
 *   workflowId: 'turn-42',
 *   args: [{ messages: [{ role: 'user', content: 'run ls' }] }],
 * });
 */
export async function agentTurnV1(rawInput: AgentTurnInput): Promise<AgentTurnResult> {
  const parsed = agentTurnInputSchema.safeParse(rawInput);
  if (!parsed.success) {
    throw ApplicationFailure.nonRetryable(
      `Invalid agentTurn input: ${z.prettifyError(parsed.error)}`,
      'InvalidAgentTurnInput',
    );
  }
  const input = parsed.data;
  const { workflowId, parent } = workflowInfo();
  const book = new ApprovalBook(workflowId);
  const outputs = new ClientToolOutputs();
  const responseMessages: ModelMessage[] = [];
  const events: TurnEvent[] = [];
  const outstandingNotices: Array<Promise<unknown>> = [];
  const turnTimeoutMs = input.approvalTimeout === undefined ? undefined : durationToMilliseconds(input.approvalTimeout);
  const halt = input.approvalWait === 'halt';
  const maxSteps = input.maxSteps ?? 10;
  const executeTool = toolRunner(input.toolTimeouts);
  let status: AgentTurnStatus = 'running';
  let steps = 0;
  let text = '';

  const note = (type: TurnEvent['type'], fields: Omit<TurnEvent, 'type' | 'at' | 'step'> = {}) =>
    events.push({ type, at: new Date().toISOString(), step: steps, ...fields });

  registerDecisionHandlers({
    book,
    outputs,
    validateOutput: (toolName, submission) =>
      validateToolOutput({
        toolName,
        ...('error' in submission ? { error: submission.error } : { output: submission.output }),
      }),
    onDecided: () => undefined,
    onOutput: (toolCallId, toolName) => note('tool-output-submitted', { toolCallId, toolName }),
  });
  setHandler(pendingToolApprovalsQuery, () => book.pending());
  setHandler(agentTurnEventsQuery, () => events);
  setHandler(agentTurnStateQuery, () => ({ ...result(), status, awaitingOutput: outputs.awaiting() }));
  note('turn-started');

  const tools = new Map((await describeTools(input.tools)).map((tool) => [tool.name, tool]));
  let shownPending = '';

  /** Keeps the search attribute, the UI's details and the status in step with what waits. */
  function showPending(): void {
    const pending = book.pending();
    refreshStatus();
    const ids = pending.map((approval) => approval.approvalId);
    const key = ids.join(',');
    if (key === shownPending) return;
    shownPending = key;
    upsertSearchAttributes([{ key: pendingApprovalsSearchAttribute, value: ids.length > 0 ? ids : null }]);
    setCurrentDetails(describePendingApprovals(pending));
    if (parent) {
      // A conversation shows its turn's pending approvals; if it is gone, the turn does not care.
      void getExternalWorkflowHandle(parent.workflowId)
        .signal(turnPendingApprovalsSignal, { turnId: workflowId, pending })
        .catch(() => undefined);
    }
  }

  /** The status queries see; pure state, so it may change at any point without touching history. */
  function refreshStatus(): void {
    const waitsForPeople = book.pending().length > 0;
    status = waitsForPeople ? 'awaiting-approval' : outputs.awaiting().length > 0 ? 'awaiting-tool-output' : 'running';
  }

  function approvalTimeoutOf(tool: ToolManifestEntry | undefined): number | undefined {
    return tool?.approvalTimeoutMs ?? turnTimeoutMs;
  }

  function newApproval(call: ToolCallPart, step: number, now: Date): PendingToolApproval {
    const timeoutMs = approvalTimeoutOf(tools.get(call.toolName));
    return {
      approvalId: formatApprovalId(workflowId, uuid4().replace(/-/g, '').slice(0, 12)),
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      input: call.input,
      requestedAt: now.toISOString(),
      ...(timeoutMs !== undefined && { expiresAt: new Date(now.getTime() + timeoutMs).toISOString() }),
      step,
    };
  }

  /** Waits for a decision on `approvalId`, applying the tool's or the turn's expiry rule. */
  async function awaitDecision(approvalId: string, call: ToolCallPart): Promise<ToolApprovalAuditEntry> {
    const tool = tools.get(call.toolName);
    const timeoutMs = approvalTimeoutOf(tool);
    const isDecided = () => book.decisionOf(approvalId) !== undefined;
    if (timeoutMs === undefined) {
      await condition(isDecided);
    } else if (!(await condition(isDecided, timeoutMs, { summary: `approval ${call.toolName}` }))) {
      const waited =
        tool?.approvalTimeoutMs !== undefined ? `${tool.approvalTimeoutMs} ms` : `${input.approvalTimeout}`;
      book.expire(approvalId, `Approval expired: nobody decided within ${waited}.`, new Date());
      if ((tool?.onExpire ?? input.onExpire) === 'fail') {
        showPending();
        note('turn-completed', { detail: `failed: approval ${approvalId} expired` });
        throw ApplicationFailure.nonRetryable(
          `Approval "${approvalId}" for ${call.toolName} expired after ${waited}; the turn fails as configured (onExpire: 'fail').`,
          'ApprovalExpired',
        );
      }
    }
    showPending();
    const decision = book.decisionOf(approvalId) as ToolApprovalAuditEntry;
    note('approval-decided', {
      approvalId,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      detail: decision.decision,
    });
    return decision;
  }

  /** Runs a call on the worker, or waits for a client to submit its output. */
  async function runCall(call: ToolCallPart): Promise<ToolResultOutput> {
    note('tool-started', { toolCallId: call.toolCallId, toolName: call.toolName });
    let output: ToolResultOutput;
    if (tools.get(call.toolName)?.executor === 'client') {
      outputs.expect(call);
      showPending();
      await condition(() => outputs.outputOf(call.toolCallId) !== undefined);
      output = outputs.outputOf(call.toolCallId) as ToolResultOutput;
      showPending();
    } else {
      output = await executeTool({ toolCallId: call.toolCallId, toolName: call.toolName, input: call.input });
    }
    note('tool-finished', { toolCallId: call.toolCallId, toolName: call.toolName, detail: output.type });
    return output;
  }

  async function settle(plan: ToolCallPlan, approvalId: string | undefined): Promise<ToolResultPart> {
    const { call } = plan;
    const toolResult = (output: ToolResultOutput): ToolResultPart => ({
      type: 'tool-result',
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      output,
    });
    if (plan.kind === 'reject') return toolResult(errorText(plan.error));
    if (plan.kind === 'ask' && approvalId !== undefined) {
      const decision = await awaitDecision(approvalId, call);
      if (decision.decision !== 'approved') return toolResult(executionDenied(decision.reason));
    }
    return toolResult(await runCall(call));
  }

  /** Lets the worker's policy decide asks before anyone is asked; returns the approvals left to people. */
  async function applyPolicy(approvals: PendingToolApproval[]): Promise<void> {
    if (approvals.length === 0 || input.autoApprove || !patched(patches.approvalPolicy)) return;
    const answers = await decideByPolicy(
      approvals.map(({ approvalId, toolCallId, toolName, input: callInput }) => ({
        approvalId,
        toolCallId,
        toolName,
        input: callInput,
        workflowId,
        ...(input.requester !== undefined && { requester: input.requester }),
      })),
    );
    const now = new Date();
    for (const answer of answers) {
      if (answer.decision === 'ask' || book.decisionOf(answer.approvalId)) continue;
      book.apply(
        {
          approvalId: answer.approvalId,
          approved: answer.decision === 'approve',
          approver: 'policy',
          ...(answer.reason !== undefined && { reason: answer.reason }),
        },
        'policy',
        now,
      );
    }
  }

  function approvalResponses(
    plans: ToolCallPlan[],
    approvalIds: Array<string | undefined>,
  ): ToolApprovalResponsePart[] {
    return plans.flatMap((plan, index): ToolApprovalResponsePart[] => {
      const approvalId = approvalIds[index];
      const decision = approvalId === undefined ? undefined : book.decisionOf(approvalId);
      if (plan.kind !== 'ask' || approvalId === undefined || !decision) return [];
      return [
        {
          type: 'tool-approval-response',
          approvalId,
          approved: decision.decision === 'approved',
          ...(decision.reason !== undefined && { reason: decision.reason }),
        },
      ];
    });
  }

  // A stateless caller continues a halted turn by sending decisions as the last message.
  const resumed = await resumeFromMessages();
  if (resumed === 'halted') return finish();

  while (steps < maxSteps) {
    steps += 1;
    const messages = [...input.messages, ...responseMessages];
    const modelStep = await callModel({
      messages,
      tools: [...tools.values()],
      settings: input.model,
      ...(input.modelApi !== undefined && { api: input.modelApi }),
      ...(input.providerTools !== undefined && { providerTools: input.providerTools }),
    });
    note('model-called');
    // Calls the provider runs itself are not ours to run; those that ask for approval wait like ours.
    const calls = modelStep.content.filter(
      (part): part is ToolCallPart => part.type === 'tool-call' && !part.providerExecuted,
    );
    const providerRequests = providerApprovalRequests(modelStep.content);
    const content: AssistantContentPart[] = [...modelStep.content];
    text = modelStep.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
    if (calls.length === 0 && providerRequests.length === 0) {
      responseMessages.push({ role: 'assistant', content });
      status = 'completed';
      note('turn-completed', { detail: status });
      return finish();
    }

    const inspections = calls.length > 0 ? await inspectToolCalls({ calls, messages, tools: [...tools.keys()] }) : [];
    const plans = planToolCalls({
      calls,
      invalidToolCalls: modelStep.invalidToolCalls,
      inspections,
      tools,
      autoApprove: input.autoApprove ?? false,
      batch: input.approvalBatch ?? 'per-call',
    });
    const now = new Date();
    const approvals = plans.map((plan) =>
      plan.kind === 'ask' || (plan.kind === 'run' && plan.autoApproved)
        ? newApproval(plan.call, steps, now)
        : undefined,
    );
    const approvalIds = approvals.map((approval) => approval?.approvalId);
    plans.forEach((plan, index) => {
      const approval = approvals[index];
      if (!approval) return;
      if (plan.kind === 'ask') {
        book.request(approval, rightsOf(rulesOf(approval.toolName)));
        content.push({
          type: 'tool-approval-request',
          approvalId: approval.approvalId,
          toolCallId: plan.call.toolCallId,
        });
        note('approval-requested', {
          approvalId: approval.approvalId,
          toolCallId: approval.toolCallId,
          toolName: approval.toolName,
        });
      } else {
        book.autoApprove(approval, now);
      }
    });
    for (const { call, approvalId } of providerRequests) {
      const approval = { ...newApproval(call, steps, now), approvalId };
      if (input.autoApprove) {
        book.autoApprove(approval, now);
      } else {
        book.request(approval, rightsOf(rulesOf(approval.toolName)));
        note('approval-requested', { approvalId, toolCallId: call.toolCallId, toolName: call.toolName });
      }
    }
    // Queries may come while the policy runs: they must already see the turn as waiting.
    refreshStatus();
    await applyPolicy(book.pending());
    responseMessages.push({ role: 'assistant', content });
    showPending();
    for (const approval of book.pending()) if (approval.step === steps) announce(approval);

    if (halt && book.pending().length > 0) {
      // Halt mode: run what needs no person, then end the turn; the caller answers the requests.
      const settled = await Promise.all(
        plans.map((plan, index) =>
          plan.kind === 'ask' && !book.decisionOf(approvalIds[index] as string)
            ? undefined
            : settle(plan, approvalIds[index]),
        ),
      );
      const results = settled.filter((part): part is ToolResultPart => part !== undefined);
      const decided = [
        ...approvalResponses(plans, approvalIds),
        ...providerResponses(providerRequests.filter(({ approvalId }) => book.decisionOf(approvalId))),
      ];
      if (results.length + decided.length > 0)
        responseMessages.push({ role: 'tool', content: [...decided, ...results] });
      status = 'awaiting-approval';
      note('turn-completed', { detail: status });
      return finish();
    }

    const [results] = await Promise.all([
      Promise.all(plans.map((plan, index) => settle(plan, approvalIds[index]))),
      Promise.all(
        providerRequests.map(({ call, approvalId }) => book.decisionOf(approvalId) ?? awaitDecision(approvalId, call)),
      ),
    ]);
    responseMessages.push({
      role: 'tool',
      content: [...approvalResponses(plans, approvalIds), ...providerResponses(providerRequests), ...results],
    });
  }
  status = 'max-steps-reached';
  note('turn-completed', { detail: status });
  return finish();

  /**
   * Applies decisions a caller sent in the messages (the `halt` protocol): answered calls run or are
   * denied, unanswered ones wait like any other (or halt again). Returns 'halted' if the turn stops.
   */
  async function resumeFromMessages(): Promise<'continued' | 'halted' | 'nothing'> {
    const collected = collectToolApprovals(input.messages);
    if (!collected.ok) throw ApplicationFailure.nonRetryable(collected.error, 'UnknownApproval');
    const entries = [
      ...collected.answered.map((entry) => ({ ...entry, response: entry.response })),
      ...collected.unanswered.map((entry) => ({ ...entry, response: undefined })),
    ].filter((entry) => !entry.toolCall.providerExecuted);
    if (entries.length === 0) return 'nothing';
    const calls = entries.map((entry) => entry.toolCall);
    const inspections = await inspectToolCalls({ calls, messages: input.messages, tools: [...tools.keys()] });
    const plans = planToolCalls({
      calls,
      invalidToolCalls: [],
      inspections,
      tools,
      autoApprove: false,
      batch: 'per-call',
    }).map((plan): ToolCallPlan => (plan.kind === 'reject' ? plan : { kind: 'ask', call: plan.call }));
    const now = new Date();
    const approvalIds = entries.map((entry) => entry.request.approvalId);
    entries.forEach((entry) => {
      book.request({
        approvalId: entry.request.approvalId,
        toolCallId: entry.toolCall.toolCallId,
        toolName: entry.toolCall.toolName,
        input: entry.toolCall.input,
        requestedAt: now.toISOString(),
        step: 0,
      });
      if (entry.response) {
        book.apply(
          {
            approvalId: entry.request.approvalId,
            approved: entry.response.approved,
            ...(entry.response.reason !== undefined && { reason: entry.response.reason }),
          },
          'message',
          now,
        );
      }
    });
    showPending();
    // In halt mode, answered calls settle now and unanswered ones stay for the caller's next turn.
    const waitsForCaller = (index: number) => halt && !book.decisionOf(approvalIds[index] as string);
    const settled = await Promise.all(
      plans.map((plan, index) => (waitsForCaller(index) ? undefined : settle(plan, approvalIds[index]))),
    );
    const results = settled.filter((part): part is ToolResultPart => part !== undefined);
    if (results.length > 0) responseMessages.push({ role: 'tool', content: results });
    if (halt && book.pending().length > 0) {
      status = 'awaiting-approval';
      return 'halted';
    }
    return 'continued';
  }

  /** The decisions on provider-executed calls, which go back to the provider on the next model call. */
  function providerResponses(requests: Array<{ approvalId: string }>): ToolApprovalResponsePart[] {
    return requests.map(({ approvalId }) => {
      const decision = book.decisionOf(approvalId) as ToolApprovalAuditEntry;
      return {
        type: 'tool-approval-response',
        approvalId,
        approved: decision.decision === 'approved',
        ...(decision.reason !== undefined && { reason: decision.reason }),
        providerExecuted: true,
      };
    });
  }

  /** Waits for notices still being sent (bounded by their retry policy), then returns the result. */
  async function finish(): Promise<AgentTurnResult> {
    await Promise.all(outstandingNotices);
    return result();
  }

  /** The turn's approval rules with the tool's own rules laid over them. */
  function rulesOf(toolName: string): ApprovalRules {
    return { ...input.approvalRules, ...tools.get(toolName)?.approvalRules };
  }

  function rightsOf(rules: ApprovalRules): ApprovalRights | undefined {
    if (!rules.approvers && rules.allowSelfApproval !== false && (rules.quorum ?? 1) === 1) return undefined;
    return {
      ...(rules.approvers && { approvers: rules.approvers }),
      allowSelfApproval: rules.allowSelfApproval ?? true,
      quorum: rules.quorum ?? 1,
      ...(input.requester !== undefined && { requester: input.requester }),
    };
  }

  /**
   * Tells the approval's targets, reminds or escalates if it is still pending after `remindAfter`,
   * and shows the outcome where the request was shown. Notices run beside the wait and never block
   * or fail the turn; a notice that keeps failing is noted in the turn's events.
   */
  function announce(approval: PendingToolApproval): void {
    const rules = rulesOf(approval.toolName);
    if (!rules.notify?.length) return;
    const notice = {
      workflowId,
      approval,
      ...(input.requester !== undefined && { requester: input.requester }),
      ...(rules.approvers && { approvers: rules.approvers }),
    };
    const send = (event: 'requested' | 'reminder', target: NotificationTarget) =>
      notifyApproval({ event, notice, target }).then(
        (receipt) => (receipt ? { receipt, target } : undefined),
        (error: Error) => {
          // An activity failure's own message is generic; the channel's reason is its cause.
          const reason = (error.cause as Error | undefined)?.message ?? error.message;
          note('notification-failed', { approvalId: approval.approvalId, detail: `${target.type}: ${reason}` });
          return undefined;
        },
      );
    const sent = Promise.all(rules.notify.map((target) => send('requested', target)));
    outstandingNotices.push(sent);
    if (halt) return;
    const isDecided = () => book.decisionOf(approval.approvalId) !== undefined;
    const followUp = (async () => {
      const reminders: Array<Promise<unknown>> = [];
      if (rules.remindAfter !== undefined) {
        if (
          !(await condition(isDecided, durationToMilliseconds(rules.remindAfter), { summary: 'approval reminder' }))
        ) {
          reminders.push(...(rules.escalateTo ?? rules.notify ?? []).map((target) => send('reminder', target)));
        }
      }
      await condition(isDecided);
      const decision = book.decisionOf(approval.approvalId) as ToolApprovalAuditEntry;
      const receipts = [...(await sent), ...((await Promise.all(reminders)) as Awaited<ReturnType<typeof send>>[])];
      await Promise.all(
        receipts.flatMap((entry) =>
          entry
            ? [
                notifyApproval({
                  event: 'resolved',
                  notice,
                  target: entry.target,
                  receipt: entry.receipt,
                  decision,
                }).catch((error: Error) =>
                  note('notification-failed', { approvalId: approval.approvalId, detail: error.message }),
                ),
              ]
            : [],
        ),
      );
    })();
    outstandingNotices.push(followUp);
  }

  function result(): AgentTurnResult {
    return {
      status: status === 'completed' || status === 'awaiting-approval' ? status : 'max-steps-reached',
      messages: responseMessages,
      text,
      steps,
      audit: book.audit(),
      ignoredDecisions: book.ignored(),
      pending: book.pending(),
    };
  }
}
