// Tollgate's public API for Node code: workers, clients, tools, the protocol and the contract names.
// Workflow code imports `tollgate/workflows` instead, which holds only what the workflow sandbox may load.
export { createActivities, modelSettingsFromEnvironment, type ModelSettingsFromEnvironment } from './activities';
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
} from './client';
export { ApprovalDecisions, createGateway, DecisionAudit, type GatewayOptions } from './gateway';
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
export { contentStoreFromEnvironment, FileContentStore, type ContentStore } from './store';
export { defineTool, type Tool, type ToolDefinition } from './tools';
export { defineAgentTool, type AgentToolDefinition } from './tools';
export {
  connectMcpServers,
  mcpServersFromEnvironment,
  type McpServerConfig,
  type McpServerConfigs,
  type McpToolSource,
} from './tools/mcp';
export { createWorkspaceTools } from './tools/workspace';
export { createTollgateWorker, tollgateWorkflowBundleOptions, type TollgateWorkerOptions } from './worker';
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
