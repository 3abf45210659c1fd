export type {
  CallModelInput,
  ExecuteTool,
  ExecuteToolInput,
  InvalidToolCall,
  ModelStepResult,
  TollgateActivities,
  ToolApprovalPolicy,
  ToolApprovalPolicyAnswer,
  ToolApprovalPolicyRequest,
  ValidateToolOutputInput,
} from './activity-types';
export { createActivities, modelSettingsFromEnvironment, type ModelSettingsFromEnvironment } from './create-activities';
export { classifyModelError } from './model/model-errors';
export { renderToolOutput } from './model/render-tool-output';
export { toChatMessages } from './model/to-chat-messages';
