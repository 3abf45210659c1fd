import type { TollgateClient } from '../client';
import type { AgentTurnState } from '../protocol';
import { commandName } from './command-name';
import { TurnNotFoundError } from './follow-turn';
import { clip, formatDecision, formatMessage, formatPending } from './format-turn';

/** `tollgate status <turnId>`: where a turn is, what it waits for, what was decided; `--json` for the raw state. */
export async function statusCommand(
  tollgate: Pick<TollgateClient, 'state'>,
  options: { workflowId: string; json?: boolean },
): Promise<void> {
  const state = await tollgate.state(options.workflowId).catch((error: unknown) => {
    throw (error as Error).name === 'WorkflowNotFoundError' ? new TurnNotFoundError(options.workflowId) : error;
  });
  if (options.json) {
    console.log(JSON.stringify(state, null, 2));
    return;
  }
  for (const line of formatStatus(options.workflowId, state)) console.log(line);
}

/** The lines `status` prints for a turn's state. */
export function formatStatus(workflowId: string, state: AgentTurnState): string[] {
  const toolNames = new Map([...state.pending, ...state.audit].map((entry) => [entry.approvalId, entry.toolName]));
  const lines = [
    `Turn ${clip(workflowId)}: ${state.status}, ${state.steps} step${state.steps === 1 ? '' : 's'}, ` +
      `${state.pending.length} waiting for approval, ${state.audit.length} decided.`,
  ];
  const messages = state.messages.flatMap((message) =>
    formatMessage(message, { toolNameOf: (approvalId) => toolNames.get(approvalId) }),
  );
  if (messages.length > 0) lines.push('', ...messages);
  if (state.audit.length > 0) lines.push('', 'Decisions:', ...state.audit.map(formatDecision));
  if (state.pending.length > 0) lines.push('', 'Waiting:', ...state.pending.flatMap(formatPending));
  for (const waiting of state.awaitingOutput)
    lines.push(`  … ${clip(waiting.toolName)} runs on the client (toolCallId ${clip(waiting.toolCallId)})`);
  if (state.status === 'running' || state.status.startsWith('awaiting'))
    lines.push('', `Follow it: ${commandName()} follow ${workflowId}`);
  return lines;
}
