import {
  AbstractChat,
  DefaultChatTransport,
  type ChatInit,
  type ChatState,
  type ChatStatus,
  type UIMessage,
  type UIMessageChunk,
} from 'ai';
import type { TollgateClient } from '../../../src/client';
import type { ConversationInput } from '../../../src/protocol';
import type { ModelServer } from '../../../src/dev/model-server';
import type { OperatorPolicy } from '../../../src/policy';
import type { Tool } from '../../../src/tools';
import { chatChannel } from '../../../src/gateway/chat';
import { createTestEnvironment } from '../../support/test-environment';
import { createTestTools, type ToolRun } from '../../support/test-tools';
import { startGateway, testTokenGrants, testTokens, type RunningGateway } from '../gateway-fixture';

/** The whole stack a chat talks to: Temporal (shared), a worker, the scripted model, the gateway with its chat routes. */
export interface ChatStack {
  taskQueue: string;
  tollgate: TollgateClient;
  model: ModelServer;
  gateway: RunningGateway;
  runs: ToolRun[];
  startWorker(): Promise<void>;
  stopWorker(): Promise<void>;
  close(): Promise<void>;
}

export const allowedOrigin = 'http://chat.example';

export async function startChatStack(
  options: {
    worker?: boolean;
    allowedOrigins?: string[];
    conversation?: ConversationInput;
    policy?: OperatorPolicy;
    /** Tools the worker has beside the test tools (agent tools, say). */
    tools?: Tool[];
  } = {},
): Promise<ChatStack> {
  const { tools, runs } = createTestTools();
  const environment = await createTestEnvironment({
    tools: [...tools, ...(options.tools ?? [])],
    taskQueuePrefix: 'chat',
    ...(options.policy && { policy: options.policy }),
    startWorker: options.worker !== false,
    // Heartbeats reach the server within 200 ms, so the chat sees the model's tokens while it runs.
    workerOptions: { maxHeartbeatThrottleInterval: '200ms', defaultHeartbeatThrottleInterval: '200ms' },
  });
  const gateway = await startGateway(environment.tollgate, {
    extensions: [
      chatChannel({
        tokens: testTokenGrants(),
        allowedOrigins: [allowedOrigin, ...(options.allowedOrigins ?? [])],
        timing: { pollIntervalMs: 100 },
        ...(options.conversation !== undefined && { conversation: options.conversation }),
      }),
    ],
  });
  return {
    taskQueue: environment.taskQueue,
    tollgate: environment.tollgate,
    model: environment.model,
    gateway,
    runs,
    startWorker: () => environment.startWorker(),
    stopWorker: () => environment.stopWorker(),
    async close() {
      await environment.stopWorker();
      await gateway.close();
      await environment.close();
    },
  };
}

class NodeChatState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready';
  error: Error | undefined = undefined;
  constructor(public messages: UIMessage[] = []) {}
  pushMessage = (message: UIMessage) => void this.messages.push(message);
  popMessage = () => void this.messages.pop();
  replaceMessage = (index: number, message: UIMessage) => {
    this.messages[index] = message;
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

/** The `ai` package's own chat client, as `useChat` drives it, with every chunk it received. */
export class NodeChat extends AbstractChat<UIMessage> {
  /** Every chunk of every response, parsed by the SDK's transport. */
  readonly chunks: UIMessageChunk[] = [];
  /** Every raw SSE `data:` payload, to check against uiMessageChunkSchema. */
  readonly rawEvents: string[] = [];

  constructor(
    gateway: RunningGateway,
    init: Omit<ChatInit<UIMessage>, 'transport' | 'state'> & { as?: keyof typeof testTokens; messages?: UIMessage[] },
  ) {
    const state = new NodeChatState(init.messages ?? []);
    const rawEvents: string[] = [];
    const transport = new DefaultChatTransport<UIMessage>({
      api: `${gateway.url}/api/chat`,
      headers: { authorization: `Bearer ${testTokens[init.as ?? 'ana']}` },
      fetch: async (input, requestInit) => {
        const response = await fetch(input, requestInit);
        if (!response.body || !response.ok) return response;
        const [mine, theirs] = response.body.tee();
        void collectEvents(mine, rawEvents);
        return new Response(theirs, { status: response.status, headers: response.headers });
      },
    });
    super({ ...init, state, transport });
    this.rawEvents = rawEvents;
  }

  latestMessage(): UIMessage | undefined {
    return this.messages.at(-1);
  }

  /** The tool parts of the last assistant message. */
  toolParts(): Array<UIMessage['parts'][number] & { toolCallId: string; state: string }> {
    const last = this.messages.findLast((message) => message.role === 'assistant');
    return (last?.parts ?? []).filter((part) => 'toolCallId' in part) as never;
  }

  text(): string {
    const last = this.messages.findLast((message) => message.role === 'assistant');
    return (last?.parts ?? []).flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
  }
}

async function collectEvents(stream: ReadableStream<Uint8Array>, into: string[]): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for await (const piece of stream as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(piece, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        for (const line of event.split('\n')) if (line.startsWith('data: ')) into.push(line.slice(6));
      }
    }
  } catch {
    // The client went away mid-stream: what arrived is kept.
  }
}

/** Waits until `check` holds, polling. */
export async function eventually<T>(
  read: () => T | Promise<T>,
  check: (value: T) => boolean,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T;
  do {
    last = await read();
    if (check(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 50));
  } while (Date.now() < deadline);
  throw new Error(`Timed out; last value: ${JSON.stringify(last)}`);
}
