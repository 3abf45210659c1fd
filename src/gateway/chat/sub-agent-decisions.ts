import type { UIMessage } from 'ai';
import type { DecisionRequest } from '../decisions/approval-decisions';

/** The part the chat stream sends for a sub-agent's waiting call, and the page marks `responded` once decided. */
export const subAgentApprovalPartType = 'data-sub-agent-approval';

/** At most this many nested decisions are read from one chat request. */
const maxDecisions = 20;
/** A reason longer than this is cut (the decision path bounds it again). */
const maxReasonLength = 1_000;

/**
 * The decisions a chat page made on sub-agents' calls shown inside their agent tools' calls: each
 * `data-sub-agent-approval` part of the assistant message whose data the page set to
 * `{ state: 'responded', approvalId, approved, reason? }`. Read defensively (the message is the client's): at most 20,
 * ids of the approvalId alphabet, a boolean decision; anything else is not a decision. Whether the turn waits for the
 * approval, and whether this person may decide it, is for the caller and the decision path to judge.
 */
export function subAgentDecisionsOf(message: UIMessage): DecisionRequest[] {
  const decisions: DecisionRequest[] = [];
  for (const part of message.parts) {
    if (part.type !== subAgentApprovalPartType) continue;
    const data = (part as { data?: unknown }).data as
      { state?: unknown; approvalId?: unknown; approved?: unknown; reason?: unknown } | null | undefined;
    if (data === null || typeof data !== 'object' || data.state !== 'responded') continue;
    const { approvalId, approved, reason } = data;
    if (typeof approvalId !== 'string' || !/^[A-Za-z0-9._:-]{1,1000}$/.test(approvalId)) continue;
    if (typeof approved !== 'boolean') continue;
    if (decisions.some((decision) => decision.approvalId === approvalId)) continue;
    decisions.push({
      approvalId,
      approved,
      ...(typeof reason === 'string' && reason.trim() !== '' && { reason: reason.slice(0, maxReasonLength) }),
    });
    if (decisions.length >= maxDecisions) break;
  }
  return decisions;
}
