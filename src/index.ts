// Tollgate's public API for Node code: workers, clients, tools, the protocol and the contract names.
// Workflow code imports `tollgate/workflows` instead, which holds only what the workflow sandbox may load.
export {
  createActivities,
  modelSettingsFromEnvironment,
  type ModelSettings,
  type ModelSettingsFromEnvironment,
} from './activities';
export type {
  ToolApprovalPolicy,
  ToolApprovalPolicyAnswer,
  ToolApprovalPolicyRequest,
} from './activities/activity-types';
export {
  ApprovalDecisionError,
  isApprovalDecisionError,
  temporalSettingsFromEnvironment,
  TollgateClient,
  type ApprovalDecisionErrorCode,
  type Decision,
  type PendingApprovalOfTurn,
  type TemporalSettings,
  type TollgateClientOptions,
} from './client';
export {
  ApprovalDecisions,
  ApproverTokens,
  approverTokensFromEnvironment,
  chatChannel,
  chatSettingsFromEnvironment,
  createGateway,
  DecisionAudit,
  emailChannel,
  emailExtensionFromEnvironment,
  gatewayChannelsFromEnvironment,
  gatewaySettingsFromEnvironment,
  inboxChannel,
  generateDecisionKeyPair,
  inboxOptionsFromEnvironment,
  parseDecisionPrivateKey,
  restChannel,
  slackChannel,
  slackSettingsFromEnvironment,
  type ChatChannelOptions,
  type DecisionSigningKey,
  type EmailExtensionOptions,
  type GatewayChannel,
  type GatewayContext,
  type GatewayOptions,
  type GatewaySettings,
  type InboxExtensionOptions,
  type SlackExtensionOptions,
} from './gateway';
export { createChatHandler } from './gateway/chat';
export type { ApprovalNotifier } from './notifications/notification-types';
export { operatorPolicyFromEnvironment, operatorPolicySchema, type OperatorPolicy, type OperatorRules } from './policy';
export {
  agentTurnInputSchema,
  collectToolApprovals,
  type AgentTurnInput,
  type AgentTurnResult,
  type AgentTurnState,
  type ModelMessage,
  type PendingToolApproval,
  type RecordedDecision,
  type ToolApprovalAuditEntry,
  type ToolApprovalDecision,
  type ToolResultOutput,
} from './protocol';
export { contentStoreFromEnvironment, defaultContentStore, FileContentStore, type ContentStore } from './store';
export {
  defineTool,
  toolsFromAiSdk,
  type AiSdkTool,
  type AiSdkToolSet,
  type Tool,
  type ToolDefinition,
  type ToolExecutionContext,
} from './tools';
export { defineAgentTool, type AgentToolDefinition } from './tools';
export {
  connectMcpServers,
  mcpServersFromEnvironment,
  type McpServerConfig,
  type McpServerConfigs,
  type McpToolSource,
} from './tools/mcp';
export {
  createWorkspaceTools,
  describeToolSandbox,
  workspaceRootsOf,
  workspaceToolsOptionsFromEnvironment,
} from './tools/workspace';
export {
  createTollgateWorker,
  planApprovalFromEnvironment,
  tollgateWorkflowBundleOptions,
  workerSettingsFromEnvironment,
  type TollgateWorkerOptions,
} from './worker';
export {
  agentTurnEventsQuery,
  agentTurnStateQuery,
  agentTurnWorkflowType,
  conversationStateQuery,
  conversationWorkflowType,
  pendingApprovalsSearchAttribute,
  pendingToolApprovalsQuery,
  respondToToolApprovalsUpdate,
  sendMessageUpdate,
  submitToolOutputUpdate,
  supersedeTurnSignal,
  toolApprovalResponseSignal,
} from './workflows/definitions';
