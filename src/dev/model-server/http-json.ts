import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { openAIErrorBody } from './openai-error';

/** Reads the whole request body as UTF-8 text. */
export async function readRequestBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}

/** Sends a JSON body with a status. */
export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: OutgoingHttpHeaders = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

/** Sends an OpenAI-style error body, which the `openai` client raises as the `APIError` subclass for the status. */
export function sendOpenAIError(
  response: ServerResponse,
  status: number,
  message: string,
  details: { type?: string; code?: string; headers?: OutgoingHttpHeaders } = {},
): void {
  sendJson(response, status, openAIErrorBody(status, message, details.type, details.code), details.headers);
}
