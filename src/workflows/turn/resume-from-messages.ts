import type { ResumeOutput, TurnActivities } from '../../activities/turn-activity-types';
import type { AgentTurnInput } from '../../protocol';

/**
 * The calls an earlier turn left open, if the caller's messages carry any: a stateless caller
 * continues a halted turn by sending decisions as its last message. Whether a request was issued by
 * Tollgate and a decision was made by someone with the right is checked by the activity and the
 * approval book, never taken from the messages on trust.
 */
export async function resumeFromMessages(
  input: AgentTurnInput,
  workflowId: string,
  startedAt: Date,
  planResumedCalls: TurnActivities['planResumedCalls'],
): Promise<ResumeOutput | undefined> {
  if (!carriesApprovals(input)) return undefined;
  const { messages, transcript: _transcript, ...options } = input;
  const resumed = await planResumedCalls({ workflowId, options, messages, startedAt: startedAt.toISOString() });
  return resumed.calls.length > 0 ? resumed : undefined;
}

/** Whether the caller's messages carry approval requests or decisions: only then is there anything to resume. */
export function carriesApprovals(input: Pick<AgentTurnInput, 'messages'>): boolean {
  return input.messages.some(
    (message) =>
      typeof message.content !== 'string' &&
      message.content.some((part) => part.type === 'tool-approval-request' || part.type === 'tool-approval-response'),
  );
}
