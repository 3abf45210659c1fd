export {
  ApprovalDecisionError,
  isApprovalDecisionError,
  type ApprovalDecisionErrorCode,
} from './approval-decision-error';
export { GatewayClient } from './gateway-client';
export { defaultTaskQueue, temporalSettingsFromEnvironment, type TemporalSettings } from './temporal-settings';
export { TollgateClient, type Decision, type PendingApprovalOfTurn } from './tollgate-client';
