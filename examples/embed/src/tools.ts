import { tool } from 'ai';
import { defineTool } from 'tollgate';
import { z } from 'zod';

// The application's own refund tool, written for the AI SDK: Tollgate runs it unchanged. `needsApproval` reads the
// arguments, so a small refund runs at once and a large one waits for a person.
export const refund = tool({
  description: 'Refund an order, in whole or in part',
  inputSchema: z.object({
    orderId: z.string().describe('The order to refund'),
    amount: z.number().positive().describe('Amount in euros'),
  }),
  needsApproval: async ({ amount }) => amount > 100,
  execute: async ({ orderId, amount }) => ({ orderId, refunded: amount, status: 'refunded' }),
});

// A read-only lookup written with Tollgate's own defineTool: it never needs approval.
export const lookupOrder = defineTool({
  name: 'lookupOrder',
  description: 'Look an order up by its id',
  inputSchema: z.object({ orderId: z.string() }),
  execute: async ({ orderId }) => ({ orderId, total: orderId === 'B-2' ? 900 : 250, paid: true }),
});

// The AI SDK's tools record, with the Tollgate tool beside the AI SDK one.
export const tools = { refund, lookupOrder };
