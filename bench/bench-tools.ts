import { z } from 'zod';
import { defineTool, type Tool } from '../src/tools';

/** Size of one growth step's tool output: the workspace tools cap a file read at 32 KiB. */
export const growthOutputBytes = 32 * 1024;

/** Tool names the scripted model calls. */
export const benchToolNames = { approve: 'benchApprovedAction', read: 'benchReadFile' } as const;

/**
 * The Tollgate tools of the benchmark: one that needs approval and reports when it starts, and one
 * that reads a 32 KiB "file" without approval, for the growth table.
 */
export function createBenchTools(onToolStart: (turn: string) => void): Tool[] {
  return [
    defineTool({
      name: benchToolNames.approve,
      description: 'An action that needs approval.',
      inputSchema: z.object({ turn: z.string() }),
      needsApproval: true,
      execute: ({ turn }) => {
        onToolStart(turn);
        return 'done';
      },
    }),
    defineTool({
      name: benchToolNames.read,
      description: 'Reads a large file. Never needs approval.',
      inputSchema: z.object({ turn: z.string(), step: z.number().int() }),
      execute: ({ turn, step }) => {
        onToolStart(turn);
        return fileContent(turn, step);
      },
    }),
  ];
}

/** 32 KiB of source-like text that differs per turn and step, so no two outputs are the same bytes. */
export function fileContent(turn: string, step: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let line = 1; size < growthOutputBytes; line++) {
    const text = `export const value_${step}_${line} = compute('${turn}', ${step * 7919 + line * 104729}); // line ${line}\n`;
    lines.push(text);
    size += text.length;
  }
  return lines.join('').slice(0, growthOutputBytes);
}
