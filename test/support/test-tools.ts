import { z } from 'zod';
import { defineTool, type Tool } from '../../src/tools';

/** One run of a test tool, as the tool saw it. */
export interface ToolRun {
  tool: string;
  input: unknown;
  toolCallId: string;
}

/**
 * Small tools whose runs are recorded, so tests can tell whether a tool ran and how often.
 * `record` defaults to an in-memory list; a worker in another process passes a file appender.
 */
export function createTestTools(record?: (run: ToolRun) => void): { tools: Tool[]; runs: ToolRun[] } {
  const runs: ToolRun[] = [];
  const note = (run: ToolRun) => (record ? record(run) : runs.push(run));
  const tools = [
    defineTool({
      name: 'lookup',
      description: 'Looks a word up. Safe: never needs approval.',
      inputSchema: z.object({ query: z.string() }),
      execute: ({ query }, { toolCallId }) => {
        note({ tool: 'lookup', input: { query }, toolCallId });
        // "long:" asks for a definition over 4 KiB, which a turn keeps in the content store.
        return query.startsWith('long:') ? longDefinitionOf(query) : `definition of ${query}`;
      },
    }),
    defineTool({
      name: 'deleteFile',
      description: 'Deletes a file. Needs approval.',
      inputSchema: z.object({ path: z.string() }),
      needsApproval: true,
      execute: ({ path }, { toolCallId }) => {
        note({ tool: 'deleteFile', input: { path }, toolCallId });
        return { deleted: path };
      },
    }),
    defineTool({
      name: 'transfer',
      description: 'Moves money. Amounts over 100 need approval.',
      inputSchema: z.object({ amount: z.number().positive(), to: z.string() }),
      needsApproval: async ({ amount }) => {
        // The rule may do I/O (a limits service, say); it runs in an activity.
        await new Promise((resolve) => setTimeout(resolve, 5));
        return amount > 100;
      },
      execute: (input, { toolCallId }) => {
        note({ tool: 'transfer', input, toolCallId });
        return `sent ${input.amount} to ${input.to}`;
      },
    }),
    defineTool({
      name: 'deploy',
      description: 'Deploys a service. Always needs approval (Agent Framework spelling).',
      inputSchema: z.object({ service: z.string() }),
      approvalMode: 'always_require',
      execute: ({ service }, { toolCallId }) => {
        note({ tool: 'deploy', input: { service }, toolCallId });
        return `deployed ${service}`;
      },
    }),
    defineTool({
      name: 'pickColor',
      description: 'Asks the user to pick a color in the browser. Run by the client, not the worker.',
      inputSchema: z.object({ prompt: z.string() }),
      outputSchema: z.object({ color: z.string().regex(/^#[0-9a-f]{6}$/) }),
    }),
    defineTool({
      name: 'launch',
      description: 'Launches a job. Needs approval within one second, or it is denied as expired.',
      inputSchema: z.object({ job: z.string() }),
      needsApproval: true,
      approvalTimeout: '1s',
      execute: ({ job }, { toolCallId }) => {
        note({ tool: 'launch', input: { job }, toolCallId });
        return `launched ${job}`;
      },
    }),
    defineTool({
      name: 'slowJob',
      description: 'Runs a slow job that is not safe to repeat.',
      inputSchema: z.object({ job: z.string(), seconds: z.number() }),
      execute: async ({ job, seconds }, { toolCallId }) => {
        note({ tool: 'slowJob', input: { job }, toolCallId });
        await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
        return `finished ${job}`;
      },
    }),
  ];
  return { tools, runs };
}

/** What `lookup` answers for a query that starts with "long:": about 7 KiB. */
export function longDefinitionOf(query: string): string {
  return `definition of ${query}: ${Array.from({ length: 700 }, (_value, index) => `word${index}`).join(' ')}`;
}
