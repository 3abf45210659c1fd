import { z } from 'zod';
import { decisionSignatureSchema } from './decision-signature';

/**
 * One decision on one approval, as a bot or a person sends it.
 * Strict: an unknown key is a mistake worth reporting, not something to drop silently.
 */
export const toolApprovalDecisionSchema = z.strictObject({
  /** The id from the `tool-approval-request` part. */
  approvalId: z.string().min(1),
  /** `true` lets the call run; `false` turns it into an `execution-denied` result. */
  approved: z.boolean(),
  /** Why; the model reads it when the call is denied. */
  reason: z.string().max(2000).optional(),
  /** Who decided (a user id, an email address, a bot name). */
  approver: z.string().min(1).max(200).optional(),
  /** Digest of the tool name and arguments the approver was shown; must match the request's. */
  argumentsDigest: z.string().min(1).max(100).optional(),
  /** The gateway's signature, required by workers that accept only signed decisions. */
  signature: decisionSignatureSchema.optional(),
  /**
   * Approve with this input instead of the model's (only with `approved: true`, only by one of the approval's
   * `editors`, from turn revision 7); it must pass the tool's input schema. See docs/editing-arguments.md.
   */
  input: z.json().optional(),
});
export type ToolApprovalDecision = z.infer<typeof toolApprovalDecisionSchema>;

/** The input of the `respondToToolApprovals` update: several decisions at once. */
export const respondToToolApprovalsInputSchema = z.strictObject({
  responses: z.array(toolApprovalDecisionSchema).min(1).max(100),
});
export type RespondToToolApprovalsInput = z.infer<typeof respondToToolApprovalsInputSchema>;

/** A tool call waiting for a decision, as the `pendingToolApprovals` query lists it. */
export interface PendingToolApproval {
  /** Key for the decision. */
  approvalId: string;
  /** The tool call it guards. */
  toolCallId: string;
  /** The tool the model wants to run. */
  toolName: string;
  /** The arguments the model sent (already validated against the tool's schema). */
  input: unknown;
  /** When the request was made (ISO 8601). */
  requestedAt: string;
  /** When it expires and is denied (ISO 8601), if the turn set an `approvalTimeout`. */
  expiresAt?: string;
  /** The model step (1-based) that made the call. */
  step: number;
  /** base64url SHA-256 of the canonical JSON of `input`; a decision may name it to bind itself to what was shown. */
  inputDigest?: string;
  /** The request's HMAC signature in the AI SDK's format, when the worker signs requests. */
  signature?: string;
  /** Who may decide, when restricted. */
  approvers?: string[];
  /** Who may approve with changed input (`input` on the decision); nobody when absent. */
  editors?: string[];
  /** Distinct approvals needed, when more than one. */
  quorum?: number;
  /** Approvals collected so far towards the quorum. */
  votes?: Array<{ approver: string; decidedAt: string }>;
  /**
   * The sub-agents from the top turn down to the one whose call this is (`['researcher']` reads "researcher →
   * writeFile"), from turn revision 14; absent for the top turn's own calls. A parent turn lists its sub-agents'
   * approvals with theirs; a decision by `approvalId` reaches the sub-agent that waits (docs/sub-agents.md).
   */
  path?: string[];
  /**
   * `false` on a sub-agent's call the requester may not approve themselves (from turn revision 16), so the turns above
   * it show the call's real approvers; absent otherwise.
   */
  selfApprovalAllowed?: false;
  /**
   * On a sub-agent's call as a parent turn lists it: the id of the parent's own agent tool call whose sub-agent it
   * waits under (each turn up the tree puts its own), so a page draws it inside that call even when the same agent
   * tool runs twice at once; absent on a turn's own calls.
   */
  agentToolCallId?: string;
}

/**
 * The outcome of an approval: decided, or expired. `awaiting-quorum` appears only in what an update
 * returns for an approval that needs more approvers; the audit holds final outcomes.
 */
export type ApprovalOutcome = 'approved' | 'denied' | 'expired' | 'awaiting-quorum';

/** How a decision reached the workflow. */
export type DecisionChannel =
  'signal' | 'update' | 'timeout' | 'auto-approve' | 'policy' | 'grant' | 'plan' | 'message' | 'superseded';

/** One line of a turn's approval audit: what was asked, what was decided, by whom, when and how. */
export interface ToolApprovalAuditEntry extends PendingToolApproval {
  /** What was decided. */
  decision: ApprovalOutcome;
  /** The reason given with the decision, or why it expired. */
  reason?: string;
  /** Who decided; `auto-approve` for an autonomous run, `policy` for the worker's onToolApproval, absent when nobody said. */
  approver?: string;
  /** When the decision was recorded (ISO 8601). */
  decidedAt: string;
  /** How the decision arrived. */
  via: DecisionChannel;
  /** The input the call ran with when an editor changed it; `input` stays what the model sent. */
  editedInput?: unknown;
  /** Who changed the input (the approver of an edited approval). */
  editedBy?: string;
  /** The standing grant that approved the call (`via: 'grant'`; `approver` is who gave it). */
  grant?: { grantId: string; grantedBy: string };
  /** The approved plan that covered the call (`via: 'plan'`): its approval and who approved it. */
  plan?: { approvalId: string; approvedBy: string[] };
}

/** What applying a decision did: recorded it, found it already recorded, or counted a vote towards a quorum. */
export type DecisionOutcome = 'recorded' | 'repeat' | 'vote-recorded';

/** A decision as the `respondToToolApprovals` update returns it: the audit entry and what this request did. */
export type RecordedDecision = ToolApprovalAuditEntry & { outcome: DecisionOutcome };

/** Why a decision was not applied. */
export type IgnoredDecisionCause = 'conflict' | 'unknown-approval' | 'expired' | 'invalid' | 'forbidden' | 'replayed';

/** A decision that arrived by signal and was not applied; kept so nothing sent is lost. */
export interface IgnoredToolApprovalDecision {
  /** What was sent (as far as it could be read). */
  received: unknown;
  /** Why it was not applied. */
  cause: IgnoredDecisionCause;
  /** A sentence a person can read. */
  message: string;
  /** When it arrived (ISO 8601). */
  receivedAt: string;
}

/** The input of the `submitToolOutput` update: the output of a client-executed tool call. */
export const submitToolOutputInputSchema = z.union([
  z.strictObject({ toolCallId: z.string().min(1), output: z.json() }),
  z.strictObject({ toolCallId: z.string().min(1), error: z.string().min(1).max(10_000) }),
]);
export type SubmitToolOutputInput = z.infer<typeof submitToolOutputInputSchema>;
