import { workflowInfo } from '@temporalio/workflow';
import type { ModelStepInput } from '../../activities/turn-activity-types';
import type {
  AgentTurnInput,
  AgentTurnResult,
  AgentTurnStatus,
  ModelMessage,
  PendingToolApproval,
  PlannedToolCall,
  ToolContentPart,
  ToolResultPart,
  TranscriptPointer,
  TurnSettings,
} from '../../protocol';
import { turnRevisions } from '../../protocol/turn-plan';
import { ClientToolOutputs } from '../approvals/client-tool-outputs';
import { ApprovedPlans } from './approved-plans';
import { SubAgentApprovals } from './sub-agent-approvals';
import { SubAgentDecisionAnswers } from './sub-agent-answers';
import type { SettlingCalls } from './turn-carry-over';
import { TurnApprovals } from '../approvals/turn-approvals';
import { TurnEventLog } from '../visibility/turn-event-log';
import { TurnNotices } from '../approvals/turn-notices';
import type { WaitingApproval } from '../visibility/describe-turn';
import { TurnVisibility } from '../visibility/turn-visibility';

/** What `settle` gives for the call it leaves to run with the next model step. */
export const withNextStep = 'with-next-step';
/** A call's result as settling it gave it: a part, none (a provider's call), or left for the next model step. */
export type Settled = ToolResultPart | undefined | typeof withNextStep;
/** A call of a step not settled yet. */
export const unsettled = 'unsettled';

/** The calls a turn is settling, and what each has come to so far. */
export interface Settling {
  kind: SettlingCalls['kind'];
  plans: PlannedToolCall[];
  opened: Array<string | undefined>;
  results: Array<Settled | typeof unsettled>;
}

/**
 * What one turn holds — its input, settings, messages, transcript, approvals, events, client outputs, notices — and
 * the small rules that read it. The turn's modules (settling a step, resuming from messages, continuing as new) work
 * on it; workflow code only, so everything here is deterministic.
 */
export class TurnState {
  readonly workflowId = workflowInfo().workflowId;
  readonly events = new TurnEventLog();
  readonly approvals = new TurnApprovals(
    this.workflowId,
    this.events,
    () => this.steps,
    () => this.revision() >= turnRevisions.standingGrants,
  );
  readonly outputs = new ClientToolOutputs();
  /** The plans approved in this turn (turn revision 12). */
  readonly plans = new ApprovedPlans();
  readonly visibility = new TurnVisibility(this.workflowId, workflowInfo().parent?.workflowId, {
    picture: () => ({
      pending: this.waiting(this.shownPending()),
      awaitingOutput: this.outputs.awaiting().map((call) => call.toolName),
      decided: this.approvals.book.audit(),
      ignored: this.approvals.book.ignored(),
      ...(this.input.requester !== undefined && { requester: this.input.requester }),
      requireSigned: this.settings?.trust.requireSigned ?? false,
      steps: this.steps,
    }),
    version: () =>
      `${this.approvals.book.changes}|${this.outputs.changes}|${this.subAgents.changes}|${this.steps}|` +
      `${this.settings?.trust.requireSigned}`,
    waiting: (pending) => this.waiting(pending),
    searchesByPerson: () => this.revision() >= turnRevisions.inspectableTurns,
  });
  readonly notices: TurnNotices;
  readonly messages: ModelMessage[] = [];
  transcript: TranscriptPointer;
  settings: TurnSettings | undefined;
  status: AgentTurnStatus = 'running';
  steps = 0;
  text = '';
  /** The calls an earlier run was settling when it continued as new. */
  carriedSettling: SettlingCalls | undefined;
  continuations = 0;
  /** Model calls made by this turn's sub-agents and theirs (turn revision 11). */
  subAgentSteps = 0;
  /** Sub-agents started, for their child workflow ids. */
  subAgentsStarted = 0;
  /** What the running sub-agents wait for, shown with this turn's own (turn revision 14). */
  readonly subAgents = new SubAgentApprovals();
  /** Answers the turn waits for from sub-agents to updates it passed on (turn revision 17). */
  readonly subAgentAnswers = new SubAgentDecisionAnswers();

  constructor(readonly input: AgentTurnInput) {
    // Decisions, votes and ignored decisions show in the Temporal UI's details the moment they are recorded.
    this.approvals.book.onChange = () => this.visibility.refresh();
    this.transcript = { ...(input.transcript !== undefined && { head: input.transcript }), tail: [...input.messages] };
    this.notices = new TurnNotices(
      this.workflowId,
      input.requester,
      this.events,
      () => this.steps,
      () => this.settings?.activities?.notice,
      () => this.revision(),
    );
  }

  /** Takes the settings the first model step planned with, and notes what the policy said. */
  adopt(settings: TurnSettings, notes: readonly string[]): void {
    if (!this.settings) {
      this.settings = settings;
      this.trustDecisions(settings);
    }
    for (const detail of notes) this.events.note('policy-note', this.steps, { detail });
  }

  /** Whose signed decisions count, by the turn's revision (from 5, signatures bound to turn, approval and time). */
  trustDecisions(settings: TurnSettings): void {
    this.approvals.book.trustDecisionsFrom(settings.trust, {
      bindsSignatures: this.revision(settings) >= turnRevisions.boundDecisionSignatures,
      acceptsEditedInput: this.revision(settings) >= turnRevisions.editedInputOnApproval,
    });
  }

  /** The turn-code revision the turn was planned with (1 when its first step recorded none). */
  revision(settings = this.settings): number {
    return settings?.revision ?? 1;
  }

  /** Halt mode with something waiting: the turn hands back to its caller. */
  halted(): boolean {
    return this.settings?.approvalWait === 'halt' && this.approvals.book.pending().length > 0;
  }

  /** True while the turn will call the model again after this step's tools. */
  nextStepFollows(): boolean {
    return this.steps < (this.settings?.maxSteps ?? Infinity) && !this.approvals.superseded();
  }

  /** Whether an earlier run left `plan`'s call waiting for a client's output (its decision and start are recorded). */
  awaitsOutput(plan: PlannedToolCall): boolean {
    return this.carriedSettling !== undefined && this.outputs.isAwaiting(plan.call.toolCallId);
  }

  /** `pending` with whether each one's requester may approve it. */
  private waiting(pending: readonly PendingToolApproval[]): WaitingApproval[] {
    return pending.map((approval) =>
      // A sub-agent's call says so itself (turn revision 16): this turn's book does not hold its rules.
      this.approvals.book.selfApprovalAllowed(approval.approvalId) && approval.selfApprovalAllowed !== false
        ? approval
        : { ...approval, selfApprovalAllowed: false },
    );
  }

  showPending(): void {
    this.visibility.publish(this.shownPending());
  }

  /**
   * What the turn shows as waiting: its own approvals, and from turn revision 14 each marked with the sub-agent path
   * when this turn is a sub-agent, followed by what its running sub-agents wait for (with their paths).
   */
  shownPending(): PendingToolApproval[] {
    const own = this.approvals.book.pending();
    if (this.revision() < turnRevisions.subAgentApprovalsShown) return own;
    return [...own.map((approval) => this.onPath(approval)), ...this.subAgents.pending()];
  }

  /** `approval` with the sub-agent path that led to this turn, when it is a sub-agent (from turn revision 14). */
  onPath(approval: PendingToolApproval): PendingToolApproval {
    const path = this.input.subAgent?.path;
    if (!path || path.length === 0 || this.revision() < turnRevisions.subAgentApprovalsShown) return approval;
    // From revision 16 it says when the requester may not approve it, for the turns above to show who may.
    const selfBlocked =
      this.revision() >= turnRevisions.subAgentApproverRules &&
      !this.approvals.book.selfApprovalAllowed(approval.approvalId);
    return { ...approval, path: [...path], ...(selfBlocked && { selfApprovalAllowed: false as const }) };
  }

  /**
   * A decided approval leaves the pending list at once, so nobody sees it waiting while its tool runs: from revision 4
   * in the Temporal UI's details and the conversation, the search attribute following at the turn's next workflow
   * task; in revision 2 and 3 in all three at once. Turns planned before revision 2 showed it only after the tool.
   * Each replays as it ran.
   */
  showDecided(): void {
    const revision = this.revision();
    if (revision >= turnRevisions.searchAttributeFollowsDecisions) this.visibility.publishDetails(this.shownPending());
    else if (revision >= turnRevisions.decisionsLeavePendingAtOnce) this.showPending();
  }

  /** Appends a message the turn wrote, to its messages and to the transcript's tail. */
  append(message: ModelMessage): void {
    this.messages.push(message);
    this.transcript = { ...this.transcript, tail: [...this.transcript.tail, message] };
  }

  /** Appends the step's tool message: the decisions, then one result per call that has one. */
  addToolMessage(
    plans: PlannedToolCall[],
    opened: Array<string | undefined>,
    results: Array<ToolResultPart | undefined>,
    withDecisions = true,
  ): void {
    const content = this.toolMessageContent(plans, opened, results, withDecisions);
    if (content.length > 0) this.append({ role: 'tool', content });
  }

  toolMessageContent(
    plans: PlannedToolCall[],
    opened: Array<string | undefined>,
    results: Array<ToolResultPart | undefined>,
    withDecisions = true,
  ): ToolContentPart[] {
    const ours = plans.flatMap((plan, index) =>
      plan.kind === 'ask' && withDecisions ? [opened[index] as string] : [],
    );
    const providers = plans.flatMap((plan) =>
      plan.kind === 'provider' && withDecisions ? [plan.approval.approvalId] : [],
    );
    return [
      ...this.approvals.responses(ours),
      ...this.approvals.responses(providers, true),
      ...results.filter((part): part is ToolResultPart => part !== undefined),
    ];
  }

  currentStatus(): AgentTurnStatus {
    if (this.status !== 'running') return this.status;
    if (this.shownPending().length > 0) return 'awaiting-approval';
    return this.outputs.awaiting().length > 0 ? 'awaiting-tool-output' : 'running';
  }

  stepInput(): ModelStepInput {
    const { messages: _messages, transcript: _transcript, ...options } = this.input;
    return {
      workflowId: this.workflowId,
      step: this.steps,
      ...(this.settings !== undefined && { revision: this.revision() }),
      options,
      transcript: this.transcript,
    };
  }

  result(): AgentTurnResult {
    const { book } = this.approvals;
    return {
      status: this.status === 'running' || this.status === 'awaiting-tool-output' ? 'max-steps-reached' : this.status,
      messages: this.messages,
      text: this.text,
      steps: this.steps,
      ...(this.subAgentSteps > 0 && { treeSteps: this.steps + this.subAgentSteps }),
      audit: book.audit(),
      ignoredDecisions: book.ignored(),
      ...(book.ignoredNotKept() > 0 && { ignoredDecisionsNotKept: book.ignoredNotKept() }),
      pending: book.pending(),
      transcript: this.transcript,
    };
  }
}
