// The workflow entry (`tollgate/workflows`): the workflow bundle's entry point (v1 turns retired; see
// ./with-v1-turns for the worker that still runs them), and what workflow code
// of your own may import — the workflows and the contract definitions, nothing with I/O.
export { agentTurn } from './agent-turn';
export { conversation } from './conversation';
export {
  agentTurnEventsQuery,
  agentTurnStateQuery,
  pendingToolApprovalsQuery,
  respondToToolApprovalsUpdate,
  submitToolOutputUpdate,
  supersedeTurnSignal,
  toolApprovalResponseSignal,
} from './definitions';
