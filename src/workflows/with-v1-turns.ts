// The workflow entry of a worker that still runs turns and conversations started before `turn-v2`
// (`v1Turns: 'run'`). The export names are the workflow types, so they are those of ./index.
export { agentTurnWithV1Turns as agentTurn } from './agent-turn';
export { conversationWithV1Turns as conversation } from './conversation';
export {
  agentTurnEventsQuery,
  agentTurnStateQuery,
  pendingToolApprovalsQuery,
  respondToToolApprovalsUpdate,
  submitToolOutputUpdate,
  supersedeTurnSignal,
  toolApprovalResponseSignal,
} from './definitions';
