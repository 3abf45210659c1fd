import { z } from 'zod';
import { defineTool } from '../../src/tools';

/**
 * The tools every planning unit test plans with: `lookup` runs without asking, `deleteFile` always asks. Plain
 * definitions (no Temporal, no recording), so unit tests may import them.
 */
export const planningTools = [
  defineTool({
    name: 'lookup',
    description: 'Looks a word up.',
    inputSchema: z.object({ query: z.string() }),
    execute: ({ query }) => `definition of ${query}`,
  }),
  defineTool({
    name: 'deleteFile',
    description: 'Deletes a file.',
    inputSchema: z.object({ path: z.string() }),
    needsApproval: true,
    execute: ({ path }) => ({ deleted: path }),
  }),
] as const;
