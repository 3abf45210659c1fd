// The workflow bundle's entry point: only workflow functions are exported here.
export { agentTurn } from './agent-turn';
export { conversation } from './conversation';
