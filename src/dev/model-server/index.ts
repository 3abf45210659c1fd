export {
  parseChatCompletionRequest,
  scriptedModelName,
  toolNamesOf,
  type ChatCompletionRequest,
  type ChatContentPart,
  type ChatMessage,
  type ChatTool,
  type ChatToolCall,
} from './chat-completion-request';
export { firstUserText, lastUserText, messageText } from './message-text';
export { parseInstructions, type DemoToolName, type Instruction } from './parse-instructions';
export type { RecordedRequest } from './recorded-request';
export { chatMessagesOfResponsesInput } from './responses-chat-view';
export {
  parseResponsesRequest,
  type ResponsesContentPart,
  type ResponsesInputItem,
  type ResponsesRequest,
  type ResponsesTool,
} from './responses-request';
export { answerByRules, rulesHelpText } from './rules';
export {
  isModelErrorReply,
  type ModelErrorReply,
  type ModelReply,
  type ScriptedAnswer,
  type ScriptedMcpApprovalRequest,
  type ScriptedMcpCall,
  type ScriptedReply,
  type ScriptedToolCall,
} from './scripted-reply';
export { startModelServer, type ModelServer, type ModelServerOptions } from './start-model-server';
export { summariseToolResults } from './summarise-tool-results';
