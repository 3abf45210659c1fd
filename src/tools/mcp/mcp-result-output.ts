import { isDeepStrictEqual } from 'node:util';
import type { ToolResultOutput } from '../../protocol';

/** One block of an MCP tool result (`ContentBlock`), as loosely as a server may send it. */
export interface McpContentBlock {
  type: string;
  [field: string]: unknown;
}

/** An MCP `CallToolResult`, as loosely as a server may send it. */
export interface McpCallToolResult {
  content?: readonly McpContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

type ContentPart = { type: string; [field: string]: unknown };

/**
 * What the model reads for an MCP tool's result, in the AI SDK's output types:
 *
 * - `isError` → `error-text` with the result's text (an error the model reads, not a failed turn);
 * - structured content with text only beside it → `json` of the structured content (by the MCP spec, the text is
 *   its serialisation for older clients);
 * - text only → `text`;
 * - anything else (images, audio, resources, resource links) → `content` parts: `text`, `image-data`, `file-data`,
 *   and a line of text for each resource link (the model cannot follow an MCP URI itself).
 */
export function mcpResultOutput(result: McpCallToolResult): ToolResultOutput {
  const blocks = Array.isArray(result.content) ? result.content : [];
  if (result.isError === true) {
    const text = blocks
      .map(blockText)
      .filter((line) => line !== '')
      .join('\n');
    return { type: 'error-text', value: text || 'The MCP tool reported an error and gave no message.' };
  }
  const structured = isRecord(result.structuredContent) ? result.structuredContent : undefined;
  const parts = blocks.map(toContentPart);
  const onlyText = parts.every((part) => part.type === 'text');
  if (structured !== undefined && onlyText) return { type: 'json', value: plainJson(structured) };
  if (structured !== undefined && !parts.some((part) => part.type === 'text' && sameJson(part.text, structured))) {
    parts.push({ type: 'text', text: JSON.stringify(structured) });
  }
  if (parts.every((part) => part.type === 'text')) {
    return { type: 'text', value: parts.map((part) => part.text as string).join('\n') };
  }
  return { type: 'content', value: parts };
}

function toContentPart(block: McpContentBlock): ContentPart {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: typeof block.text === 'string' ? block.text : '' };
    case 'image':
      return { type: 'image-data', data: String(block.data ?? ''), mediaType: String(block.mimeType ?? 'image/png') };
    case 'audio':
      return {
        type: 'file-data',
        data: String(block.data ?? ''),
        mediaType: String(block.mimeType ?? 'application/octet-stream'),
      };
    case 'resource': {
      const resource = isRecord(block.resource) ? block.resource : {};
      if (typeof resource.text === 'string') return { type: 'text', text: resource.text };
      return {
        type: 'file-data',
        data: String(resource.blob ?? ''),
        mediaType: String(resource.mimeType ?? 'application/octet-stream'),
        ...(typeof resource.uri === 'string' && { filename: resource.uri }),
      };
    }
    default:
      return { type: 'text', text: blockText(block) };
  }
}

/** A block as one line of text: its text, or what it is and where it points. */
function blockText(block: McpContentBlock): string {
  if (block.type === 'text') return typeof block.text === 'string' ? block.text : '';
  if (block.type === 'resource_link') {
    const description = typeof block.description === 'string' ? ` — ${block.description}` : '';
    const mimeType = typeof block.mimeType === 'string' ? ` (${block.mimeType})` : '';
    return `Resource link: ${String(block.name ?? block.uri)} <${String(block.uri)}>${mimeType}${description}`;
  }
  return `[${block.type}]`;
}

function sameJson(text: unknown, value: unknown): boolean {
  if (typeof text !== 'string') return false;
  try {
    return isDeepStrictEqual(JSON.parse(text), value);
  } catch {
    return false;
  }
}

function plainJson(value: unknown): NonNullable<Extract<ToolResultOutput, { type: 'json' }>['value']> {
  return JSON.parse(JSON.stringify(value)) as NonNullable<Extract<ToolResultOutput, { type: 'json' }>['value']>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
