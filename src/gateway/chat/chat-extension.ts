import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { approverNamesResolved, type PersonDirectory } from '../../identity';
import type { ConversationInput } from '../../protocol';
import type { ApproverTokens } from '../auth/approver-tokens';
import type { GatewayExtension } from '../gateway-options';
import type { GatewayContext } from '../gateway-context';
import { verifyBearerToken } from '../auth/verify-bearer-token';
import { createChatHandler, type ChatHandlerOptions, type ChatHttpRequest } from './chat-handler';
import { checkCors } from './chat-cors';
import { chatMessageLimits, formatBytes } from './chat-message-limits';
import { GatewayError } from '../http/gateway-error';
import { problemBodyOf, problemContentType } from '../http/problem-handler';
import { toGatewayError } from '../http/to-gateway-error';

/** The chat routes' paths, relative to nothing: `useChat`'s defaults. */
export const chatPaths = {
  chat: '/api/chat',
  resume: '/api/chat/:id/stream',
  messages: '/api/chat/:id/messages',
} as const;

/** How the gateway's chat routes are set up. */
export interface ChatExtensionOptions extends Pick<
  ChatHandlerOptions,
  'allowedOrigins' | 'requestsPerMinute' | 'conversationIdOf' | 'conversation' | 'timing' | 'keepAliveMs'
> {
  /** The gateway's bearer tokens: a chat user is the approver their token stands for. */
  tokens: ApproverTokens;
  /** Largest chat request body (default 4 MiB: `useChat` posts the whole chat by default). */
  bodyLimitBytes?: number;
}

/** The options of {@link chatChannel}. */
export type ChatChannelOptions = ChatExtensionOptions;

/**
 * The `useChat` routes as a gateway extension: `POST /api/chat`, `GET /api/chat/:id/stream`,
 * `GET /api/chat/:id/messages` and their CORS
 * preflights. They check the bearer token themselves (the same {@link verifyBearerToken}), because a browser's
 * preflight carries none and must still be answered.
 */
export function chatChannel(options: ChatExtensionOptions): GatewayExtension {
  return {
    name: 'chat',
    publicPaths: [chatPaths.chat, chatPaths.resume, chatPaths.messages],
    register(app: FastifyInstance, context: GatewayContext) {
      const handler = createChatHandler({
        ...options,
        ...(options.conversation && { conversation: conversationWithPersonIds(options.conversation, context.people) }),
        tollgate: context.tollgate,
        decisions: context.decisions,
        grants: context.grants,
        authenticate: (authorization) => {
          const grant = verifyBearerToken(authorization ?? undefined, options.tokens);
          return grant && { person: grant.identity, scopes: new Set<string>(grant.scopes) };
        },
      });
      const bodyLimit = options.bodyLimitBytes ?? 4 * 1024 * 1024;
      const allowedOrigins = new Set(options.allowedOrigins ?? []);
      app.options(chatPaths.chat, (request, reply) => send(reply, handler.preflight(toChatRequest(request, reply))));
      app.options(chatPaths.resume, (request, reply) => send(reply, handler.preflight(toChatRequest(request, reply))));
      app.options(chatPaths.messages, (request, reply) =>
        send(reply, handler.preflight(toChatRequest(request, reply))),
      );
      app.post(
        chatPaths.chat,
        {
          bodyLimit,
          // A body over this route's own limit: say that limit, not the gateway's (which is smaller).
          errorHandler: (error, request, reply) => {
            const gatewayError = toGatewayError(error, { bodyLimitBytes: bodyLimit });
            const detail =
              gatewayError.kind === 'payload-too-large'
                ? `The chat request is larger than the chat's limit of ${formatBytes(bodyLimit)}; a single message may be at most ${formatBytes(chatMessageLimits.messageBytes)}.`
                : gatewayError.detail;
            const refusal = new GatewayError(gatewayError.kind, detail);
            // With CORS headers, so a page on another origin can read why.
            const cors = checkCors(request.headers.origin ?? null, request.headers.host ?? null, allowedOrigins);
            if (cors.allowed) void reply.headers(cors.headers);
            void reply
              .code(refusal.status)
              .header('content-type', problemContentType)
              .send(JSON.stringify(problemBodyOf(refusal, request.url)));
          },
        },
        async (request, reply) => send(reply, await handler.chat(toChatRequest(request, reply))),
      );
      app.get(chatPaths.resume, async (request, reply) =>
        send(reply, await handler.resume(toChatRequest(request, reply), (request.params as { id: string }).id)),
      );
      app.get(chatPaths.messages, async (request, reply) =>
        send(reply, await handler.messages(toChatRequest(request, reply), (request.params as { id: string }).id)),
      );
    },
  } as GatewayExtension;
}

/**
 * The conversation's settings with the names in its turns' approver and editor lists resolved to person ids, as
 * `POST /v1/turns` resolves a caller's: a chat's turns compare person ids like every other turn.
 */
function conversationWithPersonIds(conversation: ConversationInput, people: PersonDirectory): ConversationInput {
  const rules = conversation.turn?.approvalRules;
  if (!rules) return conversation;
  return { ...conversation, turn: { ...conversation.turn, approvalRules: approverNamesResolved(rules, people) } };
}

function toChatRequest(request: FastifyRequest, reply: FastifyReply): ChatHttpRequest {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const gone = new AbortController();
  // The response closing before it finished means the client went away: stop following the turn.
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) gone.abort();
  });
  return { method: request.method, headers, body: request.body, path: request.url, signal: gone.signal };
}

async function send(reply: FastifyReply, response: Response): Promise<FastifyReply> {
  reply.code(response.status);
  response.headers.forEach((value, name) => void reply.header(name, value));
  if (response.body === null) return reply.send();
  return reply.send(Readable.fromWeb(response.body as NodeReadableStream));
}

/** The older name of {@link chatChannel}. */
export const chatExtension = chatChannel;
