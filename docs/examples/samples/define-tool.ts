// docs/approvals-and-tools.md's tool, type-checked here (test/docs/code-samples.test.ts).
import { z } from 'zod';
import { defineTool } from 'tollgate';

export const transfer = defineTool({
  name: 'transfer',
  description: 'Moves money between accounts.',
  inputSchema: z.object({ amount: z.number().positive(), to: z.string() }),
  // A flag, or a function of the call (it runs in an activity, so it may do I/O).
  needsApproval: async ({ amount }) => amount > 100,
  execute: async ({ amount, to }) => `sent ${amount} to ${to}`,
});
