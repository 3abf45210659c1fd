import { GrantLedgerClient, isGrantLedgerError, newGrantId, type TollgateClient } from '../../client';
import type { PersonDirectory } from '../../identity';
import {
  approverRefusal,
  conversationIdOf,
  grantRefusal,
  termsOfAllow,
  type Allow,
  type GrantTerms,
  type PendingToolApproval,
  type StandingGrant,
  type ToolApprovalAuditEntry,
} from '../../protocol';
import { GatewayError } from '../http/gateway-error';
import { toGatewayError } from '../http/to-gateway-error';
import { requesterOf } from '../auth/turn-requester';
import { readTurnState, withReadDeadline, workflowIdOfApprovalId } from '../turns/turn-reads';
import type { ApprovalDecisions, DecisionActor, DecisionRequest } from './approval-decisions';
import type { DecisionAttemptChannel } from './decision-audit';
import { neutraliseText } from './neutralise-text';
import type { DecisionSigningKey } from './sign-decision';
import { signGrant } from './sign-grant';

/** A decision that also allows: the recorded decision and the grant it gave. */
export type DecisionWithGrant = ToolApprovalAuditEntry & { allowed: StandingGrant };

/**
 * Standing grants for every channel (REST, CLI, inbox, Slack, chat): "approve and allow", a grant given on its own,
 * revocation and the list. The ledger in Temporal is the authority (its worker checks every grant against the tools
 * and the operator's policy); what the gateway checks first is what it can see, so that a refusal is quick and clear.
 * Every grant given, refused or revoked is kept in the gateway's audit.
 */
export class StandingGrants {
  readonly ledger: GrantLedgerClient;

  constructor(
    private readonly options: {
      decisions: ApprovalDecisions;
      people: PersonDirectory;
      tollgate: TollgateClient;
      readTimeoutMs: number;
      logError?: (error: unknown) => void;
      /** Signs every grant, as decisions are signed, so workers that require signed decisions accept it. */
      signingKey?: DecisionSigningKey;
    },
  ) {
    this.ledger = new GrantLedgerClient(options.tollgate.client, options.tollgate.taskQueue);
  }

  /**
   * Approves `request` and grants `allow` for calls like it: checked before anything is recorded (the person may
   * decide this approval, alone, for someone else; the ledger's worker then checks the tool and the policy). The
   * grant is recorded first, so a refused grant leaves the approval waiting; a decision that then fails revokes it.
   */
  async approveAndAllow(
    actor: DecisionActor,
    request: DecisionRequest,
    allow: Allow,
    channel: DecisionAttemptChannel = 'rest',
  ): Promise<DecisionWithGrant> {
    if (!request.approved) {
      throw new GatewayError('invalid-request', '`allow` goes with an approval (`approved: true`), never a denial.');
    }
    const { decisions, tollgate, readTimeoutMs } = this.options;
    let terms: GrantTerms;
    let conversationRequester: string | undefined;
    try {
      const workflowId = await workflowIdOfApprovalId(tollgate, request.approvalId, readTimeoutMs);
      const state = await readTurnState(tollgate, workflowId, readTimeoutMs);
      const pending = state.pending.find((approval) => approval.approvalId === request.approvalId);
      if (!pending) {
        throw new GatewayError(
          'conflict',
          `Approval "${request.approvalId}" is not waiting: only an approval still waiting can be approved and allowed.`,
          { approvalId: request.approvalId },
        );
      }
      const requester = await withReadDeadline(tollgate, readTimeoutMs, () => requesterOf(tollgate, workflowId));
      conversationRequester = requester;
      this.checkCanDecide(actor, pending, requester);
      try {
        terms = termsOfAllow(allow, {
          toolName: pending.toolName,
          workflowId,
          conversationId: conversationIdOf(workflowId),
          ...(requester !== undefined && { requester }),
          approvalId: request.approvalId,
        });
      } catch (error) {
        throw new GatewayError('invalid-request', (error as Error).message);
      }
    } catch (error) {
      await this.keep(actor, channel, request.approvalId, { action: 'grant' }, toGatewayError(error), error);
      throw error;
    }
    const grant = await this.give(actor, terms, { channel, conversationRequester, approvalId: request.approvalId });
    try {
      const recorded = await decisions.decideOne(actor, request, channel);
      return { ...recorded, allowed: grant };
    } catch (error) {
      await this.ledger.revoke(grant.grantId, actor.person).catch(this.options.logError ?? (() => undefined));
      await this.keep(actor, channel, request.approvalId, { action: 'revoke', grantId: grant.grantId });
      throw error;
    }
  }

  /** Gives a grant on its own (`POST /v1/grants`, `tollgate grants add`); the ledger's worker judges it. */
  async give(
    actor: DecisionActor,
    terms: GrantTerms,
    options: { channel?: DecisionAttemptChannel; conversationRequester?: string; approvalId?: string } = {},
  ): Promise<StandingGrant> {
    const channel = options.channel ?? 'rest';
    const grantId = newGrantId();
    const approvalId = options.approvalId ?? `grant:${grantId}`;
    const cleaned: GrantTerms = {
      ...terms,
      ...(terms.reason !== undefined && { reason: neutraliseText(terms.reason) }),
    };
    // What the gateway can tell at once; the ledger's worker checks the tool's rules and the operator's policy too.
    const quick = grantRefusal(
      { person: actor.person, names: this.options.people.namesOf(actor.person) },
      cleaned,
      { quorum: 1, ...(options.conversationRequester !== undefined && { requester: options.conversationRequester }) },
      {},
    );
    try {
      if (quick) throw new GatewayError('forbidden', quick);
      const grant = await this.ledger.grant(
        { person: actor.person, names: this.options.people.namesOf(actor.person) },
        cleaned,
        {
          grantId,
          ...(options.conversationRequester !== undefined && { conversationRequester: options.conversationRequester }),
          ...(this.options.signingKey && { sign: (fields) => signGrant(fields, this.options.signingKey!) }),
        },
      );
      await this.keep(actor, channel, approvalId, { action: 'grant', grantId, summary: summariseGrant(grant) });
      return grant;
    } catch (error) {
      const problem = isGrantLedgerError(error)
        ? new GatewayError(error.code === 'invalid' ? 'invalid-request' : 'forbidden', error.message)
        : toGatewayError(error);
      await this.keep(
        actor,
        channel,
        approvalId,
        { action: 'grant', grantId, summary: summariseGrant(cleaned) },
        problem,
      );
      throw problem.status >= 500 ? error : problem;
    }
  }

  /** Revokes a grant: it covers nothing once this returns. Anyone who may decide may ask for more asking. */
  async revoke(
    actor: DecisionActor,
    grantId: string,
    channel: DecisionAttemptChannel = 'rest',
  ): Promise<StandingGrant> {
    try {
      const grant = await this.ledger.revoke(grantId, actor.person);
      await this.keep(actor, channel, grant.fromApprovalId ?? `grant:${grantId}`, { action: 'revoke', grantId });
      return grant;
    } catch (error) {
      const problem =
        isGrantLedgerError(error) && error.code === 'unknown-grant'
          ? new GatewayError('unknown-grant', `No grant "${grantId}".`)
          : isGrantLedgerError(error)
            ? new GatewayError('invalid-request', error.message)
            : toGatewayError(error);
      await this.keep(actor, channel, `grant:${grantId}`, { action: 'revoke', grantId }, problem);
      throw problem.status >= 500 ? error : problem;
    }
  }

  /** The grants in force and those that ended within a day, newest first. */
  async list(): Promise<StandingGrant[]> {
    return this.ledger.list();
  }

  /** The one approver rule for a grant (src/protocol/approver-rights.ts): a named approver, alone, not their own. */
  private checkCanDecide(actor: DecisionActor, pending: PendingToolApproval, requester: string | undefined): void {
    const rules = { approvers: pending.approvers, quorum: pending.quorum, requester };
    const refusal = approverRefusal(pending.approvalId, rules, actor.person, 'grant');
    if (refusal) throw new GatewayError('forbidden', refusal, { approvalId: pending.approvalId });
  }

  // Every grant line is built where every decision line is (ApprovalDecisions), so the audit has one shape.
  private keep(
    actor: DecisionActor,
    channel: DecisionAttemptChannel,
    approvalId: string,
    grant: { action: 'grant' | 'revoke'; grantId?: string; summary?: string },
    refusal?: GatewayError,
    cause?: unknown,
  ): Promise<void> {
    return this.options.decisions.recordGrant(actor, channel, approvalId, grant, refusal, cause);
  }
}

/** One line for the audit and the lists: `deleteFile for everyone, 1h, 10 uses`. */
export function summariseGrant(grant: GrantTerms & { expiresAt?: string }): string {
  const what = grant.mcpServer !== undefined ? `MCP server ${grant.mcpServer}` : (grant.tools ?? []).join(', ');
  const scope =
    grant.scope.type === 'everyone'
      ? 'everyone'
      : grant.scope.type === 'requester'
        ? `requester ${grant.scope.requester}`
        : `conversation ${grant.scope.conversationId}`;
  const bounds = [
    ...(grant.expiresAt !== undefined
      ? [`until ${grant.expiresAt}`]
      : grant.forMs !== undefined
        ? [`${grant.forMs} ms`]
        : []),
    ...(grant.uses !== undefined ? [`${grant.uses} uses`] : []),
    ...(grant.constraints?.length ? [`${grant.constraints.length} argument constraint(s)`] : []),
  ];
  return `${what} for ${scope}, ${bounds.join(', ')}`;
}
