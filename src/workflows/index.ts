// The workflow entry (`tollgate/workflows`): the workflow bundle's entry point, and what workflow code
// of your own may import — the workflows and the contract definitions, nothing with I/O.
export { agentTurn } from './turn/agent-turn';
export { conversation } from './conversation/conversation';
export { tollgateGrantLedger } from './grants/grant-ledger';
export {
  claimGrantUpdate,
  grantLedgerWorkflowId,
  grantLedgerWorkflowType,
  grantsQuery,
  grantUpdate,
  revokeGrantUpdate,
} from './grants/grant-ledger-definitions';
export {
  agentTurnEventsQuery,
  agentTurnStateQuery,
  pendingToolApprovalsQuery,
  respondToToolApprovalsUpdate,
  submitToolOutputUpdate,
  supersedeTurnSignal,
  toolApprovalResponseSignal,
} from './definitions';
