import type { TollgateClient } from '../client';
import type { AgentTurnState } from '../protocol';
import { formatMessage, formatPending } from './format-turn';

const pollIntervalMs = 300;

/** `tollgate run "<prompt>"`: starts a turn and prints its progress, including what waits for approval. */
export async function runCommand(
  tollgate: TollgateClient,
  options: {
    prompt: string;
    autoApprove?: boolean;
    maxSteps?: number;
    modelSteps?: 'activity' | 'local';
    approvalTimeout?: string;
    tools?: string[];
    workflowId?: string;
    detach?: boolean;
  },
): Promise<void> {
  const handle = await tollgate.startTurn(
    {
      messages: [{ role: 'user', content: options.prompt }],
      ...(options.autoApprove && { autoApprove: true }),
      ...(options.maxSteps !== undefined && { maxSteps: options.maxSteps }),
      ...(options.modelSteps !== undefined && { modelSteps: options.modelSteps }),
      ...(options.approvalTimeout !== undefined && { approvalTimeout: options.approvalTimeout }),
      ...(options.tools && { tools: options.tools }),
    },
    { workflowId: options.workflowId },
  );
  console.log(`Started turn ${handle.workflowId}`);
  if (options.detach) return;

  let shownMessages = 0;
  const shownApprovals = new Set<string>();
  const show = (state: AgentTurnState) => {
    for (const message of state.messages.slice(shownMessages))
      for (const line of formatMessage(message)) console.log(line);
    shownMessages = state.messages.length;
    for (const approval of state.pending) {
      if (shownApprovals.has(approval.approvalId)) continue;
      shownApprovals.add(approval.approvalId);
      console.log(formatPending(approval).join('\n'));
    }
  };

  const outcome = handle.result();
  let finished = false;
  outcome.then(
    () => (finished = true),
    () => (finished = true),
  );
  while (!finished) {
    try {
      show(await tollgate.state(handle.workflowId));
    } catch {
      // The first query can race the first workflow task; the next poll catches up.
    }
    await Promise.race([outcome.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, pollIntervalMs))]);
  }
  const result = await outcome;
  show({ ...result, awaitingOutput: [] });
  console.log(`Turn ${result.status} after ${result.steps} step${result.steps === 1 ? '' : 's'}.`);
}
