import type { TurnActivityLimits } from '../protocol';
import type { OperatorPolicy } from '../policy';
import type { ContentStore } from '../store';
import type { ToolRegistry } from '../tools';
import type { ExecuteTool, ToolApprovalPolicy } from './activity-types';
import type { ModelCall } from './model/call-model';

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
  /** Limits the worker's owner sets for the turn's activities. */
  activityLimits?: TurnActivityLimits;
}
