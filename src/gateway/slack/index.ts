export { deliverSlackDecision, type SlackDelivery, type SlackDeliveryRetry } from './deliver-slack-decision';
export { slackChannel, slackExtension, slackInteractivityPath, type SlackExtensionOptions } from './slack-extension';
export { parseSlackInteraction, type SlackDecisionClick, type SlackInteraction } from './slack-interaction';
export { slackSettingsFromEnvironment, type SlackSettings } from './slack-settings';
export {
  signSlackRequest,
  slackTimestampToleranceSeconds,
  verifySlackRequest,
  type SlackRequestToVerify,
  type SlackVerification,
} from './verify-slack-request';
