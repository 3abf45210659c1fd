import type { ToolApprovalRequestPart, ToolApprovalResponsePart, ToolCallPart } from './message-parts';
import type { ModelMessage } from './model-message';

/** A request for approval together with the call it guards. */
export interface CollectedApproval {
  request: ToolApprovalRequestPart;
  toolCall: ToolCallPart;
}

/** What a history says about approvals, for a turn that continues it. */
export type CollectedToolApprovals =
  | {
      ok: true;
      /** Requests answered by the last message (the first response per id wins), whose calls have no result yet. */
      answered: Array<CollectedApproval & { response: ToolApprovalResponsePart }>;
      /** Requests whose calls have neither a result nor a response: still waiting. */
      unanswered: CollectedApproval[];
    }
  | { ok: false; error: string };

/**
 * Finds the decisions a stateless caller sends back, as the AI SDK's collectToolApprovals does, with
 * its weak spots fixed: a duplicate response never runs a call twice, a call that already has a result
 * anywhere in the history is not run again, and requests left without an answer are reported, not lost.
 */
export function collectToolApprovals(messages: readonly ModelMessage[]): CollectedToolApprovals {
  const last = messages.at(-1);
  const toolCalls = new Map<string, ToolCallPart>();
  const requests = new Map<string, ToolApprovalRequestPart>();
  const results = new Set<string>();
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type === 'tool-call') toolCalls.set(part.toolCallId, part);
      else if (part.type === 'tool-approval-request') requests.set(part.approvalId, part);
      else if (part.type === 'tool-result') results.add(part.toolCallId);
    }
  }
  const responses = new Map<string, ToolApprovalResponsePart>();
  if (last?.role === 'tool') {
    for (const part of last.content) {
      if (part.type !== 'tool-approval-response' || responses.has(part.approvalId)) continue;
      if (!requests.has(part.approvalId)) {
        return {
          ok: false,
          error: `Unknown approvalId "${part.approvalId}": no tool-approval-request in the messages has this id.`,
        };
      }
      responses.set(part.approvalId, part);
    }
  }
  const answered: Array<CollectedApproval & { response: ToolApprovalResponsePart }> = [];
  const unanswered: CollectedApproval[] = [];
  for (const request of requests.values()) {
    const toolCall = toolCalls.get(request.toolCallId);
    if (!toolCall) {
      return {
        ok: false,
        error: `Approval request "${request.approvalId}" names tool call "${request.toolCallId}", which is not in the messages.`,
      };
    }
    if (results.has(request.toolCallId)) continue;
    const response = responses.get(request.approvalId);
    if (response) answered.push({ request, toolCall, response });
    else if (!toolCall.providerExecuted) unanswered.push({ request, toolCall });
  }
  return { ok: true, answered, unanswered };
}
