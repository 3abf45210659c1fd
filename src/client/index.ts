export {
  ApprovalDecisionError,
  isApprovalDecisionError,
  type ApprovalDecisionErrorCode,
} from './approval-decision-error';
export { fitTurnInput, isTurnInputTooLargeError, TurnInputTooLargeError, turnInputLimits } from './fit-turn-input';
export { GatewayClient } from './gateway-client';
export { judgeDecisionsOnClosedTurn, type ClosedTurnRecord } from './judge-closed-turn';
export {
  readTurnRecords,
  type RecordedToolCall,
  type TurnRecord,
  type TurnRecordLimits,
  type TurnRecords,
} from './read-turn-records';
export {
  checkTemporal,
  isTemporalPreflightError,
  preflightOrExit,
  requiredSearchAttributes,
  TemporalPreflightError,
  type TemporalPreflightOptions,
  type TemporalPreflightProblem,
} from './temporal-preflight';
export {
  defaultTaskQueue,
  describeTemporalSettings,
  temporalSettingsFromEnvironment,
  type TemporalSettings,
} from './temporal-settings';
export { GatewayUnreachableError, isGatewayUnreachableError } from './gateway-client';
export { newTurnId, TollgateClient, type Decision, type PendingApprovalOfTurn } from './tollgate-client';
