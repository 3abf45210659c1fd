import { z } from 'zod';
import {
  inputDigestOf,
  type IssuedApproval,
  type NotificationTarget,
  type PlannedToolCall,
  type ToolCallPart,
} from '../../protocol';
import {
  proposePlanDescription,
  proposePlanParameters,
  proposePlanToolName,
  readPlan,
  strictestRights,
} from '../../protocol/plan-approval';
import { resolveGrantLimits } from '../../policy';
import type { ToolManifestEntry } from '../../tools';
import { issueApproval, type PlanningContext } from './plan-tool-calls';

/** The built-in `proposePlan` tool as the model is offered it, where the operator enables plan approval. */
export const proposePlanManifestEntry: ToolManifestEntry = {
  name: proposePlanToolName,
  description: proposePlanDescription,
  parameters: proposePlanParameters,
  approval: 'always',
};

/**
 * What happens to a `proposePlan` call: refused with an error the model reads (not a plan, too large, a tool the turn
 * does not have, arguments its schema refuses, no one who may decide every call), which changes nothing; or one
 * approval request whose input is the plan, decided by people who may decide every call in it (the strictest rights
 * of its calls), expiring when the first of them would, noticed where any of them would be.
 */
export function planProposal(call: ToolCallPart, context: PlanningContext): PlannedToolCall {
  const reject = (problem: string): PlannedToolCall => ({
    kind: 'reject',
    call,
    error: `The plan was not proposed: ${problem} Nothing was approved; make the calls one by one, or propose a corrected plan.`,
  });
  const plan = readPlan(call.input);
  if ('problem' in plan) return reject(plan.problem);
  const offered = new Set(context.offered);
  const issued: Array<{ toolName: string; approval: IssuedApproval }> = [];
  for (const [index, planned] of plan.calls.entries()) {
    const tool = offered.has(planned.toolName) ? context.registry.get(planned.toolName) : undefined;
    if (!tool || planned.toolName === proposePlanToolName) {
      return reject(
        `Call ${index + 1} names "${planned.toolName}", which is not one of your tools; you have ${context.offered.join(', ') || 'none'}.`,
      );
    }
    if (resolveGrantLimits(context.policy, planned.toolName).forbidden) {
      return reject(
        `Call ${index + 1} (${planned.toolName}) cannot be approved as part of a plan: the operator's policy allows no grants for that tool. Call it on its own.`,
      );
    }
    const parsed = tool.inputSchema.safeParse(planned.input);
    if (!parsed.success) {
      return reject(
        `Call ${index + 1} has invalid input for tool "${planned.toolName}":\n${z.prettifyError(parsed.error)}\n`,
      );
    }
    const plannedCall: ToolCallPart = { ...call, toolName: planned.toolName, input: planned.input };
    issued.push({ toolName: planned.toolName, approval: issueApproval(plannedCall, tool, context) });
  }
  const combined = strictestRights(
    issued.map(({ toolName, approval }) => ({ toolName, ...(approval.rights && { rights: approval.rights }) })),
    context.requester,
  );
  if ('problem' in combined) return reject(combined.problem);
  const own = issueApproval(call, undefined, context);
  const timeouts = [own, ...issued.map((entry) => entry.approval)].flatMap((approval) =>
    approval.timeoutMs === undefined ? [] : [approval.timeoutMs],
  );
  const notify = uniqueTargets(
    [own, ...issued.map((entry) => entry.approval)].flatMap((approval) => approval.notices?.notify ?? []),
  );
  const { rights: _rights, timeoutMs: _timeout, notices, ...rest } = own;
  const approval: IssuedApproval = {
    ...rest,
    ...(combined.rights && { rights: combined.rights }),
    ...(timeouts.length > 0 && { timeoutMs: Math.min(...timeouts) }),
    // An unanswered plan is only a denial: its calls can still ask one by one.
    onExpire: 'deny',
    ...(notify.length > 0 && { notices: { ...notices, notify } }),
  };
  return {
    kind: 'ask',
    call,
    executor: 'worker',
    approval,
    proposal: plan.calls.map((planned) => ({ toolName: planned.toolName, inputDigest: inputDigestOf(planned.input) })),
  };
}

function uniqueTargets(targets: NotificationTarget[]): NotificationTarget[] {
  const seen = new Set<string>();
  return targets.filter((target) => {
    const key = JSON.stringify(target);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
