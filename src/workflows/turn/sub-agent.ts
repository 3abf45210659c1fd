import {
  ChildWorkflowFailure,
  executeChild,
  getExternalWorkflowHandle,
  isCancellation,
  ParentClosePolicy,
  setHandler,
} from '@temporalio/workflow';
import type {
  AgentTurnInput,
  AgentTurnResult,
  SubAgentPlan,
  ToolApprovalDecision,
  ToolResultOutput,
} from '../../protocol';
// Not from the protocol's index, which builds every zod schema in each workflow's module scope.
import { errorText } from '../../protocol/denial-and-error-outputs';
import { turnRevisions } from '../../protocol/turn-plan';
import { supersedeTurnSignal, toolApprovalResponseSignal, turnPendingApprovalsSignal } from '../definitions';
import { inspectPayload, signalPayloadLimits } from '../guards/bounded-payload';
import { messageOfThrown, textOfValue } from '../guards/text-of-value';
import type { TurnState } from './turn-state';

/** How deep agents may call agents when the turn does not say (`subAgentLimits.maxDepth`). */
export const defaultSubAgentDepth = 3;
/** How many model calls a whole tree of agents may make when the turn does not say (`subAgentLimits.maxTotalSteps`). */
export const defaultTreeSteps = 100;
/** A sub-agent's most model calls when its tool does not say. */
const defaultSubAgentSteps = 10;

/** The agent names from the top turn down to `turn` (empty for a top turn). */
export function pathOf(turn: TurnState): string[] {
  return turn.input.subAgent?.path ?? [];
}

/** How many model calls the tree still allows `turn` and what it starts, counting its own and its sub-agents'. */
function stepsLeft(turn: TurnState): number {
  const budget = turn.input.subAgent?.stepBudget ?? turn.input.subAgentLimits?.maxTotalSteps ?? defaultTreeSteps;
  return budget - turn.steps - turn.subAgentSteps;
}

/**
 * The child turn's input: the agent's instructions and tools, the task the calling model wrote, and what carries
 * down the tree unchanged (the requester, the caller's approval rules, autonomy, expiry, the model API and limits).
 */
export function childTurnInput(
  turn: TurnState,
  agent: SubAgentPlan,
  task: string,
  maxSteps: number,
  stepBudget: number,
): AgentTurnInput {
  const { input } = turn;
  return {
    messages: [
      { role: 'system', content: agent.instructions },
      { role: 'user', content: task },
    ],
    tools: agent.tools,
    maxSteps,
    ...((agent.model ?? input.model) && { model: agent.model ?? input.model }),
    ...(input.requester !== undefined && { requester: input.requester }),
    ...(input.approvalRules && { approvalRules: input.approvalRules }),
    ...(input.autoApprove !== undefined && { autoApprove: input.autoApprove }),
    ...(input.approvalTimeout !== undefined && { approvalTimeout: input.approvalTimeout }),
    ...(input.onExpire && { onExpire: input.onExpire }),
    ...(input.approvalBatch && { approvalBatch: input.approvalBatch }),
    ...(input.toolTimeouts && { toolTimeouts: input.toolTimeouts }),
    ...(input.modelApi && { modelApi: input.modelApi }),
    ...(input.modelSteps && { modelSteps: input.modelSteps }),
    ...(input.subAgentLimits && { subAgentLimits: input.subAgentLimits }),
    subAgent: { path: [...pathOf(turn), agent.name], stepBudget },
  };
}

/**
 * Runs an agent tool's call as a child turn started from this workflow (turn revision 11) and returns what the
 * calling model reads: the child's final answer, or an `error-text` when the tree is too deep or out of steps, or
 * the child failed, ran out of steps or was stopped. The child is terminated if this turn closes first.
 */
export async function runSubAgent(
  turn: TurnState,
  agent: SubAgentPlan,
  input: unknown,
  toolCallId?: string,
): Promise<ToolResultOutput> {
  const path = [...pathOf(turn), agent.name];
  const maxDepth = turn.input.subAgentLimits?.maxDepth ?? defaultSubAgentDepth;
  if (path.length > maxDepth) {
    return errorText(
      `Sub-agent "${agent.name}" was not started: agents may call agents only ${maxDepth} deep ` +
        `(${path.join(' → ')}). Do the task without it.`,
    );
  }
  // The turn's own step that made this call is counted; the child may use what the tree has left.
  const left = stepsLeft(turn);
  if (left < 1) {
    return errorText(
      `Sub-agent "${agent.name}" was not started: the agents of this conversation used every model call they may ` +
        `make. Answer with what you have.`,
    );
  }
  if (showsSubAgents(turn) && turn.approvals.superseded()) {
    return errorText(`Sub-agent "${agent.name}" was not started: this turn was superseded by a newer message.`);
  }
  const task = textOfValue((input as { task?: unknown } | undefined)?.task) ?? '';
  const maxSteps = Math.min(agent.maxSteps ?? defaultSubAgentSteps, left);
  turn.subAgentsStarted += 1;
  const workflowId = `${turn.workflowId}/${agent.name}-${turn.subAgentsStarted}`;
  let result: AgentTurnResult;
  turn.subAgents.started(workflowId, toolCallId);
  try {
    result = await executeChild<(input: AgentTurnInput) => Promise<AgentTurnResult>>('agentTurn', {
      workflowId,
      args: [childTurnInput(turn, agent, task, maxSteps, left)],
      parentClosePolicy: ParentClosePolicy.TERMINATE,
      staticSummary: `Sub-agent ${path.join(' → ')}: ${task.slice(0, 120)}`,
    });
  } catch (error) {
    if (isCancellation(error)) throw error;
    const cause = error instanceof ChildWorkflowFailure ? (error.cause ?? error) : error;
    turn.subAgentSteps += 1;
    return errorText(`Sub-agent "${agent.name}" failed: ${messageOfThrown(cause)}`);
  } finally {
    // What it waited for leaves this turn's list with it (it listed something only from turn revision 14).
    if (turn.subAgents.ended(workflowId)) turn.showPending();
  }
  turn.subAgentSteps += result.treeSteps ?? result.steps;
  return subAgentOutput(agent.name, result);
}

/** What the calling model reads of a finished sub-agent. */
export function subAgentOutput(name: string, result: AgentTurnResult): ToolResultOutput {
  const said = result.text.trim() === '' ? '' : ` Its last words: ${result.text}`;
  switch (result.status) {
    case 'completed': {
      const decided = result.audit.filter((entry) => entry.decision !== 'awaiting-quorum');
      if (decided.length > 0 && decided.every((entry) => entry.decision !== 'approved')) {
        return errorText(`Sub-agent "${name}" was denied every call it asked for.${said}`);
      }
      return { type: 'text', value: result.text };
    }
    case 'max-steps-reached':
      return errorText(`Sub-agent "${name}" ran out of steps (${result.steps}) before it answered.${said}`);
    case 'superseded':
      return errorText(`Sub-agent "${name}" was stopped before it answered.${said}`);
    default:
      return errorText(`Sub-agent "${name}" stopped waiting for approvals it could not get.${said}`);
  }
}

/** Whether the turn shows its sub-agents' approvals and passes supersession down (turn revision 14). */
function showsSubAgents(turn: TurnState): boolean {
  return turn.revision() >= turnRevisions.subAgentApprovalsShown;
}

/**
 * Takes the `turnPendingApprovals` signals of the turn's sub-agents (turn revision 14): what a running child waits
 * for shows in this turn's pending list, details and search attributes, and goes on to this turn's own parent.
 * Before revision 14 a child's signal stayed unread in its parent, and still does in those turns, so they replay.
 */
export function registerSubAgentHandlers(turn: TurnState): void {
  setHandler(turnPendingApprovalsSignal, (payload: unknown) => {
    if (!showsSubAgents(turn)) return;
    if (turn.subAgents.receive(payload)) turn.showPending();
  });
}

/**
 * Passes a decision signalled to this turn for an approval one of its running sub-agents listed on to the turn that
 * waits for it, unchanged (turn revision 14); returns whether it did. The sub-agent judges it as any decision sent to
 * it directly: the approver's rights, the requester, a signature bound to its own workflow and approval.
 */
export function passDecisionToSubAgent(turn: TurnState, payload: unknown): boolean {
  if (!showsSubAgents(turn) || !inspectPayload(payload, signalPayloadLimits).bounded) return false;
  const approvalId = (payload as { approvalId?: unknown } | null | undefined)?.approvalId;
  if (typeof approvalId !== 'string') return false;
  const holder = turn.subAgents.holderOf(approvalId);
  if (holder === undefined) return false;
  // If the sub-agent has just ended, the decision has nothing left to decide.
  void getExternalWorkflowHandle(holder)
    .signal(toolApprovalResponseSignal, payload as ToolApprovalDecision)
    .catch(() => undefined);
  return true;
}

/**
 * A superseded turn supersedes its running sub-agents with the same reason (turn revision 14): they deny what they
 * wait for, supersede theirs, and end; the turn reads that each was stopped. It starts no sub-agent after.
 */
export function supersedeSubAgents(turn: TurnState, reason: string): void {
  if (!showsSubAgents(turn)) return;
  for (const workflowId of turn.subAgents.running()) {
    void getExternalWorkflowHandle(workflowId)
      .signal(supersedeTurnSignal, { reason })
      .catch(() => undefined);
  }
}
