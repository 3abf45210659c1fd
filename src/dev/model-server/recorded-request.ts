import type { ChatMessage, ChatTool } from './chat-completion-request';

/** A chat completion request as the server received it, kept so tests can assert what the model was told. */
export interface RecordedRequest {
  /** 1-based position among the requests recorded since the server started or was last reset. */
  number: number;
  /** The parsed JSON body, untouched. */
  body: Record<string, unknown>;
  /** The messages the client sent. */
  messages: ChatMessage[];
  /** The tools the client offered, empty when none. */
  tools: ChatTool[];
  /** The names of the offered function tools, for quick assertions. */
  toolNames: string[];
  /** Whether the client asked for a streamed answer. */
  stream: boolean;
  /** When the request arrived. */
  receivedAt: Date;
  /** The marker whose queue answered, if any. */
  marker?: string;
}
