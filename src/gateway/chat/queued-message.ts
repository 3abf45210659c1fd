import type { UIMessageChunk } from 'ai';
import type { PendingToolApproval } from '../../protocol';

/**
 * The answer to a message that waits behind approvals: an assistant message (with the queued turn's id, so the real
 * answer replaces it when that turn streams) saying what it waits for, and a finished stream. Without it, a client
 * other than the chat page (which queues such messages itself) would keep its stream open until someone decides.
 *
 * @example
 * for (const chunk of queuedMessageChunks(turnId, state.pending)) write(chunk);
 */
export function queuedMessageChunks(turnId: string, pending: readonly PendingToolApproval[]): UIMessageChunk[] {
  const textId = `${turnId}/queued`;
  return [
    {
      type: 'start',
      messageId: turnId,
      messageMetadata: { tollgate: { queued: true, waitsFor: pending.map((approval) => approval.approvalId) } },
    },
    { type: 'text-start', id: textId },
    { type: 'text-delta', id: textId, delta: queuedMessageText(pending) },
    { type: 'text-end', id: textId },
    { type: 'finish', finishReason: 'other' },
  ];
}

/** What the queued message's answer says, naming the tools it waits for. */
export function queuedMessageText(pending: readonly PendingToolApproval[]): string {
  const tools = [...new Set(pending.map((approval) => approval.toolName))];
  const named =
    tools.length <= 1 ? (tools[0] ?? 'a tool call') : `${tools.slice(0, -1).join(', ')} and ${tools.at(-1)}`;
  const calls = pending.length === 1 ? `the call to ${named} waits` : `${pending.length} calls (${named}) wait`;
  return (
    `Your message is queued: ${calls} for a decision in the turn before it. ` +
    'It is answered once that is approved or denied; resume this chat to see the answer.'
  );
}
