import type { AgentTurnState, AgentTurnStatus } from '../../protocol';
import type { ModelStreamProgress } from '../../activities/model/model-stream-progress';

/** Where a turn is, as the chat sees it: the turn's own statuses, plus not started yet and failed. */
export type ChatTurnStatus = AgentTurnStatus | 'not-started' | 'failed';

/**
 * One look at a turn: what its `agentTurnState` query (or, once closed, its result) says, and how far the model
 * call in flight has got (from the activity's heartbeat, which is not in history).
 */
export interface TurnSnapshot {
  status: ChatTurnStatus;
  /** True when the turn's workflow has closed: nothing more will happen. */
  closed: boolean;
  messages: AgentTurnState['messages'];
  pending: AgentTurnState['pending'];
  audit: AgentTurnState['audit'];
  awaitingOutput: AgentTurnState['awaitingOutput'];
  /** Sub-agents still working that list nothing waiting yet (absent when none). */
  subAgentsWorking?: number;
  /** The model call in flight, if it has reported progress. */
  streaming?: ModelStreamProgress;
  /** Why the turn failed, for a `failed` status. */
  failure?: string;
  /** Who started the turn, read once it has approvals to show; absent for turns started without one. */
  requester?: string;
}

/**
 * A finished turn as the conversation's transcript keeps it: its assistant and tool messages, with decisions as
 * their `tool-approval-response` parts (the audit stays with the turn's workflow).
 */
export function storedTurnSnapshot(messages: AgentTurnState['messages']): TurnSnapshot {
  return { status: 'completed', closed: true, messages, pending: [], audit: [], awaitingOutput: [] };
}
