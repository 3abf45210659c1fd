import {
  ApplicationFailure,
  condition,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import { z } from 'zod';
import type { TollgateActivities } from '../activities/activity-types';
import {
  agentTurnInputSchema,
  durationToMilliseconds,
  executionDenied,
  errorText,
  formatApprovalId,
  respondToToolApprovalsInputSchema,
  type AgentTurnInput,
  type AgentTurnResult,
  type AgentTurnStatus,
  type AssistantContentPart,
  type ModelMessage,
  type ToolApprovalAuditEntry,
  type ToolApprovalResponsePart,
  type ToolCallPart,
  type ToolResultOutput,
  type ToolResultPart,
} from '../protocol';
import { ApprovalBook } from './approval-book';
import {
  agentTurnStateQuery,
  decisionErrorTypes,
  pendingApprovalsSearchAttribute,
  pendingToolApprovalsQuery,
  respondToToolApprovalsUpdate,
  toolApprovalResponseSignal,
} from './definitions';
import { describePendingApprovals } from './describe-pending-approvals';
import { planToolCalls, type ToolCallPlan } from './tool-call-plan';

const { describeTools, inspectToolCalls } = proxyActivities<TollgateActivities>({
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

const { executeTool } = proxyActivities<TollgateActivities>({
  startToCloseTimeout: '10m',
  // The activity heartbeats while the tool runs, so a dead worker is noticed in seconds, not minutes.
  heartbeatTimeout: '30s',
  retry: { maximumAttempts: 3 },
});

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
export async function agentTurn(rawInput: AgentTurnInput): Promise<AgentTurnResult> {
  const parsed = agentTurnInputSchema.safeParse(rawInput);
  if (!parsed.success) {
    throw ApplicationFailure.nonRetryable(
      `Invalid agentTurn input: ${z.prettifyError(parsed.error)}`,
      'InvalidAgentTurnInput',
    );
  }
  const input = parsed.data;
  const { workflowId } = workflowInfo();
  const book = new ApprovalBook(workflowId);
  const responseMessages: ModelMessage[] = [];
  const approvalTimeoutMs =
    input.approvalTimeout === undefined ? undefined : durationToMilliseconds(input.approvalTimeout);
  const maxSteps = input.maxSteps ?? 10;
  let status: AgentTurnStatus = 'running';
  let steps = 0;
  let text = '';

  setHandler(toolApprovalResponseSignal, (payload) => book.receiveSignal(payload, new Date()));
  setHandler(
    respondToToolApprovalsUpdate,
    ({ responses }) => {
      // Re-checked here: a signal may have decided one of them since the validator ran.
      const check = book.checkBatch(responses);
      if (!check.accepted) throw ApplicationFailure.nonRetryable(check.message, decisionErrorTypes[check.cause]);
      const now = new Date();
      return responses.map((decision) => book.apply(decision, 'update', now));
    },
    {
      validator: (request) => {
        const parsedRequest = respondToToolApprovalsInputSchema.safeParse(request);
        if (!parsedRequest.success) {
          throw ApplicationFailure.nonRetryable(
            `Invalid respondToToolApprovals input: ${z.prettifyError(parsedRequest.error)}`,
            decisionErrorTypes.invalid,
          );
        }
        const check = book.checkBatch(parsedRequest.data.responses);
        if (!check.accepted) throw ApplicationFailure.nonRetryable(check.message, decisionErrorTypes[check.cause]);
      },
    },
  );
  setHandler(pendingToolApprovalsQuery, () => book.pending());
  setHandler(agentTurnStateQuery, () => ({
    status,
    messages: responseMessages,
    text,
    steps,
    pending: book.pending(),
    audit: book.audit(),
    ignoredDecisions: book.ignored(),
  }));

  const tools = new Map((await describeTools(input.tools)).map((tool) => [tool.name, tool]));
  let shownPending = '';

  /** Keeps the search attribute and the UI's details in step with what waits. */
  function showPending(): void {
    const pending = book.pending();
    const ids = pending.map((approval) => approval.approvalId);
    const key = ids.join(',');
    if (key === shownPending) return;
    shownPending = key;
    upsertSearchAttributes([{ key: pendingApprovalsSearchAttribute, value: ids.length > 0 ? ids : null }]);
    setCurrentDetails(describePendingApprovals(pending));
    status = pending.length > 0 ? 'awaiting-approval' : 'running';
  }

  async function runCall(call: ToolCallPart): Promise<ToolResultOutput> {
    return executeTool({ toolCallId: call.toolCallId, toolName: call.toolName, input: call.input });
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
    if (plan.kind === 'run' || approvalId === undefined) return toolResult(await runCall(call));
    const isDecided = () => book.decisionOf(approvalId) !== undefined;
    if (approvalTimeoutMs === undefined) {
      await condition(isDecided);
    } else if (!(await condition(isDecided, approvalTimeoutMs, { summary: `approval ${call.toolName}` }))) {
      book.expire(approvalId, `Approval expired: nobody decided within ${input.approvalTimeout}.`, new Date());
    }
    showPending();
    const decision = book.decisionOf(approvalId) as ToolApprovalAuditEntry;
    if (decision.decision === 'approved') return toolResult(await runCall(call));
    return toolResult(executionDenied(decision.reason));
  }

  while (steps < maxSteps) {
    steps += 1;
    const messages = [...input.messages, ...responseMessages];
    const modelStep = await callModel({ messages, tools: [...tools.values()], settings: input.model });
    const calls = modelStep.content.filter((part): part is ToolCallPart => part.type === 'tool-call');
    const content: AssistantContentPart[] = [...modelStep.content];
    text = modelStep.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
    if (calls.length === 0) {
      responseMessages.push({ role: 'assistant', content });
      status = 'completed';
      return result();
    }

    const inspections = await inspectToolCalls({ calls, messages, tools: [...tools.keys()] });
    const plans = planToolCalls({
      calls,
      invalidToolCalls: modelStep.invalidToolCalls,
      inspections,
      tools,
      autoApprove: input.autoApprove ?? false,
    });
    const now = new Date();
    const approvalIds = plans.map((plan) =>
      plan.kind === 'ask' || (plan.kind === 'run' && plan.autoApproved)
        ? formatApprovalId(workflowId, uuid4().replace(/-/g, '').slice(0, 12))
        : undefined,
    );
    plans.forEach((plan, index) => {
      const approvalId = approvalIds[index];
      if (approvalId === undefined) return;
      const approval = {
        approvalId,
        toolCallId: plan.call.toolCallId,
        toolName: plan.call.toolName,
        input: plan.call.input,
        requestedAt: now.toISOString(),
        ...(approvalTimeoutMs !== undefined && {
          expiresAt: new Date(now.getTime() + approvalTimeoutMs).toISOString(),
        }),
        step: steps,
      };
      if (plan.kind === 'ask') {
        book.request(approval);
        content.push({ type: 'tool-approval-request', approvalId, toolCallId: plan.call.toolCallId });
      } else {
        book.autoApprove(approval, now);
      }
    });
    responseMessages.push({ role: 'assistant', content });
    showPending();

    const results = await Promise.all(plans.map((plan, index) => settle(plan, approvalIds[index])));
    const responses = plans.flatMap((plan, index): ToolApprovalResponsePart[] => {
      const approvalId = approvalIds[index];
      if (plan.kind !== 'ask' || approvalId === undefined) return [];
      const decision = book.decisionOf(approvalId) as ToolApprovalAuditEntry;
      return [
        {
          type: 'tool-approval-response',
          approvalId,
          approved: decision.decision === 'approved',
          ...(decision.reason !== undefined && { reason: decision.reason }),
        },
      ];
    });
    responseMessages.push({ role: 'tool', content: [...responses, ...results] });
  }
  status = 'max-steps-reached';
  return result();

  function result(): AgentTurnResult {
    return {
      status: status === 'completed' ? 'completed' : 'max-steps-reached',
      messages: responseMessages,
      text,
      steps,
      audit: book.audit(),
      ignoredDecisions: book.ignored(),
    };
  }
}
