export {
  ApprovalDecisions,
  type ApprovalDecisionsOptions,
  type DecisionActor,
  type DecisionRequest,
} from './decisions/approval-decisions';
export { approverOf, callerOf, requireScope, type Caller } from './auth/authenticate';
export { createDecisionRateLimit, DecisionRateLimiter, type RateLimitVerdict } from './decisions/decision-rate-limit';
export {
  decisionPublicKeyOf,
  decisionSigningKeyFromEnvironment,
  generateDecisionKeyPair,
  parseDecisionPrivateKey,
} from './decisions/decision-signing-key';
export { listPendingApprovals, type PendingListing, type PendingListingLimits } from './turns/list-pending-approvals';
export { neutraliseText } from './decisions/neutralise-text';
export { signDecision, type DecisionSigningKey, type SignedDecision } from './decisions/sign-decision';
export { isNamedApprover, mayDecide, mayReadTurn } from './auth/turn-access';
export { requesterOf } from './auth/turn-requester';
export {
  ApproverTokens,
  approverTokensFromEnvironment,
  digestToken,
  minimumTokenLength,
  type ApproverTokenEntry,
} from './auth/approver-tokens';
export { createGateway } from './create-gateway';
export { gatewayChannelsFromEnvironment } from './gateway-channels-from-environment';
export { restChannel } from './routes/rest-channel';
export { chatChannel, chatSettingsFromEnvironment, type ChatChannelOptions } from './chat';
export { inboxChannel, inboxOptionsFromEnvironment, type InboxExtensionOptions } from './inbox';
export { slackChannel, slackSettingsFromEnvironment, type SlackExtensionOptions } from './slack';
export { emailChannel, emailExtensionFromEnvironment, type EmailExtensionOptions } from './email';
export {
  defaultBodyLimitBytes,
  type GatewayChannel,
  type GatewayExtension,
  type GatewayOptions,
  type GatewayRateLimit,
} from './gateway-options';
export {
  DecisionAudit,
  type DecisionAttempt,
  type DecisionAttemptChannel,
  type DecisionAttemptFilter,
  type DecisionAttemptOutcome,
} from './decisions/decision-audit';
export {
  GatewayError,
  isGatewayError,
  problemKinds,
  problemTypeOf,
  type FieldProblem,
  type ProblemKind,
} from './http/gateway-error';
export { assertOutsideWorkspace, gatewaySettingsFromEnvironment, type GatewaySettings } from './gateway-settings';
export { openApiDocument } from './routes/openapi-document';
export { problemContentType, type ProblemBody } from './http/problem-handler';
export { decisionProblemKinds, toGatewayError } from './http/to-gateway-error';
export { verifyBearerToken } from './auth/verify-bearer-token';
export type { GatewayContext } from './gateway-context';
