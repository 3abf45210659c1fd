import type { UIMessage } from 'ai';
import { userContentPartSchema, type UserContentPart } from '../../protocol';
import { z } from 'zod';
import { GatewayError } from '../http/gateway-error';
import { aiSdk } from './ai-sdk';
import { messageTooLarge } from './chat-message-limits';

/** A chat id as `useChat` makes them (and as Next.js apps commonly do): letters, digits, `_`, `-`, `.`. */
export const chatIdSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9_.-]+$/, 'a chat id is 1–128 letters, digits, "_", "-" or "."');

/**
 * The body `useChat`'s `DefaultChatTransport` posts. Fields the app adds through the transport's `body` option are
 * allowed and ignored.
 */
export const chatRequestBodySchema = z.looseObject({
  /** The chat id: the conversation. */
  id: chatIdSchema,
  /** The chat's UI messages; only the last one is read (the conversation's history is the server's). */
  messages: z.array(z.unknown()).min(1).max(10_000),
  trigger: z.enum(['submit-message', 'regenerate-message']),
  /** The message a decision or a regenerate is about. */
  messageId: z.string().max(200).optional(),
});

/** What a chat request asks for. */
export type ChatRequest =
  | { kind: 'message'; chatId: string; content: string | UserContentPart[] }
  | { kind: 'continue'; chatId: string; message: UIMessage };

/**
 * Reads a `useChat` request: a new user message becomes the conversation's next turn; a last message from the
 * assistant carries decisions or client tool outputs for the turn it shows. Throws a 400 {@link GatewayError} with
 * the field at fault otherwise.
 */
export async function parseChatRequest(body: unknown): Promise<ChatRequest> {
  const envelope = chatRequestBodySchema.safeParse(body);
  if (!envelope.success) {
    const errors = envelope.error.issues.map((issue) => ({
      field: ['body', ...issue.path].join('.'),
      message: issue.message,
    }));
    throw new GatewayError(
      'invalid-request',
      `The chat request is not what useChat sends: ${errors[0]?.field}: ${errors[0]?.message}`,
      { errors },
    );
  }
  const { id, trigger } = envelope.data;
  if (trigger === 'regenerate-message') {
    throw new GatewayError(
      'invalid-request',
      'Regenerating a message is not supported: the conversation is durable and its history is kept as it happened. Send a new message instead.',
    );
  }
  // Only the last message matters, so only it is validated: an old part the SDK no longer reads cannot block a chat.
  const validated = await aiSdk().safeValidateUIMessages({ messages: envelope.data.messages.slice(-1) });
  if (!validated.success) {
    throw new GatewayError(
      'invalid-request',
      `The last message is not a valid UI message: ${validated.error.message}`,
      {
        errors: [{ field: 'body.messages', message: validated.error.message }],
      },
    );
  }
  const message = validated.data[0] as UIMessage;
  if (message.role === 'assistant') return { kind: 'continue', chatId: id, message };
  if (message.role !== 'user') {
    throw new GatewayError(
      'invalid-request',
      `The last message must come from the user or the assistant, not "${message.role}".`,
    );
  }
  const unsupported = message.parts.filter(
    (part) => part.type !== 'text' && part.type !== 'file' && part.type !== 'step-start',
  );
  if (unsupported.length > 0) {
    throw new GatewayError(
      'invalid-request',
      `A user message may hold text and files; this one also has ${[...new Set(unsupported.map((part) => part.type))].join(', ')} parts.`,
    );
  }
  const text = message.parts
    .flatMap((part) => (part.type === 'text' ? [part.text] : []))
    .join('\n')
    .trim();
  const files = message.parts.some((part) => part.type === 'file');
  if (text === '' && !files) throw new GatewayError('invalid-request', 'The message is empty: send some text.');
  if (!files) return { kind: 'message', chatId: id, content: refuseTooLarge(text) };
  // Files go as the AI SDK's own model parts (file, with their media type), checked against Tollgate's schema.
  const [converted] = await aiSdk().convertToModelMessages([message]);
  const parts = userContentPartSchema.array().min(1).max(100).safeParse(converted?.content);
  // Text over the limit is refused with the limit's own words, not as a schema error.
  if (parts.success) refuseTooLarge(parts.data);
  if (!parts.success) {
    throw new GatewayError(
      'invalid-request',
      `The message's files could not be read: ${parts.error.issues[0]?.message}`,
    );
  }
  return { kind: 'message', chatId: id, content: refuseTooLarge(parts.data) };
}

/** Refuses (413) a message no conversation could take, before any workflow sees it. */
function refuseTooLarge<Content extends string | UserContentPart[]>(content: Content): Content {
  const tooLarge = messageTooLarge(content);
  if (tooLarge !== undefined) throw new GatewayError('payload-too-large', tooLarge);
  return content;
}
