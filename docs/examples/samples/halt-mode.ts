// docs/conversations.md's halt-mode sample, type-checked here (test/docs/code-samples.test.ts).
import type { ModelMessage, TollgateClient } from 'tollgate';

export async function approveEverythingOnce(tollgate: TollgateClient, history: ModelMessage[]) {
  const first = await (await tollgate.startTurn({ messages: history, approvalWait: 'halt' })).result();
  history.push(...first.messages, {
    role: 'tool',
    content: first.pending.map(({ approvalId }) => ({ type: 'tool-approval-response', approvalId, approved: true })),
  });
  const second = await (await tollgate.startTurn({ messages: history, approvalWait: 'halt' })).result();
  return second;
}
