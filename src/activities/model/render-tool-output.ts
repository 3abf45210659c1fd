import type { ToolResultOutput } from '../../protocol';

/**
 * The text the model reads for a tool result. Denials say plainly that the call did not run and
 * why, so the model does not assume it did or retry it blindly.
 */
export function renderToolOutput(toolName: string, output: ToolResultOutput): string {
  switch (output.type) {
    case 'text':
      return output.value;
    case 'json':
      return JSON.stringify(output.value);
    case 'error-text':
      return `Error from ${toolName}: ${output.value}`;
    case 'error-json':
      return `Error from ${toolName}: ${JSON.stringify(output.value)}`;
    case 'execution-denied':
      return (
        `Execution denied: the ${toolName} call was not run because it was not approved. ` +
        `Reason: ${output.reason ?? 'none given'}. Do not assume it ran; ask the user how to proceed if it matters.`
      );
    case 'content':
      return contentText(output.value);
  }
}

/** The text of `content` output parts; other parts (files, images) are named, not inlined. */
export function contentText(parts: ReadonlyArray<{ type: string; text?: unknown }>): string {
  return parts.map((part) => (typeof part.text === 'string' ? part.text : `[${part.type}]`)).join('\n');
}
