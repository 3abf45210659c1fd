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
export { answerByRules, rulesHelpText } from './rules';
export {
  isModelErrorReply,
  type ModelErrorReply,
  type ModelReply,
  type ScriptedAnswer,
  type ScriptedReply,
  type ScriptedToolCall,
} from './scripted-reply';
export { startModelServer, type ModelServer, type ModelServerOptions } from './start-model-server';
export { summariseToolResults } from './summarise-tool-results';
