export { ApprovalDecisions, type DecisionRequest } from './approval-decisions';
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
export { gatewaySettingsFromEnvironment, type GatewaySettings } from './gateway-settings';
export { openApiDocument } from './openapi-document';
export { problemContentType, type ProblemBody } from './problem-handler';
export { decisionProblemKinds, toGatewayError } from './to-gateway-error';
export { verifyBearerToken } from './verify-bearer-token';
export type { GatewayContext } from './gateway-context';
