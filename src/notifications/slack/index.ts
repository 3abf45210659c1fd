export {
  approvalRequestMessage,
  approvalResolvedMessage,
  type SlackBlock,
  type SlackMessage,
} from './approval-message';
export {
  readSlackButtonValue,
  slackActionIds,
  slackButtonValue,
  slackDecisionBlockId,
  type SlackActionId,
} from './slack-action-ids';
export { classifySlackError } from './slack-errors';
export { SlackNotifier, slackNotifierFromEnvironment, type SlackNotifierOptions } from './slack-notifier';
export { boundEscaped, escapeSlackText, renderArguments, slackDate, slackSectionTextLimit } from './slack-text';
