/** What happened in a turn, in order; the `agentTurnEvents` query returns the list. */
export interface TurnEvent {
  /** What kind of thing happened. */
  type:
    | 'turn-started'
    | 'model-called'
    | 'model-step-retried'
    | 'approval-requested'
    | 'approval-decided'
    | 'tool-started'
    | 'tool-finished'
    | 'tool-output-submitted'
    | 'notification-failed'
    | 'policy-note'
    | 'turn-continued-as-new'
    | 'turn-completed';
  /** When (ISO 8601, workflow time). */
  at: string;
  /** The model step (1-based); 0 before the first model call. */
  step: number;
  toolCallId?: string;
  toolName?: string;
  approvalId?: string;
  /** A short description: the decision, the outcome, the status. */
  detail?: string;
}
