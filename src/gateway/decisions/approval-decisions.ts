import { isApprovalDecisionError, judgeDecisionsOnClosedTurn, type TollgateClient } from '../../client';
import type {
  AgentTurnState,
  ModelMessage,
  PendingToolApproval,
  ToolApprovalAuditEntry,
  ToolApprovalDecision,
} from '../../protocol';
import {
  unauthenticatedSender,
  unknownApproval,
  type DecisionAttempt,
  type DecisionAttemptChannel,
  type DecisionAudit,
  type DecisionAttemptOutcome,
} from './decision-audit';
import { RefusalFlood } from './refusal-flood';
import { GatewayError } from '../http/gateway-error';
import { decisionsInMessages, withVouchedDecisions, type DecisionInMessages } from './message-decisions';
import { neutraliseText } from './neutralise-text';
import { signDecision, type DecisionSigningKey } from './sign-decision';
import { toGatewayError } from '../http/to-gateway-error';
import { isNamedApprover, isNamedEditor } from '../auth/turn-access';
import { defaultReadTimeoutMs, readTurnState, workflowIdOfApprovalId } from '../turns/turn-reads';

/** One decision as an approver sends it; the approver itself comes from the channel's identity. */
export interface DecisionRequest {
  approvalId: string;
  approved: boolean;
  reason?: string;
  /** Digest of the tool input the approver was shown; the pending approval's when absent. */
  argumentsDigest?: string;
  /** Approve with this input instead (only the approval's `editors`; see docs/editing-arguments.md). */
  input?: ToolApprovalDecision['input'];
}

/** Who decides: the person (what rights compare) and the channel identity they came as (for the audit). */
export interface DecisionActor {
  person: string;
  /** `token:ana`, `slack:T0001/U0123`, `email:ana@example.com`. */
  identity: string;
}

/** What is known of who sent a refused attempt: a person, a channel identity, the address; any may be missing. */
export interface RefusedActor {
  person?: string;
  identity?: string;
  /** The client's address as the gateway sees it. */
  from?: string;
}

/** A refused attempt's request as far as it is known: without an approval or a decision when it named none readable. */
export type RefusedRequest = Omit<DecisionRequest, 'approvalId' | 'approved'> & {
  approvalId?: string;
  approved?: boolean;
};

/** Why an attempt was refused: a {@link GatewayError}, or a cause of the channel's own (`link-used`) and its detail. */
export type AuditedRefusal = Pick<GatewayError, 'detail'> & { kind: string };

/** What {@link ApprovalDecisions} needs beyond the client and the audit. */
export interface ApprovalDecisionsOptions {
  /** Signs every forwarded decision when set. */
  signingKey?: DecisionSigningKey;
  /** Deadline of each read of a turn (default 10 s). */
  readTimeoutMs?: number;
  /** Where an audit line that could not be written is reported. */
  logError?: (error: unknown) => void;
}

/**
 * Decides approvals for authenticated approvers and keeps every attempt in the {@link DecisionAudit}:
 * the turn's update is the authority on what is recorded, the audit is the record of who tried what.
 * Every channel (REST, Slack, email, chat) decides through here, after resolving its identity to a
 * person: reasons are neutralised, rights are checked before "already decided" is reported, the
 * decision is bound to the arguments shown and signed.
 *
 * @example
 * const decisions = new ApprovalDecisions(tollgate, new DecisionAudit(), { signingKey });
 * const recorded = await decisions.decideOne({ person: 'ana', identity: 'token:ana' }, { approvalId, approved: false });
 */
export class ApprovalDecisions {
  private readonly readTimeoutMs: number;
  private readonly logError: (error: unknown) => void;
  private readonly flood: RefusalFlood;

  constructor(
    private readonly tollgate: TollgateClient,
    private readonly audit: DecisionAudit,
    private readonly options: ApprovalDecisionsOptions = {},
  ) {
    this.readTimeoutMs = options.readTimeoutMs ?? defaultReadTimeoutMs;
    this.logError = options.logError ?? (() => undefined);
    this.flood = new RefusalFlood((attempt) => this.write(attempt));
  }

  /** Decides one approval, found through the workflow id its approvalId carries. */
  async decideOne(
    actor: DecisionActor | string,
    request: DecisionRequest,
    channel: DecisionAttemptChannel = 'rest',
  ): Promise<ToolApprovalAuditEntry> {
    const [recorded] = await this.attempt(
      actorOf(actor),
      channel,
      [request],
      () => workflowIdOfApprovalId(this.tollgate, request.approvalId, this.readTimeoutMs),
      // The caller named an approval, not a turn: a missing turn means the approval is unknown.
      request.approvalId,
    );
    return recorded as ToolApprovalAuditEntry;
  }

  /** Decides several approvals of one turn: all are recorded or none. */
  async decideBatch(
    actor: DecisionActor | string,
    workflowId: string,
    requests: readonly DecisionRequest[],
  ): Promise<ToolApprovalAuditEntry[]> {
    return this.attempt(actorOf(actor), 'rest', requests, async () => workflowId, undefined);
  }

  /**
   * Vouches for the decisions inside a new turn's messages (a halted turn's continuation, `POST /v1/turns`) and keeps
   * each in the audit as `forwarded`: the approver is the authenticated person, never a name in the message; the
   * decision is bound to the turn about to start (`workflowId`), its request, tool and arguments, and signed when the
   * gateway has a key. Refused, and audited as such, when the caller may not decide (`mayDecide`) or a part names
   * another approver. The turn then judges each decision by the approval's rules like any other.
   */
  async forwardInMessages(
    actor: DecisionActor & { mayDecide: boolean },
    workflowId: string,
    messages: readonly ModelMessage[],
  ): Promise<ModelMessage[]> {
    const found = decisionsInMessages(messages);
    if (found.length === 0) return [...messages];
    const requestOf = (decision: DecisionInMessages): DecisionRequest => ({
      approvalId: decision.response.approvalId,
      approved: decision.response.approved,
      ...(decision.response.reason !== undefined && { reason: neutraliseText(decision.response.reason) }),
    });
    const misnamed = found.find(
      (decision) => decision.namedApprover !== undefined && decision.namedApprover !== actor.person,
    );
    const refusal = !actor.mayDecide
      ? new GatewayError(
          'forbidden',
          'The messages carry a tool-approval-response, which is a decision: it needs a token with the scope approvals:decide.',
        )
      : misnamed
        ? new GatewayError(
            'forbidden',
            `A decision's approver is whoever the token belongs to ("${actor.person}"); the messages name ` +
              `${JSON.stringify(String(misnamed.namedApprover).slice(0, 200))} for approval "${misnamed.response.approvalId}". ` +
              'Leave providerOptions.tollgate.approver out.',
            { approvalId: misnamed.response.approvalId },
          )
        : undefined;
    if (refusal) {
      await Promise.all(
        found.map((decision) => this.recordRefusal(actor, 'message', requestOf(decision), refusal, workflowId)),
      );
      throw refusal;
    }
    const at = new Date().toISOString();
    const vouched = withVouchedDecisions(messages, found, (decision, argumentsDigest) => {
      const request = requestOf(decision);
      const signed =
        this.options.signingKey && decision.call
          ? signDecision(
              { ...request, approver: actor.person },
              { workflowId, toolName: decision.call.toolName, argumentsDigest },
              this.options.signingKey,
            )
          : undefined;
      const { tollgate: _theirs, ...others } = decision.response.providerOptions ?? {};
      return {
        ...decision.response,
        ...(request.reason !== undefined && { reason: request.reason }),
        providerOptions: {
          ...others,
          tollgate: { approver: actor.person, argumentsDigest, ...(signed && { signature: signed.signature }) },
        },
      };
    });
    await Promise.all(
      found.map((decision) =>
        this.write(
          attemptOf({ at, actor, channel: 'message', request: requestOf(decision), outcome: 'forwarded', workflowId }),
        ),
      ),
    );
    return vouched;
  }

  /**
   * Keeps an attempt refused before it reached a turn: no valid token, signature, link or session; a token without the
   * right; an unmapped identity; a rate limit; a foreign workspace; a cross-site form; a body that does not parse.
   * `actor` is what is known of the sender: a person, a channel identity that resolved to nobody, or neither (then
   * `approver` reads `(unauthenticated)`); never a credential. Refusals with no person and rate-limited ones are kept
   * through a {@link RefusalFlood}, so a flood adds a bounded number of lines. Without `approvalId` (the attempt named
   * no approval the gateway could read) the line says `(unknown)`, and `approved` false.
   */
  async recordRefusal(
    actor: RefusedActor,
    channel: DecisionAttemptChannel,
    request: RefusedRequest,
    refusal: AuditedRefusal,
    workflowId?: string,
    grant?: DecisionAttempt['grant'],
  ): Promise<void> {
    keptErrors.add(refusal);
    const attempt = attemptOf({
      at: new Date().toISOString(),
      actor,
      channel,
      request: { ...request, approvalId: request.approvalId ?? unknownApproval, approved: request.approved ?? false },
      outcome: 'refused',
      workflowId,
      refusal,
      grant,
    });
    if (actor.person !== undefined && refusal.kind !== 'rate-limited') return this.write(attempt);
    await this.flood.offer(`${channel}|${refusal.kind}|${actor.person ?? ''}`, attempt);
  }

  /**
   * Keeps a standing grant given, refused or revoked (docs/asking-less.md), through the same record as a decision:
   * `approvalId` is the approval it was given with, or `grant:<grantId>`.
   */
  async recordGrant(
    actor: DecisionActor,
    channel: DecisionAttemptChannel,
    approvalId: string,
    grant: NonNullable<DecisionAttempt['grant']>,
    refusal?: GatewayError,
    cause?: unknown,
  ): Promise<void> {
    if (refusal) keptErrors.add(refusal);
    if (cause !== null && typeof cause === 'object') keptErrors.add(cause);
    await this.write(
      attemptOf({
        at: new Date().toISOString(),
        actor,
        channel,
        request: { approvalId, approved: grant.action === 'grant' },
        outcome: refusal ? (refusal.status >= 500 ? 'failed' : 'refused') : 'recorded',
        refusal,
        grant,
      }),
    );
  }

  /** Writes the refusals a flood counted but has not written yet; the gateway calls it when it closes. */
  async close(): Promise<void> {
    await this.flood.flush();
  }

  // The decision stands whatever happens to its audit line; a lost line is logged loudly.
  private write(attempt: DecisionAttempt): Promise<void> {
    return this.audit.record(attempt).catch(this.logError);
  }

  private async attempt(
    actor: DecisionActor,
    channel: DecisionAttemptChannel,
    rawRequests: readonly DecisionRequest[],
    resolveWorkflowId: () => Promise<string>,
    namedApprovalId: string | undefined,
  ): Promise<ToolApprovalAuditEntry[]> {
    const at = new Date().toISOString();
    // Text a person wrote for others to read: no bidi overrides or control characters go further.
    const requests = rawRequests.map((request) =>
      request.reason === undefined ? request : { ...request, reason: neutraliseText(request.reason) },
    );
    let workflowId: string | undefined;
    const keep = (outcomes: DecisionAttemptOutcome[], refusal?: GatewayError) =>
      Promise.all(
        requests.map((request, index) =>
          this.write(
            attemptOf({ at, actor, channel, request, outcome: outcomes[index] ?? 'refused', workflowId, refusal }),
          ),
        ),
      );
    try {
      workflowId = await resolveWorkflowId();
      const state = await this.readState(workflowId, namedApprovalId);
      const decisions = requests.map((request) => this.prepare(actor, request, workflowId as string, state));
      const earlier = new Map(state.audit.map((entry) => [entry.approvalId, entry]));
      const recorded = await this.record(workflowId, decisions, state);
      // Quorum approvals this person had already voted for, by whichever channel: another approval is no new vote.
      const votedBefore = new Set(
        state.pending.flatMap((approval) =>
          approval.votes?.some((vote) => vote.approver === actor.person) ? [approval.approvalId] : [],
        ),
      );
      // A decision that was already there, a vote cast before (the turn may answer a repeated update with the first
      // one's result, so its own `repeat` is not enough), or one that came back with someone else's name, changed
      // nothing.
      await keep(
        recorded.map((entry, index) =>
          earlier.has(entry.approvalId) ||
          (requests[index]?.approved === true && votedBefore.has(entry.approvalId)) ||
          (entry as { outcome?: string }).outcome === 'repeat' ||
          entry.approver !== actor.person
            ? 'repeat'
            : 'recorded',
        ),
      );
      return recorded;
    } catch (error) {
      const problem = toGatewayError(error);
      await keep(
        requests.map(() => (problem.status >= 500 ? 'failed' : 'refused')),
        problem,
      );
      keptErrors.add(problem);
      if (error !== null && typeof error === 'object') keptErrors.add(error);
      throw problem.status >= 500 ? error : problem;
    }
  }

  /**
   * Checks what the gateway can check before asking the turn, and builds the decision it sends. Rights
   * come first: someone not on the approver list hears 403 whether or not the approval is still open,
   * so "already decided" is only ever told to people who could have decided.
   */
  private prepare(
    actor: DecisionActor,
    request: DecisionRequest,
    workflowId: string,
    state: AgentTurnState,
  ): ToolApprovalDecision {
    const pending = state.pending.find((approval) => approval.approvalId === request.approvalId);
    const entry: PendingToolApproval | undefined =
      pending ?? state.audit.find((recorded) => recorded.approvalId === request.approvalId);
    if (entry && !isNamedApprover(actor.person, entry)) {
      throw new GatewayError(
        'forbidden',
        `"${actor.person}" may not decide approval "${request.approvalId}": it is limited to named approvers.`,
        { approvalId: request.approvalId },
      );
    }
    const shownDigest = pending ? inputDigestOf(pending) : undefined;
    if (request.argumentsDigest !== undefined && shownDigest !== undefined && request.argumentsDigest !== shownDigest) {
      throw new GatewayError(
        'conflict',
        `The arguments of approval "${request.approvalId}" are not the ones you were shown; look again before deciding.`,
        { approvalId: request.approvalId },
      );
    }
    if (request.input !== undefined && pending && !isNamedEditor(actor.person, pending)) {
      throw new GatewayError(
        'forbidden',
        pending.editors
          ? `"${actor.person}" may not change the input of approval "${request.approvalId}"; only ${pending.editors.join(', ')} may. Approve it as asked or deny it.`
          : `Approval "${request.approvalId}" may not be approved with changed input: nobody may edit its arguments (the operator's policy names no editors).`,
        { approvalId: request.approvalId },
      );
    }
    const argumentsDigest = request.argumentsDigest ?? shownDigest;
    const decision = {
      approvalId: request.approvalId,
      approved: request.approved,
      approver: actor.person,
      ...(request.reason !== undefined && { reason: request.reason }),
      ...(argumentsDigest !== undefined && { argumentsDigest }),
      ...(request.input !== undefined && { input: request.input }),
    };
    // An approval the turn does not know is refused by the turn; there is nothing to bind a signature to.
    if (!this.options.signingKey || !entry) return decision;
    return signDecision(
      decision,
      { workflowId, toolName: entry.toolName, argumentsDigest: argumentsDigest ?? inputDigestOf(entry) ?? '' },
      this.options.signingKey,
    );
  }

  // Read first, so an unknown turn is a 404 rather than the update's "not found" (which the client
  // cannot tell from a closed turn), and so repeats of decisions already recorded are recognised.
  private async readState(workflowId: string, approvalId: string | undefined): Promise<AgentTurnState> {
    try {
      return await readTurnState(this.tollgate, workflowId, this.readTimeoutMs);
    } catch (error) {
      const problem = toGatewayError(error);
      if (problem.kind !== 'unknown-turn') throw error;
      if (approvalId === undefined) throw new GatewayError('unknown-turn', `No turn "${workflowId}".`);
      throw new GatewayError('unknown-approval', `Unknown approvalId "${approvalId}": there is no turn for it.`, {
        approvalId,
      });
    }
  }

  private async record(
    workflowId: string,
    decisions: ToolApprovalDecision[],
    state: AgentTurnState,
  ): Promise<ToolApprovalAuditEntry[]> {
    try {
      return await this.tollgate.decideMany(workflowId, decisions);
    } catch (error) {
      if (!isApprovalDecisionError(error) || error.code !== 'turn-closed') throw error;
      // A closed turn takes no updates, but what it recorded is final. The client judged against the turn's result
      // where it has one; a failed or cancelled turn has none, so the same judgement runs on the state read above:
      // a retried decision is still a 200 and a late conflicting one still a 409.
      return judgeDecisionsOnClosedTurn(workflowId, decisions, state);
    }
  }
}

/**
 * The one place an audit line is built, for every channel and every outcome: decisions a turn answered, attempts
 * refused before a turn, decisions forwarded in messages, standing grants.
 */
function attemptOf(entry: {
  at: string;
  actor: RefusedActor;
  channel: DecisionAttemptChannel;
  request: DecisionRequest;
  outcome: DecisionAttemptOutcome;
  workflowId?: string | undefined;
  refusal?: AuditedRefusal | undefined;
  grant?: DecisionAttempt['grant'] | undefined;
}): DecisionAttempt {
  const { actor, request, refusal } = entry;
  return {
    at: entry.at,
    approver: actor.person ?? actor.identity ?? unauthenticatedSender,
    ...(actor.identity !== undefined && { identity: actor.identity }),
    ...(actor.from !== undefined && { from: actor.from }),
    channel: entry.channel,
    approvalId: request.approvalId,
    ...(entry.workflowId !== undefined && { workflowId: entry.workflowId }),
    approved: request.approved,
    ...(request.reason !== undefined && { reason: request.reason }),
    ...(request.input !== undefined && { editedInput: request.input }),
    outcome: entry.outcome,
    ...(refusal && { refusal: { code: refusal.kind, detail: refusal.detail } }),
    ...(entry.grant && { grant: entry.grant }),
  };
}

// Errors whose attempt is already in the audit, so a route's catch-all does not keep it twice.
const keptErrors = new WeakSet<object>();

/** Whether the attempt that ended in `error` is already in the audit (ApprovalDecisions kept it). */
export function isKeptInAudit(error: unknown): boolean {
  return error !== null && typeof error === 'object' && keptErrors.has(error);
}

function actorOf(actor: DecisionActor | string): DecisionActor {
  return typeof actor === 'string' ? { person: actor, identity: actor } : actor;
}

// An approval recorded before turns published `inputDigest` has none, and there is nothing to bind a decision to.
function inputDigestOf(approval: PendingToolApproval): string | undefined {
  const digest = (approval as { inputDigest?: unknown }).inputDigest;
  return typeof digest === 'string' && digest.length > 0 ? digest : undefined;
}
