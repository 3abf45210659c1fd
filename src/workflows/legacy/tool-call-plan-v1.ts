import type { ToolCallPart } from '../../protocol';
import type { InvalidToolCall, ToolCallInspection } from '../../activities/activity-types';
import type { ToolManifestEntry } from '../../tools';

/** What happens to one tool call: refused as invalid, run at once, or held for a decision. */
export type ToolCallPlan =
  | { kind: 'reject'; call: ToolCallPart; error: string }
  | { kind: 'run'; call: ToolCallPart; autoApproved: boolean }
  | { kind: 'ask'; call: ToolCallPart };

/**
 * Decides each call's fate. Static approval flags are decided here, in the workflow; per-call rules
 * come from the `inspectToolCalls` activity. When in doubt (a per-call rule that gave no answer),
 * the call asks: a tool that needs approval must never run without one.
 */
export function planToolCalls(options: {
  calls: ToolCallPart[];
  invalidToolCalls: InvalidToolCall[];
  inspections: ToolCallInspection[];
  tools: Map<string, ToolManifestEntry>;
  autoApprove: boolean;
  /** `all-if-any`: when one call of the step asks, every valid call asks (Agent Framework's rule). */
  batch: 'per-call' | 'all-if-any';
}): ToolCallPlan[] {
  const invalidById = new Map(options.invalidToolCalls.map((invalid) => [invalid.toolCallId, invalid.error]));
  const inspectionById = new Map(options.inspections.map((inspection) => [inspection.toolCallId, inspection]));
  const plans = options.calls.map((call): ToolCallPlan => {
    const unreadable = invalidById.get(call.toolCallId);
    if (unreadable !== undefined) return { kind: 'reject', call, error: unreadable };
    const tool = options.tools.get(call.toolName);
    if (!tool) {
      const available = [...options.tools.keys()].join(', ') || 'none';
      return { kind: 'reject', call, error: `Unknown tool "${call.toolName}". Available tools: ${available}.` };
    }
    const inspection = inspectionById.get(call.toolCallId);
    if (!inspection) return { kind: 'reject', call, error: `Tool call "${call.toolCallId}" could not be checked.` };
    if (inspection.status === 'invalid') return { kind: 'reject', call, error: inspection.error };
    const needsApproval =
      tool.approval === 'always' || (tool.approval === 'per-call' && inspection.needsApproval !== false);
    if (!needsApproval) return { kind: 'run', call, autoApproved: false };
    return options.autoApprove ? { kind: 'run', call, autoApproved: true } : { kind: 'ask', call };
  });
  if (options.batch === 'all-if-any' && plans.some((plan) => plan.kind === 'ask')) {
    return plans.map((plan) => (plan.kind === 'run' ? { kind: 'ask', call: plan.call } : plan));
  }
  return plans;
}
