import type { AgentTurnInput, ModelMessage } from '../../protocol';
import type { PlanningContext } from './plan-tool-calls';
import type { TurnActivityDependencies } from '../turn-activity-dependencies';

/**
 * What planning a step's calls needs: the worker's tools, policy and secrets, and the caller's rules from the turn's
 * input (which may only make the operator's stricter). `notes` starts empty and collects sentences for the turn's
 * events.
 */
export function planningContextOf(
  workflowId: string,
  { input, offered }: { input: AgentTurnInput; offered: string[] },
  messages: ModelMessage[],
  dependencies: Pick<TurnActivityDependencies, 'registry' | 'policy' | 'approvalSecret' | 'onToolApproval'>,
): PlanningContext {
  return {
    workflowId,
    registry: dependencies.registry,
    offered,
    policy: dependencies.policy,
    ...(dependencies.approvalSecret !== undefined && { approvalSecret: dependencies.approvalSecret }),
    ...(dependencies.onToolApproval && { onToolApproval: dependencies.onToolApproval }),
    caller: {
      ...input.approvalRules,
      ...(input.approvalTimeout !== undefined && { approvalTimeout: input.approvalTimeout }),
      ...(input.onExpire !== undefined && { onExpire: input.onExpire }),
    },
    ...(input.requester !== undefined && { requester: input.requester }),
    ...(input.subAgent && { subAgentDepth: input.subAgent.path.length }),
    autoApprove: input.autoApprove === true,
    batch: input.approvalBatch ?? 'per-call',
    messages,
    notes: [],
  };
}
