import type { TollgateClient } from '../client';
import { formatPending } from './format-turn';

/** `tollgate pending`: what waits for a decision. */
export async function pendingCommand(
  tollgate: TollgateClient,
  options: { workflowId?: string; json?: boolean },
): Promise<void> {
  const pending = await tollgate.pending({ workflowId: options.workflowId });
  if (options.json) {
    console.log(JSON.stringify(pending, null, 2));
    return;
  }
  if (pending.length === 0) {
    console.log('No approvals are pending.');
    return;
  }
  for (const approval of pending) console.log(formatPending(approval).join('\n'));
}
