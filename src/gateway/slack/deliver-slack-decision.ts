import type { Allow, StandingGrant, ToolApprovalAuditEntry } from '../../protocol';
import type { ApprovalDecisions } from '../decisions/approval-decisions';
import type { StandingGrants } from '../decisions/standing-grants';
import type { GatewayError } from '../http/gateway-error';
import { toGatewayError } from '../http/to-gateway-error';
import type { SlackDecisionClick } from './slack-interaction';

/** How a click's decision is retried after Slack has had its answer. */
export interface SlackDeliveryRetry {
  /** Tries in all, the first included (default 8). */
  attempts?: number;
  /** Wait before the second try, in milliseconds; it doubles each time (default 500). */
  initialDelayMs?: number;
  /** Longest wait between tries (default 30 s). */
  maxDelayMs?: number;
}

/** How a delivery ended. */
export type SlackDelivery =
  | { type: 'recorded'; decision: ToolApprovalAuditEntry; attempts: number; allowed?: StandingGrant }
  /** The turn refused it (unknown, conflicting, expired, closed, not allowed): trying again cannot help. */
  | { type: 'refused'; problem: GatewayError; attempts: number }
  /** Temporal kept failing (no worker, unavailable) through every try, or the gateway is closing. */
  | { type: 'undelivered'; problem: GatewayError; attempts: number };

/**
 * Delivers one click's decision, retrying with doubling waits while the failure is on Temporal's side
 * (5xx: no worker to take the update, the server unavailable) and never when the turn refused it
 * (403, 404, 409): a refusal is an answer. Each try goes through {@link ApprovalDecisions}, so each is
 * in the gateway audit; an identical decision is idempotent, so a retry of one that did apply is a `repeat`. A click on
 * "Approve and allow" goes through `allowing`'s {@link StandingGrants.approveAndAllow}, the path every channel takes.
 *
 * @example
 * const delivery = await deliverSlackDecision(context.decisions, click, { attempts: 5 }, closing.signal);
 */
export async function deliverSlackDecision(
  decisions: ApprovalDecisions,
  click: SlackDecisionClick,
  retry: SlackDeliveryRetry = {},
  signal?: AbortSignal,
  allowing?: { grants: StandingGrants; allow: Allow },
): Promise<SlackDelivery> {
  const attempts = Math.max(1, retry.attempts ?? 8);
  const maxDelayMs = retry.maxDelayMs ?? 30_000;
  let delayMs = retry.initialDelayMs ?? 500;
  for (let attempt = 1; ; attempt++) {
    try {
      const actor = { person: click.approver, identity: click.identity ?? click.approver };
      const request = {
        approvalId: click.approvalId,
        approved: click.approved,
        ...(click.argumentsDigest !== undefined && { argumentsDigest: click.argumentsDigest }),
      };
      if (click.allow && allowing) {
        const { allowed, ...decision } = await allowing.grants.approveAndAllow(actor, request, allowing.allow, 'slack');
        return { type: 'recorded', decision, attempts: attempt, allowed };
      }
      const decision = await decisions.decideOne(actor, request, 'slack');
      return { type: 'recorded', decision, attempts: attempt };
    } catch (error) {
      const problem = toGatewayError(error);
      if (problem.status < 500) return { type: 'refused', problem, attempts: attempt };
      if (attempt >= attempts || signal?.aborted) return { type: 'undelivered', problem, attempts: attempt };
      await sleep(Math.min(delayMs, maxDelayMs), signal);
      delayMs *= 2;
    }
  }
}

// Resolves early when the signal aborts, so closing the gateway does not wait out a backoff.
function sleep(milliseconds: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, milliseconds);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
