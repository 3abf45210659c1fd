export { checkCors, preflightHeaders, type CorsCheck } from './chat-cors';
export {
  chatChannel,
  chatExtension,
  chatPaths,
  type ChatChannelOptions,
  type ChatExtensionOptions,
} from './chat-extension';
export {
  createChatHandler,
  type ChatCaller,
  type ChatHandler,
  type ChatHandlerOptions,
  type ChatHttpRequest,
} from './chat-handler';
export { readChatHistory } from './chat-history';
export { ChatRateLimit } from './chat-rate-limit';
export { chatIdSchema, chatRequestBodySchema, parseChatRequest, type ChatRequest } from './chat-request';
export { chatSettingsFromEnvironment, type ChatSettings } from './chat-settings';
export { followTurn, type FollowTiming } from './follow-turn';
export { TurnReader } from './read-turn';
export { turnMessageOf } from './turn-message';
export { TurnRenderer } from './turn-renderer';
export { storedTurnSnapshot, type ChatTurnStatus, type TurnSnapshot } from './turn-snapshot';
export { userMessageParts } from './user-message-parts';
