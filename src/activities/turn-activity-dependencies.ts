import type { TurnActivityLimits } from '../protocol';
import type { OperatorPolicy } from '../policy';
import type { ContentStore } from '../store';
import type { ToolRegistry } from '../tools';
import type { ExecuteTool, ToolApprovalPolicy } from './activity-types';
import type { ModelCall } from './model/call-model';
import type { GrantClaimer } from './planning/plan-tool-calls';

/** What the turn activities share: the tools, the store, the operator's policy, the model and the secrets. */
export interface TurnActivityDependencies {
  registry: ToolRegistry;
  store: ContentStore;
  policy: OperatorPolicy;
  callModel: ModelCall;
  executeTool: ExecuteTool;
  /** HMAC secret for approval requests, in the AI SDK's format. */
  approvalSecret?: string;
  onToolApproval?: ToolApprovalPolicy;
  /** Claims a standing grant for a call that asks (the worker's grant ledger); grants are not consulted when absent. */
  claimGrant?: GrantClaimer;
  /** Offer the model the built-in `proposePlan` tool (plan approval, docs/asking-less.md). */
  planApproval?: boolean;
  /** Limits the worker's owner sets for the turn's activities. */
  activityLimits?: TurnActivityLimits;
}
