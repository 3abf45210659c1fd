export {
  operatorPolicyFromEnvironment,
  operatorPolicySchema,
  operatorRulesSchema,
  type OperatorPolicy,
  type OperatorRules,
} from './operator-policy';
export { resolveApprovalRules, type CallerRules, type ResolvedApprovalRules } from './resolve-approval-rules';
