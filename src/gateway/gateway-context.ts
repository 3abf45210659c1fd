import type { TollgateClient } from '../client';
import type { ApprovalDecisions } from './approval-decisions';
import type { DecisionAudit } from './decision-audit';
import type { DecisionRateLimitHook } from './decision-rate-limit';

/** What the routes share. */
export interface GatewayContext {
  tollgate: TollgateClient;
  decisions: ApprovalDecisions;
  audit: DecisionAudit;
  /** The tighter rate limit of routes that decide, as a hook that runs after authentication. */
  decisionRateLimit: DecisionRateLimitHook;
}
