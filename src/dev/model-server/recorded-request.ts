import type { ChatMessage, ChatTool } from './chat-completion-request';
import type { ResponsesInputItem, ResponsesTool } from './responses-request';

/**
 * A request as the server received it, kept so tests can assert what the model was told. `messages` and `tools`
 * read the same for both APIs; a Responses API request also keeps its items as sent in `responses`.
 */
export interface RecordedRequest {
  /** 1-based position among the requests recorded since the server started or was last reset. */
  number: number;
  /** The parsed JSON body, untouched. */
  body: Record<string, unknown>;
  /** The messages the client sent; for a Responses API request, its instructions and input as chat messages. */
  messages: ChatMessage[];
  /** The tools the client offered, empty when none; for a Responses API request, its function tools. */
  tools: ChatTool[];
  /** The names of the offered function tools, for quick assertions. */
  toolNames: string[];
  /** Whether the client asked for a streamed answer. */
  stream: boolean;
  /** When the request arrived. */
  receivedAt: Date;
  /** The marker whose queue answered, if any. */
  marker?: string;
  /** Present only for `POST /v1/responses`: the input items and every tool (MCP ones too), as sent. */
  responses?: { input: ResponsesInputItem[]; tools: ResponsesTool[]; instructions?: string };
}
