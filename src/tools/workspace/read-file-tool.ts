import { z } from 'zod';
import { defineTool, type Tool } from '../define-tool';
import { utf8Prefix } from './cap-text';
import { readWorkspaceText } from './read-text-file';
import type { WorkspaceSettings } from './workspace-settings';

const readFileInput = z.object({
  path: z.string().describe('File to read, relative to the workspace.'),
  offset: z.number().int().min(1).optional().describe('First line to return, counting from 1. Default 1.'),
  limit: z.number().int().min(1).optional().describe('Most lines to return. Default: as many as fit.'),
});

/** `readFile`: the text of a file in the workspace, or a range of its lines. */
export function createReadFileTool(settings: WorkspaceSettings): Tool {
  return defineTool({
    name: 'readFile',
    // Safe to repeat if a worker dies mid-call.
    idempotent: true,
    description:
      'Read a text file in the workspace and return its contents. Use offset (first line, from 1) and limit ' +
      `(number of lines) for part of a long file; output is capped at ${settings.maxOutputBytes} bytes and ends ` +
      'with a note saying how to read on when cut.',
    inputSchema: readFileInput,
    needsApproval: false,
    execute: async (input) => {
      const { text, shownPath } = await readWorkspaceText(settings.root, input.path);
      return selectLines(text, shownPath, input.offset ?? 1, input.limit, settings.maxOutputBytes);
    },
  });
}

function selectLines(
  text: string,
  shownPath: string,
  offset: number,
  limit: number | undefined,
  maxBytes: number,
): string {
  if (text === '') return `[File "${shownPath}" is empty.]`;
  const lines = text.split('\n');
  // A final newline ends the last line; it does not start an empty one.
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const total = lines.length;
  if (offset > total) {
    throw new Error(
      `"${shownPath}" has ${total} lines; offset ${offset} is past the end, use an offset from 1 to ${total}.`,
    );
  }
  const wanted = lines.slice(offset - 1, limit === undefined ? undefined : offset - 1 + limit);
  const lastWanted = offset - 1 + wanted.length;
  const selected = wanted.join('\n') + (lastWanted < lines.length || text.endsWith('\n') ? '\n' : '');
  const bytes = Buffer.from(selected, 'utf8');
  if (bytes.length <= maxBytes) {
    if (lastWanted >= total) return selected;
    return `${selected}[Lines ${offset}-${lastWanted} of ${total}; call readFile with offset ${lastWanted + 1} to read on.]`;
  }
  // Cut on a line boundary when a whole line fits, so the next offset continues exactly where this output stops.
  const prefix = utf8Prefix(bytes, maxBytes);
  const lastNewline = prefix.lastIndexOf('\n');
  const shown = lastNewline >= 0 ? prefix.slice(0, lastNewline + 1) : prefix;
  const wholeLines = shown.split('\n').length - 1;
  if (wholeLines === 0) {
    return (
      `${shown}\n[Line ${offset} is longer than ${maxBytes} bytes and was cut; ` +
      `call readFile with offset ${offset + 1} to read the lines after it.]`
    );
  }
  const lastShown = offset - 1 + wholeLines;
  return (
    `${shown}[Output capped at ${maxBytes} bytes: lines ${offset}-${lastShown} of ${total}; ` +
    `call readFile with offset ${lastShown + 1} to read on.]`
  );
}
