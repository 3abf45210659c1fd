import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import {
  conversationIdOf,
  topTurnIdOf,
  formatApprovalId,
  type GrantClaim,
  type LedgerClaimInput,
  type IssuedApproval,
  type ModelMessage,
  type PlannedToolCall,
  type SubAgentPlan,
  type ToolCallPart,
} from '../../protocol';
import { proposePlanToolName } from '../../protocol/plan-approval';
import { resolveApprovalRules, resolveGrantLimits, type CallerRules, type OperatorPolicy } from '../../policy';
import type { Tool, ToolRegistry } from '../../tools';
import type { InvalidToolCall, ToolApprovalPolicy } from '../activity-types';
import { inputDigestOf, signToolApproval } from './approval-signature';

/** What planning needs to know about the turn and the worker. */
export interface PlanningContext {
  workflowId: string;
  registry: ToolRegistry;
  /** Tools this turn offers. */
  offered: readonly string[];
  policy: OperatorPolicy;
  approvalSecret?: string;
  onToolApproval?: ToolApprovalPolicy;
  caller?: CallerRules;
  requester?: string;
  /** How deep the turn is in a tree of agents (its sub-agent path's length; 0 or absent for a top turn). */
  subAgentDepth?: number;
  autoApprove: boolean;
  batch: 'per-call' | 'all-if-any';
  /** The messages the model saw, for `needsApproval` functions. */
  messages: ModelMessage[];
  /** Sentences for the turn's events. */
  notes: string[];
  /** The model step (1-based) being planned: with the call's place in it, it names the call's grant claim. */
  step?: number;
  /** Claims a standing grant for a call that asks (turns from revision 10); absent where grants are not consulted. */
  claimGrant?: GrantClaimer;
  /** Set where decisions must be signed: only grants signed by one of these gateway keys cover a call. */
  grantKeys?: Record<string, string>;
  /**
   * Plans a call of the built-in `proposePlan` tool (`planProposal`), where the operator enables plan approval for the
   * turn (turns from revision 12); the tool is unknown otherwise.
   */
  proposePlan?: (call: ToolCallPart, context: PlanningContext) => PlannedToolCall;
}

/**
 * Asks the grant ledger to let one call through (see `GrantLedgerClient.claim`); `about` names the call's approval, for
 * the audit record of a use.
 */
export type GrantClaimer = (input: LedgerClaimInput, about?: { approvalId: string }) => Promise<GrantClaim>;

/**
 * Decides the fate of each call of a step: refused (the model reads why), run at once, or held for
 * a decision under the rules that apply to it. A tool that needs approval never runs without one:
 * when a rule cannot answer, the call asks.
 */
export async function planToolCalls(
  calls: readonly ToolCallPart[],
  invalid: readonly InvalidToolCall[],
  context: PlanningContext,
): Promise<PlannedToolCall[]> {
  const unreadable = new Map(invalid.map((entry) => [entry.toolCallId, entry.error]));
  const offered = new Set(context.offered);
  const checked = await Promise.all(
    calls.map(
      async (
        call,
      ): Promise<{ call: ToolCallPart; tool?: Tool; error?: string; asks?: boolean; proposal?: PlannedToolCall }> => {
        const error = unreadable.get(call.toolCallId);
        if (error !== undefined) return { call, error };
        if (context.proposePlan && call.toolName === proposePlanToolName) {
          return { call, proposal: context.proposePlan(call, context) };
        }
        const tool = offered.has(call.toolName) ? context.registry.get(call.toolName) : undefined;
        if (!tool) {
          return {
            call,
            error: `Unknown tool "${call.toolName}". Available tools: ${context.offered.join(', ') || 'none'}.`,
          };
        }
        const parsed = tool.inputSchema.safeParse(call.input);
        if (!parsed.success) {
          return { call, error: `Invalid input for tool "${call.toolName}":\n${z.prettifyError(parsed.error)}` };
        }
        return { call, tool, asks: await needsApproval(tool, parsed.data, call, context) };
      },
    ),
  );
  const anyAsks = checked.some((entry) => entry.asks === true);
  const plans: PlannedToolCall[] = [];
  for (const entry of checked) {
    const { call, tool } = entry;
    if (entry.proposal) {
      plans.push(entry.proposal);
      continue;
    }
    if (!tool || entry.error !== undefined) {
      plans.push({ kind: 'reject', call, error: entry.error ?? 'The call could not be checked.' });
      continue;
    }
    const asks = entry.asks === true || (context.batch === 'all-if-any' && anyAsks);
    const agent = subAgentPlanOf(tool, context.registry.names());
    if (!asks) {
      plans.push({ kind: 'run', call, executor: tool.executor, ...(agent && { agent }) });
    } else if (context.autoApprove) {
      plans.push({
        kind: 'run',
        call,
        executor: tool.executor,
        autoApproved: issueApproval(call, tool, context),
        ...(agent && { agent }),
      });
    } else {
      plans.push({
        kind: 'ask',
        call,
        executor: tool.executor,
        approval: issueApproval(call, tool, context),
        ...(agent && { agent }),
      });
    }
  }
  await consultPolicy(plans, context);
  await claimGrants(plans, context);
  return plans;
}

/**
 * What the workflow needs to start an agent tool's sub-agent as a child turn; undefined for any other tool. Its tools
 * are the agent tool's own and, for each of its MCP servers, every tool of that server the worker has (`registered`).
 */
export function subAgentPlanOf(tool: Tool, registered: readonly string[] = []): SubAgentPlan | undefined {
  if (!tool.agent) return undefined;
  const servers = tool.agent.mcpServers ?? [];
  const fromServers = registered.filter((name) => servers.some((server) => name.startsWith(`${server}__`)));
  return {
    name: tool.name,
    instructions: tool.agent.instructions,
    tools: [...new Set([...tool.agent.tools.map((sub) => sub.name), ...fromServers])],
    ...(tool.agent.model && { model: tool.agent.model }),
    ...(tool.agent.maxSteps !== undefined && { maxSteps: tool.agent.maxSteps }),
  };
}

async function needsApproval(
  tool: Tool,
  input: unknown,
  call: ToolCallPart,
  context: PlanningContext,
): Promise<boolean> {
  if (context.policy.tools?.[tool.name]?.needsApproval) return true;
  if (typeof tool.needsApproval !== 'function') return tool.needsApproval;
  try {
    return (await tool.needsApproval(input, { toolCallId: call.toolCallId, messages: context.messages })) !== false;
  } catch (error) {
    context.notes.push(`needsApproval of ${tool.name} threw (${(error as Error).message}); a person is asked.`);
    return true;
  }
}

/** A new approval request for `call`: its id, its signature and the rules it runs under. */
export function issueApproval(
  call: ToolCallPart,
  tool: Pick<Tool, 'name' | 'approvalRules' | 'approvalTimeoutMs' | 'onExpire'> | undefined,
  context: Pick<PlanningContext, 'workflowId' | 'policy' | 'approvalSecret' | 'caller' | 'requester' | 'notes'>,
  approvalId: string = formatApprovalId(context.workflowId, randomBytes(6).toString('hex')),
): IssuedApproval {
  const rules = resolveApprovalRules({
    policy: context.policy,
    toolName: call.toolName,
    toolRules: {
      ...tool?.approvalRules,
      ...(tool?.approvalTimeoutMs !== undefined && { approvalTimeoutMs: tool.approvalTimeoutMs }),
      ...(tool?.onExpire !== undefined && { onExpire: tool.onExpire }),
    },
    ...(context.caller !== undefined && { caller: context.caller }),
    ...(context.requester !== undefined && { requester: context.requester }),
  });
  for (const sentence of rules.refused) if (!context.notes.includes(sentence)) context.notes.push(sentence);
  const signed = { approvalId, toolCallId: call.toolCallId, toolName: call.toolName, input: call.input };
  return {
    approvalId,
    ...(context.approvalSecret !== undefined && { signature: signToolApproval(context.approvalSecret, signed) }),
    inputDigest: inputDigestOf(call.input),
    ...(rules.rights && { rights: rules.rights }),
    ...(rules.timeoutMs !== undefined && { timeoutMs: rules.timeoutMs }),
    onExpire: rules.onExpire,
    ...(rules.notify.length > 0 && {
      notices: {
        notify: rules.notify,
        ...(rules.remindAfterMs !== undefined && { remindAfterMs: rules.remindAfterMs }),
        ...(rules.escalateTo && { escalateTo: rules.escalateTo }),
        ...(rules.warnBeforeExpiryMs !== undefined && { warnBeforeExpiryMs: rules.warnBeforeExpiryMs }),
      },
    }),
  };
}

/**
 * Lets the worker's `onToolApproval` policy answer asks before anyone is asked. Booleans mean
 * approve or deny; anything it cannot say (a throw, nonsense) leaves the call to a person.
 */
async function consultPolicy(plans: PlannedToolCall[], context: PlanningContext): Promise<void> {
  const policy = context.onToolApproval;
  if (!policy) return;
  await Promise.all(
    plans.map(async (plan) => {
      // A plan is a person's to approve: the policy answers for single calls, never for a set of them at once.
      if (plan.kind !== 'ask' || plan.proposal) return;
      let answer: unknown;
      try {
        answer = await policy({
          approvalId: plan.approval.approvalId,
          toolCallId: plan.call.toolCallId,
          toolName: plan.call.toolName,
          input: plan.call.input,
          workflowId: context.workflowId,
          ...(context.requester !== undefined && { requester: context.requester }),
        });
      } catch (error) {
        context.notes.push(
          `onToolApproval threw for ${plan.call.toolName} (${(error as Error).message}); a person is asked.`,
        );
        return;
      }
      const decided = readPolicyAnswer(answer);
      if (decided) plan.approval.policy = decided;
      else if (answer !== 'ask' && (answer as { decision?: unknown })?.decision !== 'ask') {
        context.notes.push(
          `onToolApproval answered ${JSON.stringify(answer)} for ${plan.call.toolName}; a person is asked.`,
        );
      }
    }),
  );
}

/**
 * Lets a standing grant answer each call that still asks: the ledger counts one use per call, across every worker. The
 * claim id names the call's place in this step of this turn, so a retried step counts it once. A quorum call is never
 * claimed (no one person may decide it); a ledger that cannot be reached leaves the call to a person.
 */
async function claimGrants(plans: PlannedToolCall[], context: PlanningContext): Promise<void> {
  const claim = context.claimGrant;
  if (!claim || context.step === undefined) return;
  await Promise.all(
    plans.map(async (plan, index) => {
      if (plan.kind !== 'ask' || plan.proposal || plan.approval.policy || (plan.approval.rights?.quorum ?? 1) > 1)
        return;
      const approvers = plan.approval.rights?.approvers;
      try {
        const answer = await claim(
          {
            claimId: `${context.workflowId}#${context.step}#${index}`,
            call: {
              workflowId: context.workflowId,
              // A sub-agent's calls belong to its top turn's conversation.
              conversationId: conversationIdOf(topTurnIdOf(context.workflowId, context.subAgentDepth)),
              ...(context.requester !== undefined && { requester: context.requester }),
              toolName: plan.call.toolName,
              input: plan.call.input,
              inputDigest: plan.approval.inputDigest,
            },
            rights: { ...(approvers && { approvers }), quorum: 1 },
            limits: resolveGrantLimits(context.policy, plan.call.toolName),
            ...(context.grantKeys !== undefined && { trustedKeys: context.grantKeys }),
          },
          { approvalId: plan.approval.approvalId },
        );
        if (!answer.covered) return;
        const { covered: _covered, claimedAt: _claimedAt, ...use } = answer;
        plan.approval.grant = use;
      } catch (error) {
        context.notes.push(
          `The standing grants could not be consulted for ${plan.call.toolName} (${(error as Error).message}); a person is asked.`,
        );
      }
    }),
  );
}

function readPolicyAnswer(answer: unknown): { approved: boolean; reason?: string } | undefined {
  if (answer === true || answer === 'approve') return { approved: true };
  if (answer === false || answer === 'deny') return { approved: false };
  if (typeof answer === 'object' && answer !== null) {
    const { decision, reason } = answer as { decision?: unknown; reason?: unknown };
    const approved =
      decision === 'approve' || decision === true
        ? true
        : decision === 'deny' || decision === false
          ? false
          : undefined;
    if (approved === undefined) return undefined;
    return { approved, ...(typeof reason === 'string' && { reason }) };
  }
  return undefined;
}
