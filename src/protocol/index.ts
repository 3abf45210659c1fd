export {
  agentTurnInputSchema,
  modelSettingsSchema,
  providerToolSchema,
  type AgentTurnInput,
  type AgentTurnResult,
  type AgentTurnState,
  type AgentTurnStatePage,
  type AgentTurnStatus,
  type ModelSettings,
  type ProviderTool,
} from './agent-turn';
export { formatBytes } from './format-bytes';
export { durationSchema, durationToMilliseconds, type Duration } from './duration';
export {
  conversationInputSchema,
  conversationTurnSettingsSchema,
  sendMessageInputSchema,
  type ConversationInput,
  type ConversationState,
  type SendMessageInput,
  type SendMessageResult,
} from './conversation';
export {
  approvalRulesSchema,
  notificationTargetSchema,
  type ApprovalRules,
  type NotificationTarget,
} from './approval-rules';
export { toolOnPath } from './tool-on-path';
export { collectToolApprovals, type CollectedApproval, type CollectedToolApprovals } from './collect-tool-approvals';
export { formatApprovalId, workflowIdOfApproval } from './approval-id';
export { providerOptionsSchema } from './provider-options';
export {
  filePartSchema,
  imagePartSchema,
  reasoningPartSchema,
  textPartSchema,
  toolApprovalRequestPartSchema,
  toolApprovalResponsePartSchema,
  toolCallPartSchema,
  toolResultPartSchema,
  type FilePart,
  type ImagePart,
  type ReasoningPart,
  type TextPart,
  type ToolApprovalRequestPart,
  type ToolApprovalResponsePart,
  type ToolCallPart,
  type ToolResultPart,
} from './message-parts';
export {
  assistantContentPartSchema,
  assistantMessageSchema,
  modelMessageSchema,
  systemMessageSchema,
  toolContentPartSchema,
  toolMessageSchema,
  userContentPartSchema,
  userMessageSchema,
  type AssistantContentPart,
  type AssistantMessage,
  type ModelMessage,
  type SystemMessage,
  type ToolContentPart,
  type ToolMessage,
  type UserContentPart,
  type UserMessage,
} from './model-message';
export {
  respondToToolApprovalsInputSchema,
  submitToolOutputInputSchema,
  toolApprovalDecisionSchema,
  type ApprovalOutcome,
  type DecisionChannel,
  type DecisionOutcome,
  type RecordedDecision,
  type IgnoredDecisionCause,
  type IgnoredToolApprovalDecision,
  type PendingToolApproval,
  type RespondToToolApprovalsInput,
  type SubmitToolOutputInput,
  type ToolApprovalAuditEntry,
  type ToolApprovalDecision,
} from './tool-approval';
export type { TurnEvent } from './turn-event';
export { userText } from './user-text';
export { errorText, executionDenied } from './denial-and-error-outputs';
export { toolResultOutputSchema, type ToolResultOutput } from './tool-result-output';
export { canonicalJson } from './canonical-json';
export { inputDigestOf } from './input-digest';
export { approverRefusal, mayActOnApproval, type ApproverAct, type ApproverRules } from './approver-rights';
export {
  editedInputDigestOf,
  editedInputNote,
  editRefusal,
  withEditedInputNote,
  type EditingDecision,
} from './edited-input';
export {
  boundDecisionSignaturePayload,
  decisionSignaturePayload,
  type DecisionBinding,
  decisionSignatureSchema,
  type DecisionSignature,
  type SignedDecisionFields,
} from './decision-signature';
export type {
  ActivityLimits,
  TurnActivityLimits,
  ApprovalNoticePlan,
  ApprovalRights,
  ContentRef,
  DecisionTrust,
  GrantUse,
  IssuedApproval,
  PlannedModelStep,
  PlannedToolCall,
  SubAgentPlan,
  TranscriptPointer,
  TurnSettings,
} from './turn-plan';
export { inlineTranscriptMaxBytes, turnRevisions } from './turn-plan';
export type { ApprovalNotice, ApprovalNoticeKind, NotificationReceipt } from './approval-notice';
export {
  isPathUnder,
  normalisePath,
  conversationIdOf,
  topTurnIdOf,
  constraintHolds,
  constraintSchemaProblem,
  grantCoverProblem,
  grantLimitProblem,
  grantNamesTool,
  grantRefusal,
  grantedCallsKept,
  type ArgumentConstraint,
  type ClaimedCall,
  type ClaimRights,
  type GrantClaim,
  type GrantedCallRecord,
  type GrantLimits,
  type Grantor,
  type GrantScope,
  type GrantTerms,
  type StandingGrant,
} from './standing-grant';
export {
  grantSignatureHolds,
  grantSignaturePayload,
  type GrantSignature,
  type SignedGrantFields,
} from './grant-signature';
export {
  allowSchema,
  argumentConstraintSchema,
  grantRequestSchema,
  grantScopeSchema,
  grantTermsSchema,
  ledgerClaimInputSchema,
  ledgerGrantInputSchema,
  ledgerRevokeInputSchema,
  termsOfAllow,
  termsOfGrantRequest,
  type Allow,
  type GrantRequest,
  type LedgerClaimInput,
  type LedgerGrantInput,
  type LedgerRevokeInput,
} from './grant-request';
export { allowFromSetting, allowLabel } from './allow-setting';
