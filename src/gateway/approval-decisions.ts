import { ApprovalDecisionError, isApprovalDecisionError, type TollgateClient } from '../client';
import type { AgentTurnState, ToolApprovalAuditEntry } from '../protocol';
import type { DecisionAttemptChannel, DecisionAudit, DecisionAttemptOutcome } from './decision-audit';
import { GatewayError } from './gateway-error';
import { toGatewayError } from './to-gateway-error';

/** One decision as an approver sends it; the approver itself comes from the token. */
export interface DecisionRequest {
  approvalId: string;
  approved: boolean;
  reason?: string;
}

/**
 * Decides approvals for authenticated approvers and keeps every attempt in the {@link DecisionAudit}:
 * the turn's update is the authority on what is recorded, the audit is the record of who tried what.
 *
 * @example
 * const decisions = new ApprovalDecisions(tollgate, new DecisionAudit());
 * const recorded = await decisions.decideOne('ana', { approvalId, approved: false, reason: 'not now' });
 */
export class ApprovalDecisions {
  constructor(
    private readonly tollgate: TollgateClient,
    private readonly audit: DecisionAudit,
    private readonly logError: (error: unknown) => void = () => undefined,
  ) {}

  /** Decides one approval, found through the workflow id its approvalId carries. */
  async decideOne(
    approver: string,
    request: DecisionRequest,
    channel: DecisionAttemptChannel = 'rest',
  ): Promise<ToolApprovalAuditEntry> {
    const [recorded] = await this.attempt(
      approver,
      channel,
      [request],
      async () => {
        try {
          return await this.tollgate.workflowIdOf(request.approvalId);
        } catch (error) {
          throw isApprovalDecisionError(error) ? toGatewayError(error) : error;
        }
      },
      // The caller named an approval, not a turn: a missing turn means the approval is unknown.
      request.approvalId,
    );
    return recorded as ToolApprovalAuditEntry;
  }

  /** Decides several approvals of one turn: all are recorded or none. */
  async decideBatch(
    approver: string,
    workflowId: string,
    requests: readonly DecisionRequest[],
  ): Promise<ToolApprovalAuditEntry[]> {
    return this.attempt(approver, 'rest', requests, async () => workflowId, undefined);
  }

  private async attempt(
    approver: string,
    channel: DecisionAttemptChannel,
    requests: readonly DecisionRequest[],
    resolveWorkflowId: () => Promise<string>,
    namedApprovalId: string | undefined,
  ): Promise<ToolApprovalAuditEntry[]> {
    const at = new Date().toISOString();
    let workflowId: string | undefined;
    const keep = (outcomes: DecisionAttemptOutcome[], refusal?: GatewayError) =>
      Promise.all(
        requests.map((request, index) =>
          this.audit
            .record({
              at,
              approver,
              channel,
              approvalId: request.approvalId,
              ...(workflowId !== undefined && { workflowId }),
              approved: request.approved,
              ...(request.reason !== undefined && { reason: request.reason }),
              outcome: outcomes[index] ?? 'refused',
              ...(refusal && { refusal: { code: refusal.kind, detail: refusal.detail } }),
            })
            // The decision stands whatever happens to its audit line; a lost line is logged loudly.
            .catch(this.logError),
        ),
      );
    try {
      workflowId = await resolveWorkflowId();
      const state = await this.readState(workflowId, namedApprovalId);
      const earlier = new Map(state.audit.map((entry) => [entry.approvalId, entry]));
      const recorded = await this.record(approver, workflowId, requests, state);
      // A decision that was already there, or that came back with someone else's name, changed nothing.
      await keep(
        recorded.map((entry) => (earlier.has(entry.approvalId) || entry.approver !== approver ? 'repeat' : 'recorded')),
      );
      return recorded;
    } catch (error) {
      const problem = toGatewayError(error);
      await keep(
        requests.map(() => (problem.status >= 500 ? 'failed' : 'refused')),
        problem,
      );
      throw problem.status >= 500 ? error : problem;
    }
  }

  // Read first, so an unknown turn is a 404 rather than the update's "not found" (which the client
  // cannot tell from a closed turn), and so repeats of decisions already recorded are recognised.
  private async readState(workflowId: string, approvalId: string | undefined): Promise<AgentTurnState> {
    try {
      return await this.tollgate.state(workflowId);
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
    approver: string,
    workflowId: string,
    requests: readonly DecisionRequest[],
    state: AgentTurnState,
  ): Promise<ToolApprovalAuditEntry[]> {
    try {
      return await this.tollgate.decideMany(
        workflowId,
        requests.map((request) => ({ ...request, approver })),
      );
    } catch (error) {
      if (!isApprovalDecisionError(error) || error.code !== 'turn-closed') throw error;
      // A closed turn takes no updates, but what it recorded is final: judge against that record, so
      // that a retried decision is still a 200 and a late conflicting one is still a 409.
      return requests.map((request) => judgeAgainstRecord(request, workflowId, state));
    }
  }
}

function judgeAgainstRecord(
  request: DecisionRequest,
  workflowId: string,
  state: AgentTurnState,
): ToolApprovalAuditEntry {
  const { approvalId } = request;
  const recorded = state.audit.find((entry) => entry.approvalId === approvalId);
  if (!recorded) {
    if (state.pending.some((approval) => approval.approvalId === approvalId)) {
      throw new ApprovalDecisionError(
        `Turn "${workflowId}" ended (${state.status}) without a decision on "${approvalId}"; it takes no more decisions. ` +
          'Continue the conversation in a new turn.',
        'turn-closed',
        approvalId,
        workflowId,
      );
    }
    throw new ApprovalDecisionError(
      `Unknown approvalId "${approvalId}": turn "${workflowId}" has no such approval request.`,
      'unknown-approval',
      approvalId,
      workflowId,
    );
  }
  if (recorded.decision === 'expired') {
    throw new ApprovalDecisionError(
      `Approval "${approvalId}" expired at ${recorded.decidedAt} and the call was denied; a decision after expiry is not applied.`,
      'expired',
      approvalId,
      workflowId,
    );
  }
  if ((recorded.decision === 'approved') !== request.approved) {
    throw new ApprovalDecisionError(
      `Approval "${approvalId}" was already ${recorded.decision} by ${recorded.approver ?? 'an unnamed approver'} ` +
        `at ${recorded.decidedAt}; the first decision wins and a conflicting one is not applied.`,
      'conflict',
      approvalId,
      workflowId,
    );
  }
  return recorded;
}
