import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  parseChatCompletionRequest,
  scriptedModelName,
  toolNamesOf,
  type ChatCompletionRequest,
} from './chat-completion-request';
import { buildChatCompletion, type CompletionContext } from './chat-completion-response';
import { buildChatCompletionChunks, serverSentEvents } from './chat-completion-stream';
import { readRequestBody, sendJson, sendOpenAIError } from './http-json';
import { firstUserText, messageText, truncate } from './message-text';
import type { RecordedRequest } from './recorded-request';
import { ReplyQueues } from './reply-queues';
import { answerByRules } from './rules';
import { chatMessagesOfResponsesInput } from './responses-chat-view';
import { chatToolsOf, parseResponsesRequest } from './responses-request';
import { buildResponse, type ResponseContext } from './responses-response';
import { buildResponseEvents, responseServerSentEvents } from './responses-stream';
import {
  hasMcpItems,
  isModelErrorReply,
  resolveModelReply,
  type ModelErrorReply,
  type ModelReply,
  type ResolvedReply,
  type ScriptedAnswer,
  type ScriptedReply,
} from './scripted-reply';

/** How to start the scripted model server. */
export interface ModelServerOptions {
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** Interface to listen on; defaults to 127.0.0.1. */
  host?: string;
  /** Answer unscripted requests with the demo rules instead of failing. Scripted replies still come first. */
  rules?: boolean;
  /**
   * When streaming, wait this long between chunks, so a client sees tokens arrive as from a real model. Default 0,
   * and {@link rulesStreamDelayMs} in rules mode (the development model), so a chat shows its answers grow.
   */
  streamDelayMs?: number;
}

/**
 * The development model's pause between streamed chunks: longer than nothing, so an answer reaches a chat in several
 * pieces (a worker reports a streaming model call every 250 ms), short enough that a demo does not drag.
 */
export const rulesStreamDelayMs = 60;

/** A running scripted model server, reached with the `openai` client at `baseURL`. */
export interface ModelServer {
  /** The URL to pass as the `openai` client's `baseURL`, e.g. `http://127.0.0.1:40123/v1`. */
  readonly baseURL: string;
  /** The port the server listens on. */
  readonly port: number;
  /** Every chat completion and Responses API request received, in order. */
  readonly requests: RecordedRequest[];
  /** Loud failures, such as a request arriving after the script ran out. */
  readonly failures: string[];
  /** Appends replies to the global queue, answered in order. */
  script(...replies: ScriptedReply[]): void;
  /** Appends replies answered only to requests whose first user message contains `marker`. */
  scriptFor(marker: string, ...replies: ScriptedReply[]): void;
  /** Replies left for `marker`, or in every queue when no marker is given. */
  remaining(marker?: string): number;
  /** The most recent request, if any. */
  lastRequest(): RecordedRequest | undefined;
  /** The requests whose first user message contains `marker`, in order. */
  requestsFor(marker: string): RecordedRequest[];
  /** Clears queues, recorded requests and failures. Tool call ids keep counting, so they stay unique. */
  reset(): void;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

/**
 * Starts an OpenAI-compatible server whose answers are scripted by the test, or, in rules mode, made up by
 * deterministic rules for the demo. It serves Chat Completions (streamed or not) and, non-streamed, the Responses
 * API (streamed or not), which alone can carry MCP approval requests and MCP calls. Requests are recorded so tests can assert what the
 * model was told; a request with no reply left is answered with HTTP 400 and recorded in `failures`.
 *
 * @example
 * const server = await startModelServer();
 * server.script({ toolCalls: [{ name: 'writeFile', arguments: { path: 'a.txt', content: 'hi' } }] }, { text: 'Done.' });
 * const client = new OpenAI({ apiKey: 'test', baseURL: server.baseURL, maxRetries: 0 });
 * // … run the agent, then:
 * expect(server.requests[1]?.messages.at(-1)?.role).toBe('tool');
 * await server.close();
 */
export async function startModelServer(options: ModelServerOptions = {}): Promise<ModelServer> {
  const rules = options.rules ?? false;
  const modelServer = new ScriptedModelServer(rules, options.streamDelayMs ?? (rules ? rulesStreamDelayMs : 0));
  await modelServer.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  return modelServer;
}

const modelObject = { id: scriptedModelName, object: 'model', created: 0, owned_by: 'tollgate' };

class ScriptedModelServer implements ModelServer {
  readonly requests: RecordedRequest[] = [];
  readonly failures: string[] = [];
  baseURL = '';
  port = 0;
  private readonly queues = new ReplyQueues();
  private readonly server = createServer((request, response) => this.handle(request, response));
  private idCount = 0;
  private completionCount = 0;

  constructor(
    private readonly rules: boolean,
    private readonly streamDelayMs: number,
  ) {}

  async listen(port: number, host: string): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.port = (this.server.address() as AddressInfo).port;
    this.baseURL = `http://${urlHost(host)}:${this.port}/v1`;
  }

  script(...replies: ScriptedReply[]): void {
    this.queues.push(replies);
  }

  scriptFor(marker: string, ...replies: ScriptedReply[]): void {
    this.queues.pushFor(marker, replies);
  }

  remaining(marker?: string): number {
    return this.queues.remaining(marker);
  }

  lastRequest(): RecordedRequest | undefined {
    return this.requests.at(-1);
  }

  requestsFor(marker: string): RecordedRequest[] {
    return this.requests.filter((request) => firstUserText(request.messages).includes(marker));
  }

  reset(): void {
    this.queues.clear();
    // Emptied in place so arrays a test already holds stay live.
    this.requests.length = 0;
    this.failures.length = 0;
  }

  close(): Promise<void> {
    if (!this.server.listening) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.server.close((error) => (error ? reject(error) : resolve()));
      // The openai client keeps connections alive; without this close waits for them to time out.
      this.server.closeAllConnections();
    });
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    this.route(request, response).catch((error: unknown) => {
      const text = `scripted model server: internal error: ${error instanceof Error ? error.message : String(error)}`;
      this.recordFailure(text);
      if (!response.headersSent) sendOpenAIError(response, 500, text);
      else response.end();
    });
  }

  private async route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname.replace(/\/+$/, '');
    const route = `${request.method ?? 'GET'} ${path}`;
    if (route === 'POST /v1/chat/completions') return this.chatCompletion(request, response);
    if (route === 'POST /v1/responses') return this.createResponse(request, response);
    if (route === 'GET /v1/models') return sendJson(response, 200, { object: 'list', data: [modelObject] });
    if (route === `GET /v1/models/${scriptedModelName}`) return sendJson(response, 200, modelObject);
    sendOpenAIError(response, 404, `Unknown route: ${route}`, { code: 'unknown_url' });
  }

  private async chatCompletion(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readJsonBody(request, response);
    if (body === undefined) return;
    const parsed = parseChatCompletionRequest(body);
    if ('invalid' in parsed) return sendOpenAIError(response, 400, parsed.invalid);

    const { recorded, reply } = this.record({
      body: parsed.body,
      messages: parsed.messages,
      tools: parsed.tools,
      stream: parsed.stream,
    });
    const answer = await this.answer(recorded, reply);
    if (this.sendUnlessReply(response, recorded, answer)) return;
    if (hasMcpItems(answer)) {
      const text = `scripted model server: the reply for request #${recorded.number} has MCP items, which only /v1/responses can carry`;
      return this.sendFailure(response, text);
    }
    await this.sendReply(response, parsed, answer);
  }

  private async createResponse(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readJsonBody(request, response);
    if (body === undefined) return;
    const parsed = parseResponsesRequest(body);
    if ('invalid' in parsed) return sendOpenAIError(response, 400, parsed.invalid);
    const { recorded, reply } = this.record({
      body: parsed.body,
      messages: chatMessagesOfResponsesInput(parsed.input, parsed.instructions),
      tools: chatToolsOf(parsed.tools),
      stream: parsed.stream,
      responses: {
        input: parsed.input,
        tools: parsed.tools,
        ...(parsed.instructions !== undefined && { instructions: parsed.instructions }),
      },
    });
    const answer = await this.answer(recorded, reply);
    if (this.sendUnlessReply(response, recorded, answer)) return;
    const resolved = resolveModelReply(answer, (prefix) => `${prefix}_${++this.idCount}`);
    const context: ResponseContext = {
      id: `resp_scripted_${++this.completionCount}`,
      createdAt: Math.floor(Date.now() / 1000),
      model: parsed.model,
      tools: parsed.tools,
      messages: recorded.messages,
      ...(parsed.instructions !== undefined && { instructions: parsed.instructions }),
    };
    if (!parsed.stream) return sendJson(response, 200, buildResponse(resolved, context));
    await this.sendEvents(response, responseServerSentEvents(buildResponseEvents(resolved, context)), resolved);
  }

  /** Records a request and takes its reply. No await: concurrent requests get replies in arrival order. */
  private record(fields: Omit<RecordedRequest, 'number' | 'toolNames' | 'receivedAt' | 'marker'>): {
    recorded: RecordedRequest;
    reply: ScriptedReply | undefined;
  } {
    const taken = this.queues.take(firstUserText(fields.messages));
    const recorded: RecordedRequest = {
      number: this.requests.length + 1,
      ...fields,
      toolNames: toolNamesOf(fields.tools),
      receivedAt: new Date(),
      ...(taken.marker === undefined ? {} : { marker: taken.marker }),
    };
    this.requests.push(recorded);
    return { recorded, reply: taken.reply };
  }

  /** Sends a loud failure or a scripted HTTP error and returns true; returns false for a reply to send. */
  private sendUnlessReply(
    response: ServerResponse,
    recorded: RecordedRequest,
    answer: ScriptedAnswer | string,
  ): answer is string | ModelErrorReply {
    if (typeof answer === 'string') {
      this.sendFailure(response, answer);
      return true;
    }
    if (isModelErrorReply(answer)) {
      const { status, message, type, code } = answer.error;
      sendOpenAIError(response, status, message, { type, code });
      return true;
    }
    return false;
  }

  /** Records a loud failure and answers it. */
  private sendFailure(response: ServerResponse, text: string): void {
    this.recordFailure(text);
    // 400 and x-should-retry so clients fail at once instead of retrying into the same empty script.
    sendOpenAIError(response, 400, text, {
      code: 'scripted_model_server_failure',
      headers: { 'x-should-retry': 'false' },
    });
  }

  /** The answer for a request, or the text of a loud failure. */
  private async answer(recorded: RecordedRequest, reply: ScriptedReply | undefined): Promise<ScriptedAnswer | string> {
    if (typeof reply === 'function') {
      try {
        return await reply(recorded);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        return `scripted model server: the scripted reply for request #${recorded.number} threw: ${reason}`;
      }
    }
    if (reply !== undefined) return reply;
    if (this.rules) return answerByRules(recorded.messages, recorded.tools);
    const markerNote = recorded.marker === undefined ? '' : ` (marker "${recorded.marker}")`;
    return `scripted model server: no scripted reply left for request #${recorded.number}${markerNote}; ${describeLastMessage(recorded)}`;
  }

  private async sendReply(response: ServerResponse, request: ChatCompletionRequest, reply: ModelReply): Promise<void> {
    const resolved = resolveModelReply(reply, (prefix) => `${prefix}_${++this.idCount}`);
    const context: CompletionContext = {
      id: `chatcmpl-scripted-${++this.completionCount}`,
      created: Math.floor(Date.now() / 1000),
      model: request.model,
      messages: request.messages,
    };
    if (!request.stream) return sendJson(response, 200, buildChatCompletion(resolved, context));
    const events = serverSentEvents(buildChatCompletionChunks(resolved, context, request.includeUsage));
    await this.sendEvents(response, events, resolved);
  }

  /** Writes server-sent events, pausing between them as the reply or the server says; stops if the client goes. */
  private async sendEvents(response: ServerResponse, events: string[], reply: ResolvedReply): Promise<void> {
    const delayMs = reply.streamDelayMs ?? this.streamDelayMs;
    response.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    for (const [index, event] of events.entries()) {
      if (response.destroyed) return;
      if (delayMs > 0 && index > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      // A slow reader (a busy worker) is waited for rather than buffered for: the stream's memory stays bounded.
      if (!response.write(event)) await drainedOrClosed(response);
    }
    response.end();
  }

  private recordFailure(text: string): void {
    this.failures.push(text);
    process.stderr.write(`${text}\n`);
  }
}

/** The parsed JSON body, or undefined after answering a body that is not JSON with a 400. */
async function readJsonBody(request: IncomingMessage, response: ServerResponse): Promise<unknown> {
  try {
    return JSON.parse(await readRequestBody(request)) as unknown;
  } catch {
    sendOpenAIError(response, 400, 'We could not parse the JSON body of your request.');
    return undefined;
  }
}

function describeLastMessage(request: RecordedRequest): string {
  const last = request.messages.at(-1);
  if (!last) return 'the request had no messages';
  const toolCalls = last.tool_calls?.map((toolCall) => toolCall.function.name) ?? [];
  const text = messageText(last) || (toolCalls.length > 0 ? `[calls ${toolCalls.join(', ')}]` : '');
  return `last message (${last.role}): "${truncate(text, 80)}"`;
}

/** The host as it goes in a URL: wildcard addresses become loopback, IPv6 gets brackets. */
function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/** Resolves when the response can take more, or when its client has gone. */
function drainedOrClosed(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}
