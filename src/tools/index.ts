export { isAiSdkToolSet, toolsFromAiSdk, type AiSdkTool, type AiSdkToolSet } from './ai-sdk-tools';
export { agentToolInputSchema, defineAgentTool, type AgentToolDefinition } from './define-agent-tool';
export { defineTool, type Tool, type ToolDefinition, type ToolExecutionContext } from './define-tool';
export {
  approvalRequirementOf,
  resolveApprovalRequirement,
  type ApprovalMode,
  type ApprovalRequirement,
  type NeedsApproval,
  type NeedsApprovalContext,
} from './resolve-approval-requirement';
export { ToolRegistry, type ToolManifestEntry } from './tool-registry';
