export type {
  CallModelInput,
  ExecuteToolInput,
  InspectToolCallsInput,
  InvalidToolCall,
  ModelStepResult,
  TollgateActivities,
  ToolApprovalPolicy,
  ToolApprovalPolicyAnswer,
  ToolApprovalPolicyDecision,
  ToolApprovalPolicyRequest,
  ValidateToolOutputInput,
  ToolCallInspection,
} from './activity-types';
export { createActivities, modelSettingsFromEnvironment, type ModelSettingsFromEnvironment } from './create-activities';
export { classifyModelError } from './model-errors';
export { renderToolOutput } from './render-tool-output';
export { toChatMessages } from './to-chat-messages';
