import type { NotificationTarget } from './approval-rules';
import type { AssistantContentPart, ModelMessage } from './model-message';
import type { ToolCallPart } from './message-parts';

/**
 * The shapes a turn plans with. The model-step activity decides them (it holds the tools, the
 * operator's policy and the signing secret); the workflow only carries them out. Everything here is
 * plain data recorded in history, so its meaning must not change for executions already running.
 */

/** Who may decide one approval, resolved from the operator's policy and (only stricter) the caller's rules. */
export interface ApprovalRights {
  /** Person ids allowed to decide; anyone when absent. */
  approvers?: string[];
  /** Person ids allowed to approve with changed input (turn revision 7); nobody when absent. */
  editors?: string[];
  /** Whether the requester may approve their own call. */
  allowSelfApproval: boolean;
  /** Distinct approvers needed. */
  quorum: number;
  /** Who started the turn. */
  requester?: string;
}

/** How people hear about one approval. */
export interface ApprovalNoticePlan {
  /** Told when the request is made. */
  notify: NotificationTarget[];
  /** Remind (or escalate) after this many milliseconds without a decision. */
  remindAfterMs?: number;
  /** Where the reminder goes; `notify` when absent. */
  escalateTo?: NotificationTarget[];
  /** Warn the `notify` targets this many milliseconds before the approval expires (turns from revision 8). */
  warnBeforeExpiryMs?: number;
}

/** An approval request issued by Tollgate for one call, with the rules that govern it. */
export interface IssuedApproval {
  /** `<base64url(workflowId)>.<unique>`: names the turn that waits for it. */
  approvalId: string;
  /** HMAC in the AI SDK's `experimental_toolApprovalSecret` format; absent when the worker has no secret. */
  signature?: string;
  /** base64url SHA-256 of the canonical JSON of the call's input: what a decision may be bound to. */
  inputDigest: string;
  /** Who may decide; anyone when absent. */
  rights?: ApprovalRights;
  /** Denied as expired after this long without a decision. */
  timeoutMs?: number;
  /** What expiry does. */
  onExpire: 'deny' | 'fail';
  /** Notices for this approval. */
  notices?: ApprovalNoticePlan;
  /** The worker's `onToolApproval` policy already answered; no person is asked. */
  policy?: { approved: boolean; reason?: string };
  /** A standing grant let the call through (turns from revision 10); no person is asked. */
  grant?: GrantUse;
}

/** The grant that let one call through, and where its uses stood after this one. */
export interface GrantUse {
  /** `grant-<hex>`. */
  grantId: string;
  /** The person who gave it. */
  grantedBy: string;
  /** Uses counted, this one included. */
  used: number;
  /** Its use limit. */
  uses?: number;
  /** When it ends (ISO 8601). */
  expiresAt?: string;
}

/**
 * A sub-agent a call runs (turn revision 11): the workflow starts a child `agentTurn` with these settings instead
 * of running a tool in an activity, and the child's final answer is the call's output.
 */
export interface SubAgentPlan {
  /** The agent tool's name: the child's place in the path ("researcher → writeFile"). */
  name: string;
  /** The child's system message. */
  instructions: string;
  /** The worker's tools the child may call. */
  tools: string[];
  /** The child's model settings (`ModelSettings`); the parent's when absent. */
  model?: { model?: string; temperature?: number; maxOutputTokens?: number };
  /** The child's most model calls (within what the tree has left). */
  maxSteps?: number;
}

/** One call an approved plan covers: the tool and the digest of its exact arguments (`inputDigestOf`). */
export interface PlanEntry {
  /** The tool. */
  toolName: string;
  /** base64url SHA-256 of the canonical JSON of the planned input. */
  inputDigest: string;
}

/** What happens to one tool call of a step. */
export type PlannedToolCall =
  | { kind: 'reject'; call: ToolCallPart; error: string }
  | {
      kind: 'run';
      call: ToolCallPart;
      executor: 'worker' | 'client';
      autoApproved?: IssuedApproval;
      agent?: SubAgentPlan;
    }
  | {
      kind: 'ask';
      call: ToolCallPart;
      executor: 'worker' | 'client';
      approval: IssuedApproval;
      agent?: SubAgentPlan;
      /** A `proposePlan` call (turn revision 12): the calls its approval covers, each once, in this turn. */
      proposal?: PlanEntry[];
    }
  | { kind: 'provider'; call: ToolCallPart; approval: IssuedApproval; autoApproved: boolean };

/** Whose signatures make a decision count. */
export interface DecisionTrust {
  /** Only decisions signed by one of `keys` are applied; people's other paths are refused. */
  requireSigned: boolean;
  /** Trusted Ed25519 public keys (raw 32 bytes, base64url) by key id. */
  keys: Record<string, string>;
}

/** Limits the worker's owner may set for one kind of activity; Tollgate's defaults apply otherwise. */
export interface ActivityLimits {
  /** How long one attempt may take, in milliseconds. */
  startToCloseMs?: number;
  /** Attempts in all, the first included. */
  maximumAttempts?: number;
}

/** The worker owner's limits per kind of activity. */
export interface TurnActivityLimits {
  /** The model step (after the turn's first, which runs before the worker's settings are known). */
  modelStep?: ActivityLimits;
  /** Tool runs; a turn's own `toolTimeouts.startToClose` still wins for its attempts' length. */
  tool?: ActivityLimits;
  /** Notices to Slack, email and other channels. */
  notice?: ActivityLimits;
}

/**
 * Revisions of the turn code that change the commands a turn issues, and the one this code plans new turns with
 * (`current`). The first model step records the worker's revision in the turn's settings
 * ({@link TurnSettings.revision}), so workflow code branches on it: a turn planned before a change replays as it
 * ran, and no new turn pays the history events of a patch marker. Absent means 1: a decision left the pending list
 * after its tool ran. Each revision says here, once, what changed (its first paragraph is the row of the table in
 * docs/changing-workflow-code.md, which a test holds to it), why, and since when.
 */
export const turnRevisions = {
  /**
   * a decision leaves the pending list in the workflow task that takes it
   *
   * The search attribute, the Temporal UI's details and the conversation showed a decided approval as waiting until
   * its tool had run. @since 2026-11-23
   */
  decisionsLeavePendingAtOnce: 2,
  /**
   * a step's last tool runs in one activity with the next model step (`runToolThenModelStep`)
   *
   * Model steps as activities only: a decided call costs the server one activity and one workflow task, as in a
   * bare workflow (docs/performance.md). @since 2026-11-23
   */
  lastToolRunsWithNextStep: 3,
  /**
   * the search attribute follows a decision at the turn's next workflow task
   *
   * A decision still leaves the Temporal UI's details and the conversation at once; deferring the search attribute
   * saves a decided turn the server's visibility write while it runs. @since 2026-11-23
   */
  searchAttributeFollowsDecisions: 4,
  /**
   * a signed decision counts only when bound to this turn, approval, tool, arguments and time
   *
   * Before, the signature covered the decision alone, so a signed decision could be replayed on another turn
   * (`boundDecisionSignaturePayload`). @since 2026-11-25
   */
  boundDecisionSignatures: 5,
  /**
   * a turn whose history grows large continues as new while it only waits, carrying its state
   *
   * Temporal suggests it, or a flood of signals grows it: the turn carries its whole state (`TurnCarryOver`) instead
   * of failing at the server's history limits. @since 2026-11-25
   */
  continuesAsNewWhenLarge: 6,
  /**
   * a decision may carry an editor's `input`; the approved call runs with it
   *
   * One of the approval's `editors`, checked against the tool's input schema; the result tells the model what ran
   * instead (docs/editing-arguments.md). @since 2026-11-25
   */
  editedInputOnApproval: 7,
  /**
   * an approval with an expiry and notice targets warns them before it expires (a timer beside the reminder's)
   *
   * So an approval does not lapse unseen (`warnBeforeExpiryMs`). @since 2026-11-25
   */
  expiryWarnings: 8,
  /**
   * the search-attribute upserts also name the waiting tools, who may decide and who asked
   *
   * Inboxes and `temporal workflow list` find a turn by what waits in it (`TollgateWaitingTools`),
   * who may decide it (`TollgateApprovers`) and who asked (`TollgateRequester`). @since 2026-11-25
   */
  inspectableTurns: 9,
  /**
   * a call a standing grant covers is approved by it at once ([Asking less](asking-less.md))
   *
   * Recorded at once, like a policy's answer (`IssuedApproval.grant`), with the grant and its giver in the audit,
   * so approvers are not asked the same thing again and again (docs/asking-less.md). @since 2026-11-27
   */
  standingGrants: 10,
  /**
   * an agent tool's call runs as a child `agentTurn` started from the turn's workflow code
   *
   * `defineAgentTool`: the child's id reads as a path (`<parent id>/<agent>-<n>`), it never outlives its parent,
   * and its final answer is the call's output (docs/sub-agents.md). @since 2026-11-27
   */
  subAgentsAsChildWorkflows: 11,
  /**
   * a call an approved plan covers is approved by it at once; a `proposePlan` call's result comes from workflow code
   *
   * The model proposes its calls (`proposePlan`), a person approves them as one, and each planned call then runs
   * once in that turn without asking (docs/asking-less.md). @since 2026-11-27
   */
  planApproval: 12,
  /**
   * a model step streams the model's answer and heartbeats it only for a turn someone follows (`stream`)
   *
   * A chat shows the text live, so a conversation's turns set it; any other turn's model step asks for the whole
   * answer at once, which costs the worker less (docs/performance.md). The commands a turn issues are the same; turns
   * planned before it keep streaming. @since 2026-11-27
   */
  modelStepsStreamOnlyWhenFollowed: 13,
  /**
   * a turn shows what its sub-agents wait for as its own, and superseding it supersedes them
   *
   * A child's `turnPendingApprovals` signal is taken: the parent's pending list, details, search attributes and its
   * own parent's list show the child's calls with their path ("reader → writeFile"); a decision signalled to the
   * parent for a child's approval is passed on to the child; a superseded turn supersedes its running sub-agents and
   * starts none. Sub-agent counts are carried when the turn continues as new (docs/sub-agents.md). @since 2026-11-27
   */
  subAgentApprovalsShown: 14,
  /**
   * a decision reaches its tool, and a turn its end, through fewer promises
   *
   * The workflow sandbox records a stack for every promise workflow code creates, and the decision's workflow task was
   * the burst's bottleneck: a step with one call now settles it without `Promise.all`, the large-history watch runs
   * beside the calls instead of in front of them (`settleCalls`), and a turn with no notices and no handler running
   * ends without waiting on a promise. The commands are the same in the committed histories, but the decision's chain
   * is several microtask hops shorter, and where it wakes in one workflow task with a reminder's or expiry warning's
   * chain the two could interleave differently, so turns planned before it keep the old path (docs/performance.md).
   * @since 2026-11-27
   */
  flatDecisionPath: 15,
  /**
   * a sub-agent's call the requester may not approve says so to the turns above it
   *
   * Its pending entry carries `selfApprovalAllowed: false`, so a parent's `TollgateApprovers` search attribute and
   * details leave the requester out, as the sub-agent's own do; before, a parent showed the requester as one who may
   * decide a child's call. @since 2026-11-27
   */
  subAgentApproverRules: 16,
  /**
   * an update for a sub-agent's approval is passed on and answered with its verdict; a cancelled turn denies its calls
   *
   * The parent signals the sub-agent that waits (`subAgentDecisions`, with a request id), the sub-agent judges the
   * decisions as its own update would and signals its answer back (`subAgentDecisionsAnswer`), and the parent's update
   * resolves with it, or is refused when the sub-agent ends first or does not answer within 30 s; before, the parent
   * refused the update with the sub-agent's workflow id. A cancelled turn lets its sub-agents end cancelled, then
   * denies what it waits for, with the reason; a failing one supersedes its sub-agents with why it fails and lets them
   * end: every turn's audit in the tree says how each call ended, where before a sub-agent was terminated still
   * waiting (docs/sub-agents.md). @since 2026-11-27
   */
  subAgentUpdatesPassedOn: 17,
  /**
   * a turn waits for its calls through one condition, with fewer promises from its start to its approval request
   *
   * The calls of a step are settled side by side and one `condition` waits for all of them, a failed one, or a large
   * history while they only wait (`settleWaitingCalls`), instead of `Promise.all`, a `Promise.race` and a second
   * condition; a model step after the first is awaited without an `async` wrapper. The commands are the same, but a
   * decision reaches its tool a little later within its workflow task, after the condition is checked again, so
   * turns planned before it keep the old path (docs/performance.md, "Start → request in a burst"). @since 2026-11-27
   */
  oneWaitPerStep: 18,
  /**
   * a call waits for a person without a promise of its own; the turn awaits the step's last tool itself
   *
   * A step's calls are followed as state (`StepCalls`): the turn awaits one `condition` that wakes when a decision or a
   * client's output comes, a call fails or all are settled, and takes each call on from there synchronously, instead
   * of a `settle` promise, an awaited `TurnApprovals.decision` and its `condition` per call (an approval with an expiry
   * keeps a promise, for its timer); the activity that runs the step's last tool with the next model step is awaited
   * by the turn, without two `then`s between them (`LastToolWithNextStep`). The workflow task that opens an approval
   * creates 5 promises instead of 15 and a decision 14 instead of 16, as many as the hand-written loop
   * (docs/performance.md, "The workflow task that opens the approval"). The commands are revision 18's, but a
   * decision's tools are scheduled before its timers are cancelled and its notices resolved, where revision 18 did
   * them last, so turns planned before it keep the old path. @since 2026-11-27
   */
  callsWaitWithoutPromises: 19,
  current: 19,
} as const;

/** The turn's settings once its input has been checked and the operator's policy applied. */
export interface TurnSettings {
  /** Limits the worker's owner set for the turn's activities. */
  activities?: TurnActivityLimits;
  maxSteps: number;
  approvalWait: 'durable' | 'halt';
  /** Autonomous mode, granted only where the operator allows it. */
  autoApprove: boolean;
  /** Milliseconds. */
  toolTimeouts: { heartbeatMs: number; startToCloseMs: number };
  trust: DecisionTrust;
  /**
   * The turn-code revision of the worker that planned the turn's first step, recorded in history with that step so
   * workflow code can branch on it where a change reorders commands. Absent means 1. What each revision changed is
   * said on its own entry of {@link turnRevisions}.
   */
  revision?: number;
}

/** A content-addressed reference into Tollgate's content store. */
export type ContentRef = string;

/** A transcript kept outside history: the stored head, and messages not yet stored after it. */
export interface TranscriptPointer {
  /** The stored transcript; absent before anything was stored. */
  head?: ContentRef;
  /** Messages after `head`, in order. */
  tail: ModelMessage[];
}

/**
 * The most a turn keeps of its transcript inline (the messages after the stored `head`, JSON-encoded): up to it, a
 * model step leaves them in the turn's workflow state and its next step's input; past it, the step writes them to
 * the content store as one transcript node, as every step did before. 4 KiB: a short turn (a prompt, a tool call,
 * its result and the answer) never writes its transcript, and a long one adds at most this much to each model
 * step's input, so what a step adds to the turn's history stays bounded by the step (turn-history-budget.test.ts).
 */
export const inlineTranscriptMaxBytes = 4 * 1024;

/** One model step as the model-step activity returns it. */
export interface PlannedModelStep {
  /**
   * The stored transcript after this step's assistant message; absent when the step kept the messages inline
   * ({@link inlineTranscriptMaxBytes}): the turn appends the assistant message to its transcript's tail.
   */
  head?: ContentRef;
  /** The assistant message's parts, approval requests included; large parts are stubs. */
  content: AssistantContentPart[];
  /** The model's text in this step. */
  text: string;
  /** One entry per call the model made, in order. */
  calls: PlannedToolCall[];
  /** Things worth a turn event (a policy that threw, a caller rule that was not allowed). */
  notes: string[];
}
