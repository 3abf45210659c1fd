import type { UIMessage, UIMessageChunk } from 'ai';
import type { TollgateClient } from '../../client';
import type { Allow, ConversationInput, PendingToolApproval } from '../../protocol';
import { submitToolOutputUpdate } from '../../workflows/definitions';
import { isKeptInAudit, type ApprovalDecisions, type DecisionRequest } from '../decisions/approval-decisions';
import type { StandingGrants } from '../decisions/standing-grants';
import { GatewayError, isGatewayError } from '../http/gateway-error';
import { problemBodyOf, problemContentType } from '../http/problem-handler';
import { toGatewayError } from '../http/to-gateway-error';
import { checkCors, preflightHeaders } from './chat-cors';
import { aiSdk } from './ai-sdk';
import { ChatRateLimit } from './chat-rate-limit';
import { readChatHistory } from './chat-history';
import { chatIdSchema, parseChatRequest } from './chat-request';
import { followTurn, type FollowTiming } from './follow-turn';
import { queuedMessageChunks } from './queued-message';
import { TurnReader } from './read-turn';
import { subAgentDecisionsOf } from './sub-agent-decisions';
import { TurnRenderer } from './turn-renderer';

/** What the chat routes need. */
export interface ChatHandlerOptions {
  tollgate: TollgateClient;
  /** The gateway's decision path: approver rights, quorum, the decision audit. */
  decisions: ApprovalDecisions;
  /**
   * Standing grants, for "Allow in this chat" (an approval whose part carries `callProviderMetadata.tollgate.allowInChat`):
   * approve, and grant calls of the tool in this conversation, through the same rules as every grant. Without it,
   * such a decision is refused.
   */
  grants?: StandingGrants;
  /** The bounds of "Allow in this chat" (default `{ for: '24h' }`); its scope is always the conversation. */
  allowInChat?: Pick<Allow, 'for' | 'uses'>;
  /**
   * Who the request's `Authorization` header stands for, or undefined to refuse it (401). With `scopes`, a new
   * message needs `turns:start`, a decision `approvals:decide` and a resume `turns:read`.
   */
  authenticate(authorization: string | null): ChatCaller | undefined | Promise<ChatCaller | undefined>;
  /** Origins whose pages may call the chat routes (CORS); the gateway's own origin always may. */
  allowedOrigins?: readonly string[];
  /** Chat requests per user per minute (default 120). */
  requestsPerMinute?: number;
  /** The conversation a user's chat id is: by default `chat:<user>:<chatId>`, so one user cannot read another's chat. */
  conversationIdOf?: (chatId: string, user: string) => string;
  /** Settings of conversations the chat starts (tools, approval timeout, approval rules, model). */
  conversation?: ConversationInput;
  timing?: FollowTiming;
  /** SSE keep-alive comments while nothing else is sent (default 15 s), so proxies keep the stream open. */
  keepAliveMs?: number;
}

/** The person a chat request speaks for. */
export interface ChatCaller {
  /** The person id: the requester of the turns, the approver of the decisions. */
  person: string;
  /** What the token may do; everything when absent. */
  scopes?: ReadonlySet<string>;
}

/** An HTTP request as the chat routes read it, whatever server it came through. */
export interface ChatHttpRequest {
  method: string;
  headers: Headers;
  /** The parsed JSON body (POST). */
  body?: unknown;
  /** The path, for error bodies. */
  path: string;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
}

/**
 * The `useChat` endpoints on Tollgate, as Fetch-API handlers: mount them in the gateway (they are), in a Next.js
 * route handler, or in any server that speaks `Request`/`Response`.
 *
 * @example
 * // app/api/chat/route.ts (Next.js)
 * const chat = createChatHandler({ tollgate, decisions, authenticate: (header) => userOf(header) });
 * export const POST = (request: Request) => chat.fetch(request);
 * export const GET = (request: Request) => chat.fetch(request); // the history and the resume
 */
export interface ChatHandler {
  /** `POST /api/chat`: a new message, or decisions and client tool outputs for the turn shown. */
  chat(request: ChatHttpRequest): Promise<Response>;
  /** `GET /api/chat/:id/stream`: the assistant message of the turn in progress, from its start; 204 when none. */
  resume(request: ChatHttpRequest, chatId: string): Promise<Response>;
  /** `GET /api/chat/:id/messages`: the chat's whole history as `UIMessage[]`, for `useChat({ messages })`; 404 for an unknown chat. */
  messages(request: ChatHttpRequest, chatId: string): Promise<Response>;
  /** `OPTIONS`: the CORS preflight. */
  preflight(request: ChatHttpRequest): Response;
  /** Routes a Fetch `Request` under `basePath` (default `/api/chat`) to the four above. */
  fetch(request: Request, basePath?: string): Promise<Response>;
}

/** How long a message sent behind an approval waits for a decision already on its way before it is told it waits. */
const queuedGraceMs = 2_000;

export function createChatHandler(options: ChatHandlerOptions): ChatHandler {
  const allowedOrigins = new Set(options.allowedOrigins ?? []);
  const rateLimit = new ChatRateLimit(options.requestsPerMinute ?? 120);
  const conversationIdOf = options.conversationIdOf ?? ((chatId, user) => `chat:${user}:${chatId}`);
  const keepAliveMs = options.keepAliveMs ?? 15_000;
  const { tollgate } = options;

  /** Runs a route: CORS, authentication and the rate limit first; every refusal a problem+json with CORS headers. */
  async function guarded(
    request: ChatHttpRequest,
    route: (caller: ChatCaller, corsHeaders: Record<string, string>) => Promise<Response>,
  ): Promise<Response> {
    let caller: ChatCaller | undefined;
    // A request that answers approvals is a decision attempt: refused here, it is audited like any other.
    const refused = async (refusal: GatewayError) => {
      if (refusal.status < 500) await auditRefusedDecisions(request.body, caller, refusal);
    };
    const cors = checkCors(request.headers.get('origin'), request.headers.get('host'), allowedOrigins);
    if (!cors.allowed) {
      const refusal = new GatewayError('forbidden', 'This origin may not call the chat API.');
      await refused(refusal);
      return problem(refusal, request.path, {});
    }
    try {
      caller = await options.authenticate(request.headers.get('authorization'));
      if (caller === undefined) {
        throw new GatewayError('unauthorized', 'A valid bearer token is required.');
      }
      const wait = rateLimit.take(caller.person);
      if (wait !== undefined) {
        const refusal = new GatewayError('rate-limited', `Too many chat requests; retry in ${wait} s.`);
        await refused(refusal);
        return problem(refusal, request.path, { ...cors.headers, 'retry-after': String(wait) });
      }
      return await route(caller, cors.headers);
    } catch (error) {
      const gatewayError = toGatewayError(error);
      if (!isKeptInAudit(error)) await refused(gatewayError);
      const extra: Record<string, string> =
        gatewayError.kind === 'unauthorized' ? { 'www-authenticate': 'Bearer' } : {};
      if (gatewayError.status >= 500 && !isGatewayError(error)) console.error('chat request failed', error);
      return problem(gatewayError, request.path, { ...cors.headers, ...extra });
    }
  }

  function streamResponse(
    corsHeaders: Record<string, string>,
    execute: (write: (chunk: UIMessageChunk) => void) => Promise<void>,
  ): Response {
    const { createUIMessageStream, createUIMessageStreamResponse } = aiSdk();
    const stream = createUIMessageStream({
      execute: async ({ writer }) => execute((chunk) => writer.write(chunk)),
      // The stream's own error chunk: say what went wrong, never a stack.
      onError: (error) => (error instanceof Error ? error.message : String(error)),
    });
    return createUIMessageStreamResponse({ stream, headers: corsHeaders, keepAliveMs });
  }

  const handler: ChatHandler = {
    chat(request) {
      return guarded(request, async (caller, corsHeaders) => {
        const user = caller.person;
        const parsed = await parseChatRequest(request.body);
        const conversationId = conversationIdOf(parsed.chatId, user);
        if (parsed.kind === 'message') {
          requireScope(caller, 'turns:start');
          const { turnId, queued } = await tollgate.sendMessage(
            conversationId,
            { content: parsed.content, requester: user },
            options.conversation ?? {},
          );
          // Behind approvals (and not superseding them), the message waits for a person: say so, and end the stream.
          const waitsFor =
            queued && options.conversation?.onMessageWhilePending !== 'supersede'
              ? await approvalsWaitedFor(conversationId)
              : [];
          if (waitsFor.length > 0) {
            return streamResponse(corsHeaders, async (write) => {
              for (const chunk of queuedMessageChunks(turnId, waitsFor)) write(chunk);
            });
          }
          return streamResponse(corsHeaders, (write) =>
            followTurn({
              reader: new TurnReader(tollgate, turnId),
              renderer: new TurnRenderer(turnId, user),
              write,
              signal: request.signal,
              timing: options.timing,
            }),
          );
        }
        const turnId = parsed.message.id;
        if (!turnId.startsWith(`${conversationId}/turn-`)) {
          throw new GatewayError(
            'invalid-request',
            `The last assistant message ("${turnId}") is not a turn of this chat; decisions and tool outputs go to the turn that asked for them.`,
          );
        }
        const reader = new TurnReader(tollgate, turnId);
        const before = await reader.read();
        if (before.status === 'not-started') throw new GatewayError('unknown-turn', `No turn "${turnId}".`);
        const nested = subAgentDecisionsOf(parsed.message);
        const { isToolUIPart } = aiSdk();
        if (
          nested.length > 0 ||
          parsed.message.parts.some((part) => isToolUIPart(part) && part.state === 'approval-responded')
        ) {
          requireScope(caller, 'approvals:decide');
        }
        return streamResponse(corsHeaders, async (write) => {
          const renderer = TurnRenderer.continuing(parsed.message, user);
          const nestedError = await decideSubAgentCalls(user, turnId, nested, before, renderer);
          const ownError = await applyClientParts(user, turnId, parsed.message, before);
          const trailingError = [ownError, nestedError].filter((text) => text !== undefined).join(' ') || undefined;
          await followTurn({
            reader,
            renderer,
            write,
            signal: request.signal,
            timing: options.timing,
            ...(trailingError !== undefined && { trailingError }),
          });
        });
      });
    },

    resume(request, chatId) {
      return guarded(request, async (caller, corsHeaders) => {
        requireScope(caller, 'turns:read');
        const conversationId = conversationIdOf(parseChatId(chatId), caller.person);
        let turnId: string | undefined;
        try {
          const state = await tollgate.conversationState(conversationId);
          turnId = state.currentTurnId ?? state.queued[0]?.turnId;
        } catch (error) {
          if (toGatewayError(error).kind !== 'unknown-turn') throw error;
        }
        if (turnId === undefined) return new Response(null, { status: 204, headers: corsHeaders });
        const current = turnId;
        return streamResponse(corsHeaders, (write) =>
          followTurn({
            reader: new TurnReader(tollgate, current),
            renderer: new TurnRenderer(current, caller.person),
            write,
            signal: request.signal,
            timing: options.timing,
          }),
        );
      });
    },

    messages(request, chatId) {
      return guarded(request, async (caller, corsHeaders) => {
        requireScope(caller, 'turns:read');
        const id = parseChatId(chatId);
        let messages: UIMessage[];
        try {
          messages = await readChatHistory(tollgate, conversationIdOf(id, caller.person));
        } catch (error) {
          // Someone else's chat is unknown too: the conversation id is the caller's own.
          if (toGatewayError(error).kind === 'unknown-turn') throw new GatewayError('not-found', `No chat "${id}".`);
          throw error;
        }
        return Response.json(messages, { headers: { ...corsHeaders, 'cache-control': 'no-store' } });
      });
    },

    preflight(request) {
      const cors = checkCors(request.headers.get('origin'), request.headers.get('host'), allowedOrigins);
      if (!cors.allowed) return new Response(null, { status: 403 });
      return new Response(null, {
        status: 204,
        headers: { ...cors.headers, ...preflightHeaders(request.headers.get('access-control-request-headers')) },
      });
    },

    async fetch(request, basePath = '/api/chat') {
      const url = new URL(request.url);
      const chatRequest: ChatHttpRequest = {
        method: request.method,
        headers: request.headers,
        path: url.pathname + url.search,
        signal: request.signal,
      };
      if (request.method === 'OPTIONS') return handler.preflight(chatRequest);
      const chatPath = new RegExp(
        `^${basePath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/([^/]+)/(stream|messages)$`,
      ).exec(url.pathname);
      if (request.method === 'GET' && chatPath) {
        const chatId = decodeURIComponent(chatPath[1] as string);
        return chatPath[2] === 'stream' ? handler.resume(chatRequest, chatId) : handler.messages(chatRequest, chatId);
      }
      if (request.method === 'POST' && url.pathname === basePath) {
        let body: unknown;
        try {
          body = await request.json();
        } catch {
          return problem(new GatewayError('malformed-json', 'The body is not valid JSON.'), chatRequest.path, {});
        }
        return handler.chat({ ...chatRequest, body });
      }
      return problem(
        new GatewayError('not-found', `No route ${request.method} ${url.pathname}.`),
        chatRequest.path,
        {},
      );
    },
  };

  /**
   * What the conversation's running turn waits for, asked of the turn itself: the conversation's own copy lags a
   * decision by a moment, and a message sent right after one must not be told it waits.
   */
  async function approvalsWaitedFor(conversationId: string): Promise<PendingToolApproval[]> {
    const { currentTurnId } = await tollgate.conversationState(conversationId);
    if (currentTurnId === undefined) return [];
    // A decision may be on its way in another request (a page sends its queue as soon as it has decided): only
    // approvals still waiting after a short grace count. A turn that ended meanwhile waits for nothing.
    const deadline = Date.now() + queuedGraceMs;
    for (;;) {
      const pending = await tollgate.pending({ workflowId: currentTurnId }).catch(() => []);
      if (pending.length === 0 || Date.now() >= deadline) return pending;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /**
   * Keeps a refused chat request that answered approvals: one line per approval it answered when the caller is known
   * (bounded), otherwise one line with what is known (nothing of an unauthenticated body is believed).
   */
  async function auditRefusedDecisions(
    body: unknown,
    caller: ChatCaller | undefined,
    refusal: GatewayError,
  ): Promise<void> {
    const answered = answeredApprovals(body);
    if (answered.length === 0) return;
    if (caller === undefined) {
      await options.decisions.recordRefusal({}, 'chat', {}, refusal);
      return;
    }
    const actor = { person: caller.person, identity: `token:${caller.person}` };
    await Promise.all(
      answered.map((answer) => options.decisions.recordRefusal(actor, 'chat', answer, refusal, answer.workflowId)),
    );
  }

  /**
   * Sends the decisions the page made on sub-agents' calls shown inside their agent tools' calls (each by its
   * approvalId, so it reaches the sub-agent that waits, which judges it as any decision). Only calls this turn lists as
   * its sub-agents' are decided; anything else is refused and audited. A refused decision's call is shown waiting
   * again. Returns what to say after the turn's state when something was refused.
   */
  async function decideSubAgentCalls(
    user: string,
    turnId: string,
    decisions: readonly DecisionRequest[],
    before: Awaited<ReturnType<TurnReader['read']>>,
    renderer: TurnRenderer,
  ): Promise<string | undefined> {
    const actor = { person: user, identity: `token:${user}` };
    const problems: string[] = [];
    for (const decision of decisions) {
      const waiting = before.pending.find((approval) => approval.approvalId === decision.approvalId);
      try {
        if (waiting?.path === undefined || waiting.path.length === 0) {
          const refusal = new GatewayError(
            'unknown-approval',
            `Approval "${decision.approvalId}" is not one a sub-agent of turn "${turnId}" waits for; nothing was decided.`,
            { approvalId: decision.approvalId },
          );
          await options.decisions.recordRefusal(actor, 'chat', decision, refusal, turnId);
          throw refusal;
        }
        await options.decisions.decideOne(actor, decision, 'chat');
        renderer.subAgentApprovalDecided(decision.approvalId);
      } catch (error) {
        renderer.showSubAgentApprovalAgain(decision.approvalId);
        problems.push(toGatewayError(error).detail);
      }
    }
    return problems.length > 0 ? problems.join(' ') : undefined;
  }

  /**
   * Sends what the client's copy of the turn adds: decisions on approvals it was asked for, outputs of client tools
   * it was asked to run. Returns an error to show after the turn's state when the turn refused something.
   */
  async function applyClientParts(
    user: string,
    turnId: string,
    message: UIMessage,
    before: Awaited<ReturnType<TurnReader['read']>>,
  ): Promise<string | undefined> {
    const pendingIds = new Set(before.pending.map((approval) => approval.approvalId));
    // Answers the turn cannot take (not its approval, expired, decided otherwise) are refused here and audited.
    const refuse = (request: { approvalId: string; approved: boolean }, refusal: GatewayError) =>
      options.decisions.recordRefusal({ person: user, identity: `token:${user}` }, 'chat', request, refusal, turnId);
    const recorded = new Map(before.audit.map((entry) => [entry.approvalId, entry]));
    const decisions: DecisionRequest[] = [];
    const allowing: DecisionRequest[] = [];
    const problems: string[] = [];
    const awaited = new Set(before.awaitingOutput.map((call) => call.toolCallId));
    const outputs: Array<{ toolCallId: string; output: unknown } | { toolCallId: string; error: string }> = [];
    const { isToolUIPart } = aiSdk();
    for (const part of message.parts) {
      if (!isToolUIPart(part)) continue;
      if (part.state === 'approval-responded') {
        const { id: approvalId, approved, reason } = part.approval;
        const earlier = recorded.get(approvalId);
        // An editor's arguments ride in the part's metadata (useChat's approval response has no field for them);
        // the decision path checks the right to edit and the tool's schema like any other channel's.
        const marks = part.callProviderMetadata?.tollgate as
          { editedInput?: unknown; allowInChat?: unknown } | undefined;
        const editedInput = marks?.editedInput;
        if (pendingIds.has(approvalId)) {
          // "Allow in this chat": approve, and grant calls like it in this conversation (the grant rules decide).
          (approved && marks?.allowInChat === true ? allowing : decisions).push({
            approvalId,
            approved,
            ...(reason !== undefined && reason !== '' && { reason }),
            ...(approved && editedInput !== undefined && { input: editedInput as DecisionRequest['input'] }),
          });
        } else if (!earlier) {
          // Never trust a client's tool parts: an id this turn did not issue decides nothing.
          const refusal = `Approval "${approvalId}" is not one turn "${turnId}" asked for; nothing was decided.`;
          await refuse({ approvalId, approved }, new GatewayError('unknown-approval', refusal, { approvalId }));
          return refusal;
        } else if (earlier.decision === 'expired') {
          const refusal = `The approval for ${earlier.toolName} expired at ${earlier.decidedAt}; the call was denied.`;
          await refuse({ approvalId, approved }, new GatewayError('expired', refusal, { approvalId }));
          problems.push(refusal);
        } else if ((earlier.decision === 'approved') !== approved) {
          const refusal =
            `The approval for ${earlier.toolName} was already ${earlier.decision} by ${earlier.approver ?? 'someone else'} ` +
            `at ${earlier.decidedAt}; the first decision stands.`;
          await refuse({ approvalId, approved }, new GatewayError('conflict', refusal, { approvalId }));
          problems.push(refusal);
        }
      } else if ((part.state === 'output-available' || part.state === 'output-error') && awaited.has(part.toolCallId)) {
        outputs.push(
          part.state === 'output-available'
            ? { toolCallId: part.toolCallId, output: part.output ?? null }
            : { toolCallId: part.toolCallId, error: part.errorText || 'The client tool failed.' },
        );
      }
    }
    if (decisions.length > 0) {
      try {
        await options.decisions.decideBatch({ person: user, identity: `token:${user}` }, turnId, decisions);
      } catch (error) {
        problems.push(toGatewayError(error).detail);
      }
    }
    for (const decision of allowing) {
      try {
        if (!options.grants) {
          const refusal = new GatewayError(
            'forbidden',
            'Allow in this chat is not available here; approve the call on its own.',
          );
          await options.decisions.recordRefusal({ person: user, identity: `token:${user}` }, 'chat', decision, refusal);
          throw refusal;
        }
        const allow: Allow = { ...(options.allowInChat ?? { for: '24h' }), scope: 'conversation' };
        await options.grants.approveAndAllow({ person: user, identity: `token:${user}` }, decision, allow, 'chat');
      } catch (error) {
        problems.push(`Not allowed in this chat: ${toGatewayError(error).detail} The call still waits for a decision.`);
      }
    }
    for (const output of outputs) {
      try {
        await tollgate.turn(turnId).executeUpdate(submitToolOutputUpdate, { args: [output as never] });
      } catch (error) {
        const cause = (error as { cause?: Error }).cause;
        problems.push(
          `The output of tool call "${output.toolCallId}" was not accepted: ${cause?.message ?? (error as Error).message}`,
        );
      }
    }
    return problems.length > 0 ? problems.join(' ') : undefined;
  }

  return handler;
}

/**
 * The approvals a chat request's last message answers, read defensively from a body that may be anything: at most
 * 20, each an id of the approvalId alphabet with a boolean decision, and the turn the message is.
 */
function answeredApprovals(body: unknown): Array<{ approvalId: string; approved: boolean; workflowId?: string }> {
  const messages = (body as { messages?: unknown } | null | undefined)?.messages;
  if (!Array.isArray(messages) || messages.length === 0) return [];
  const last = messages[messages.length - 1] as { id?: unknown; parts?: unknown } | null;
  if (last === null || typeof last !== 'object' || !Array.isArray(last.parts)) return [];
  const workflowId = typeof last.id === 'string' && last.id.length <= 1_000 ? last.id : undefined;
  const answered: Array<{ approvalId: string; approved: boolean; workflowId?: string }> = [];
  for (const part of last.parts.slice(0, 1_000) as unknown[]) {
    const { state, approval } = (part ?? {}) as { state?: unknown; approval?: { id?: unknown; approved?: unknown } };
    if (state !== 'approval-responded' || approval === null || typeof approval !== 'object') continue;
    const { id, approved } = approval;
    if (typeof id !== 'string' || !/^[A-Za-z0-9._:-]{1,1000}$/.test(id)) continue;
    answered.push({
      approvalId: id,
      approved: approved === true,
      ...(workflowId !== undefined && { workflowId }),
    });
    if (answered.length >= 20) break;
  }
  return answered;
}

function parseChatId(chatId: string): string {
  const id = chatIdSchema.safeParse(chatId);
  if (!id.success) throw new GatewayError('invalid-request', `Invalid chat id: ${id.error.issues[0]?.message}`);
  return id.data;
}

function requireScope(caller: ChatCaller, scope: string): void {
  if (caller.scopes && !caller.scopes.has(scope)) {
    throw new GatewayError('forbidden', `This token lacks the scope ${scope}.`);
  }
}

function problem(error: GatewayError, instance: string, headers: Record<string, string>): Response {
  return new Response(JSON.stringify(problemBodyOf(error, instance)), {
    status: error.status,
    headers: { ...headers, 'content-type': problemContentType },
  });
}
