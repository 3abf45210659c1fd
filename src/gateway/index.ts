export {
  ApprovalDecisions,
  type ApprovalDecisionsOptions,
  type DecisionActor,
  type DecisionRequest,
} from './approval-decisions';
export { approverOf, callerOf, requireScope, type Caller } from './authenticate';
export { createDecisionRateLimit, DecisionRateLimiter, type RateLimitVerdict } from './decision-rate-limit';
export {
  decisionPublicKeyOf,
  decisionSigningKeyFromEnvironment,
  generateDecisionKeyPair,
  parseDecisionPrivateKey,
} from './decision-signing-key';
export { listPendingApprovals, type PendingListing, type PendingListingLimits } from './list-pending-approvals';
export { neutraliseText } from './neutralise-text';
export { signDecision, type DecisionSigningKey, type SignedDecision } from './sign-decision';
export { isNamedApprover, mayDecide, mayReadTurn } from './turn-access';
export { requesterOf } from './turn-requester';
export {
  ApproverTokens,
  approverTokensFromEnvironment,
  digestToken,
  minimumTokenLength,
  type ApproverTokenEntry,
} from './approver-tokens';
export {
  createGateway,
  defaultBodyLimitBytes,
  type GatewayExtension,
  type GatewayOptions,
  type GatewayRateLimit,
} from './create-gateway';
export {
  DecisionAudit,
  type DecisionAttempt,
  type DecisionAttemptChannel,
  type DecisionAttemptFilter,
  type DecisionAttemptOutcome,
} from './decision-audit';
export {
  GatewayError,
  isGatewayError,
  problemKinds,
  problemTypeOf,
  type FieldProblem,
  type ProblemKind,
} from './gateway-error';
export { assertOutsideWorkspace, gatewaySettingsFromEnvironment, type GatewaySettings } from './gateway-settings';
export { openApiDocument } from './openapi-document';
export { problemContentType, type ProblemBody } from './problem-handler';
export { decisionProblemKinds, toGatewayError } from './to-gateway-error';
export { verifyBearerToken } from './verify-bearer-token';
export type { GatewayContext } from './gateway-context';
