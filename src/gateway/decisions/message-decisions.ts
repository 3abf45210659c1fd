import { inputDigestOf, type ModelMessage, type ToolApprovalResponsePart, type ToolCallPart } from '../../protocol';

/** A `tool-approval-response` in the messages of a new turn, with the call its request guards (when it is there). */
export interface DecisionInMessages {
  /** Where it is: `messages[message].content[part]`. */
  message: number;
  part: number;
  response: ToolApprovalResponsePart;
  /** The tool call the answered request names; absent when the messages hold no such request or call. */
  call?: Pick<ToolCallPart, 'toolName' | 'input'>;
  /** The approver the part names in `providerOptions.tollgate.approver`, if any. */
  namedApprover?: unknown;
}

/**
 * Every decision carried inside `messages` (a halted turn's continuation): the `tool-approval-response` parts of tool
 * messages, each with the call its request guards. A decision there is a decision like any other, so the gateway
 * finds them all before a turn starts.
 */
export function decisionsInMessages(messages: readonly ModelMessage[]): DecisionInMessages[] {
  const requests = new Map<string, string>();
  const calls = new Map<string, Pick<ToolCallPart, 'toolName' | 'input'>>();
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type === 'tool-approval-request') requests.set(part.approvalId, part.toolCallId);
      if (part.type === 'tool-call') calls.set(part.toolCallId, { toolName: part.toolName, input: part.input });
    }
  }
  const found: DecisionInMessages[] = [];
  messages.forEach((message, messageIndex) => {
    if (message.role !== 'tool') return;
    message.content.forEach((part, partIndex) => {
      if (part.type !== 'tool-approval-response') return;
      const toolCallId = requests.get(part.approvalId);
      const call = toolCallId === undefined ? undefined : calls.get(toolCallId);
      const named = part.providerOptions?.tollgate?.approver;
      found.push({
        message: messageIndex,
        part: partIndex,
        response: part,
        ...(call && { call }),
        ...(named !== undefined && { namedApprover: named }),
      });
    });
  });
  return found;
}

/**
 * `messages` with each decision's part replaced by what `vouch` makes of it: the gateway's own account of who decided
 * (the approver it authenticated), on what arguments, and its signature. Whatever the caller wrote in
 * `providerOptions.tollgate` — another approver, a signature copied from another turn — is gone.
 */
export function withVouchedDecisions(
  messages: readonly ModelMessage[],
  decisions: readonly DecisionInMessages[],
  vouch: (decision: DecisionInMessages, argumentsDigest: string) => ToolApprovalResponsePart,
): ModelMessage[] {
  const copy = messages.map((message) =>
    message.role === 'tool' ? { ...message, content: [...message.content] } : message,
  );
  for (const decision of decisions) {
    const message = copy[decision.message];
    if (message?.role !== 'tool') continue;
    message.content[decision.part] = vouch(decision, decision.call ? inputDigestOf(decision.call.input) : '');
  }
  return copy;
}
