// The workflow entry (`tollgate/workflows`): the workflow bundle's entry point, and what workflow code
// of your own may import — the workflows and the contract definitions, nothing with I/O.
export { agentTurn } from './turn/agent-turn';
export { conversation } from './conversation/conversation';
export {
  agentTurnEventsQuery,
  agentTurnStateQuery,
  pendingToolApprovalsQuery,
  respondToToolApprovalsUpdate,
  submitToolOutputUpdate,
  supersedeTurnSignal,
  toolApprovalResponseSignal,
} from './definitions';
