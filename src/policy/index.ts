export {
  mcpServerRulesSchema,
  mcpToolRulesSchema,
  operatorPolicyFromEnvironment,
  operatorPolicySchema,
  operatorRulesSchema,
  type McpServerRules,
  type McpToolRules,
  type OperatorPolicy,
  type OperatorRules,
} from './operator-policy';
export { resolveMcpToolRules, type McpToolAnnotations, type ResolvedMcpToolRules } from './resolve-mcp-tool-rules';
export { resolveApprovalRules, type CallerRules, type ResolvedApprovalRules } from './resolve-approval-rules';
export { defaultWarnBeforeExpiryMs, resolveExpiryWarning, type ResolvedExpiryWarning } from './resolve-expiry-warning';
export {
  askingOf,
  replayPolicy,
  type PolicyReplay,
  type PolicyReplayInput,
  type ReplayedCall,
  type ReplayTurn,
} from './replay-policy';
