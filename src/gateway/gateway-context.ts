import type { TollgateClient } from '../client';
import type { PersonDirectory } from '../identity';
import type { ApprovalDecisions } from './decisions/approval-decisions';
import type { DecisionAudit } from './decisions/decision-audit';
import type { DecisionRateLimitHook, DecisionRateLimiter } from './decisions/decision-rate-limit';
import type { StandingGrants } from './decisions/standing-grants';
import type { PendingListingLimits } from './turns/list-pending-approvals';

/** What the routes share. */
export interface GatewayContext {
  tollgate: TollgateClient;
  decisions: ApprovalDecisions;
  /** Standing grants: approve and allow, give, revoke, list (docs/asking-less.md). */
  grants: StandingGrants;
  audit: DecisionAudit;
  /** The identity map: who is who across channels (empty when not configured). */
  people: PersonDirectory;
  /** The per-person decision limit, shared by every channel. */
  decisionLimiter: DecisionRateLimiter;
  /** The same limit as a hook for REST routes, run after authentication. */
  decisionRateLimit: DecisionRateLimitHook;
  /** Deadline of one read of a turn. */
  readTimeoutMs: number;
  /** How far `GET /v1/approvals` reaches. */
  listing: PendingListingLimits;
}
