import type { UIMessage, UIMessageChunk } from 'ai';
import { aiSdk } from './ai-sdk';
import { TurnRenderer } from './turn-renderer';
import type { TurnSnapshot } from './turn-snapshot';

/**
 * One turn as the assistant message a client has after streaming all of it: the chunks {@link TurnRenderer} streams,
 * put together by the AI SDK's own reader, so a loaded history and a streamed turn cannot differ. Undefined when the
 * turn has nothing to show yet.
 *
 * @example
 * const message = await turnMessageOf(turnId, await new TurnReader(tollgate, turnId).read());
 */
export async function turnMessageOf(messageId: string, snapshot: TurnSnapshot): Promise<UIMessage | undefined> {
  const renderer = new TurnRenderer(messageId);
  const chunks = [...renderer.render(snapshot), ...renderer.finish(snapshot)];
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let message: UIMessage | undefined;
  for await (const state of aiSdk().readUIMessageStream({ stream, terminateOnError: true })) message = state;
  return message && message.parts.length > 0 ? message : undefined;
}
