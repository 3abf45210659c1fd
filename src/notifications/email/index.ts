export { approvalRequestEmail, approvalResolvedEmail, type DecisionLinks, type EmailContent } from './approval-email';
export {
  issueDecisionToken,
  verifyDecisionToken,
  type DecisionTokenClaims,
  type DecisionTokenRefusal,
  type DecisionTokenRequest,
  type DecisionTokenVerification,
  type EmailDecision,
} from './decision-token';
export { classifySmtpError } from './email-errors';
export {
  defaultLinkLifetimeMs,
  emailDecisionPathPrefix,
  EmailNotifier,
  type EmailNotifierOptions,
} from './email-notifier';
export {
  emailLinkSecretsFromEnvironment,
  emailNotifierFromEnvironment,
  minimumLinkSecretLength,
  smtpTransportFromEnvironment,
} from './email-notifier-from-environment';
export { argumentsTextLimit, bound, escapeHtml, renderArgumentsText } from './email-text';
