import { getToolName, isToolUIPart, type UIMessage } from 'ai';

type Part = UIMessage['parts'][number];

/** A sub-agent's call as the chat stream sends it (`data-sub-agent-approval`), with the decision made on this page. */
export interface SubAgentCallData {
  /** `waiting`; `responded` once decided on this page; `settled` once the turn no longer waits for it. */
  state: 'waiting' | 'responded' | 'settled';
  approvalId: string;
  /** The agents from this turn down to the one that asks: `['writer', 'reader']`. */
  path?: string[];
  /** This turn's agent tool call whose sub-agent the call waits under. */
  agentToolCallId?: string;
  toolName?: string;
  input?: unknown;
  expiresAt?: string;
  approved?: boolean;
  reason?: string;
}

/** The sub-agent's call a message part carries, when it is one. */
export function subAgentCallOf(part: Part): SubAgentCallData | undefined {
  if (part.type !== 'data-sub-agent-approval') return undefined;
  const data = (part as { data?: unknown }).data as Partial<SubAgentCallData> | undefined;
  return typeof data?.approvalId === 'string' && typeof data.state === 'string'
    ? (data as SubAgentCallData)
    : undefined;
}

/**
 * Which tool part of `message` each sub-agent's call shows inside (by part index): the agent tool's call it waits
 * under (`agentToolCallId`), so that two calls of one agent tool at once each hold their own sub-agent's calls. A
 * stream without that id (a gateway before it) is read by the tool its path starts with, the running call first. A
 * call no part owns is not shown (its agent's call is not on the page yet).
 */
export function subAgentCallsByOwner(message: UIMessage): Map<number, SubAgentCallData[]> {
  const owners = new Map<number, SubAgentCallData[]>();
  for (const part of message.parts) {
    const call = subAgentCallOf(part);
    if (!call) continue;
    const owner =
      call.agentToolCallId !== undefined ? ownerByCall(message, call.agentToolCallId) : ownerByTool(message, call);
    if (owner === undefined) continue;
    owners.set(owner, [...(owners.get(owner) ?? []), call]);
  }
  return owners;
}

function ownerByCall(message: UIMessage, toolCallId: string): number | undefined {
  const index = message.parts.findIndex((part) => isToolUIPart(part) && part.toolCallId === toolCallId);
  return index < 0 ? undefined : index;
}

function ownerByTool(message: UIMessage, call: SubAgentCallData): number | undefined {
  const agent = call.path?.[0];
  if (agent === undefined) return undefined;
  const ofAgent = message.parts.flatMap((candidate, index) =>
    isToolUIPart(candidate) && getToolName(candidate) === agent ? [index] : [],
  );
  const running = ofAgent.find((index) => (message.parts[index] as { state?: string }).state === 'input-available');
  return running ?? ofAgent.at(-1);
}
