import { jsonSchema, tool } from 'ai';
import { jsonSchema as jsonSchemaV6, tool as toolV6 } from 'ai-v6';
import { z } from 'zod';
import { defineTool, toolsFromAiSdk, ToolRegistry, type AiSdkToolSet, type Tool } from '../../src/tools';

const executionContext = { toolCallId: 'call_1', abortSignal: new AbortController().signal, heartbeat: () => {} };
const approvalContext = { toolCallId: 'call_1', messages: [] };

// Tools as a team writes them for the AI SDK: a refund that asks above a limit, a lookup that never asks, a deploy
// with a JSON Schema and its own check, a streaming export, and one with toModelOutput.
const tools = {
  refund: tool({
    description: 'Refund an order',
    inputSchema: z.object({ orderId: z.string(), amount: z.number().positive(), currency: z.string().default('EUR') }),
    needsApproval: async ({ amount }) => amount > 100,
    execute: async ({ orderId, amount, currency }, { toolCallId }) => ({
      refunded: orderId,
      amount,
      currency,
      toolCallId,
    }),
  }),
  lookupOrder: toolV6({
    description: 'Look an order up',
    inputSchema: z.object({ orderId: z.string() }),
    execute: async ({ orderId }) => `order ${orderId}: shipped`,
  }),
  deploy: tool({
    description: 'Deploy a service',
    inputSchema: jsonSchema<{ service: string }>(
      {
        type: 'object',
        properties: { service: { type: 'string', minLength: 1 } },
        required: ['service'],
        additionalProperties: false,
      },
      {
        validate: (value) =>
          (value as { service?: string }).service === 'prod-db'
            ? { success: false, error: new Error('prod-db is deployed by hand') }
            : { success: true, value: value as { service: string } },
      },
    ),
    needsApproval: true,
    execute: async ({ service }) => `deployed ${service}`,
  }),
  exportReport: toolV6({
    description: 'Export a report',
    inputSchema: jsonSchemaV6<{ name: string }>({ type: 'object', properties: { name: { type: 'string' } } }),
    needsApproval: false,
    async *execute({ name }) {
      yield { status: 'exporting', name };
      yield { status: 'done', name, rows: 3 };
    },
  }),
  chart: tool({
    description: 'Draw a chart',
    inputSchema: z.object({ title: z.string() }),
    execute: async ({ title }) => ({ svg: `<svg>${title}</svg>` }),
    toModelOutput: ({ output }) => ({ type: 'text', value: `chart drawn (${output.svg.length} bytes)` }),
  }),
  pickColour: tool({
    description: 'Ask the user for a colour',
    inputSchema: z.object({ question: z.string() }),
    outputSchema: z.object({ colour: z.string() }),
  }),
} satisfies AiSdkToolSet;

async function converted(): Promise<Map<string, Tool>> {
  return new Map((await toolsFromAiSdk(tools)).map((converted) => [converted.name, converted]));
}

describe('toolsFromAiSdk', () => {
  it('keeps each tool its name, description and the JSON Schema the model sees', async () => {
    const registry = new ToolRegistry([...(await converted()).values()]);
    const deploy = registry.manifest().find((entry) => entry.name === 'deploy')!;
    expect(deploy.description).toBe('Deploy a service');
    expect(deploy.parameters).toMatchObject({ type: 'object', required: ['service'] });
    expect(deploy.approval).toBe('always');
    const refund = registry.manifest().find((entry) => entry.name === 'refund')!;
    expect(refund.parameters).toMatchObject({ properties: { orderId: { type: 'string' } } });
    expect(refund.approval).toBe('per-call');
    expect(registry.manifest().find((entry) => entry.name === 'lookupOrder')!.approval).toBe('never');
  });

  it('asks per call with a needsApproval function that reads the arguments', async () => {
    const refund = (await converted()).get('refund')!;
    const ask = refund.needsApproval as (input: unknown, context: typeof approvalContext) => PromiseLike<boolean>;
    expect(await ask({ orderId: 'A1', amount: 20 }, approvalContext)).toBe(false);
    expect(await ask({ orderId: 'A1', amount: 250 }, approvalContext)).toBe(true);
  });

  it("checks the model's arguments with the tool's zod schema and runs execute with the parsed input", async () => {
    const refund = (await converted()).get('refund')!;
    expect(refund.inputSchema.safeParse({ orderId: 'A1', amount: -5 }).success).toBe(false);
    const parsed = refund.inputSchema.parse({ orderId: 'A1', amount: 250 });
    expect(await refund.execute!(parsed, executionContext)).toEqual({
      refunded: 'A1',
      amount: 250,
      currency: 'EUR',
      toolCallId: 'call_1',
    });
  });

  it("checks a jsonSchema() input with the schema and the tool's own validate", async () => {
    const deploy = (await converted()).get('deploy')!;
    expect(deploy.inputSchema.safeParse({}).success).toBe(false);
    const refused = deploy.inputSchema.safeParse({ service: 'prod-db' });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.message).toBe('prod-db is deployed by hand');
    expect(await deploy.execute!(deploy.inputSchema.parse({ service: 'web' }), executionContext)).toBe('deployed web');
  });

  it("gives a streaming execute's last value as the output (ai 6)", async () => {
    const exportReport = (await converted()).get('exportReport')!;
    expect(await exportReport.execute!({ name: 'q3' }, executionContext)).toEqual({
      status: 'done',
      name: 'q3',
      rows: 3,
    });
  });

  it('gives the model what toModelOutput makes of the output', async () => {
    const chart = (await converted()).get('chart')!;
    expect(chart.outputFormat).toBe('tool-result');
    expect(await chart.execute!({ title: 'Sales' }, executionContext)).toEqual({
      type: 'text',
      value: 'chart drawn (16 bytes)',
    });
  });

  it('makes a tool without execute a client tool whose output is checked by its outputSchema', async () => {
    const pickColour = (await converted()).get('pickColour')!;
    expect(pickColour.executor).toBe('client');
    expect(pickColour.outputSchema?.safeParse({ colour: 'teal' }).success).toBe(true);
    expect(pickColour.outputSchema?.safeParse({ shade: 'teal' }).success).toBe(false);
  });

  it('takes a defineTool tool beside them, under its own name', async () => {
    const lookup = defineTool({
      name: 'lookup',
      description: 'Look up',
      inputSchema: z.object({}),
      execute: () => 'ok',
    });
    expect(await toolsFromAiSdk({ lookup, ...tools })).toContain(lookup);
    await expect(toolsFromAiSdk({ find: lookup })).rejects.toThrow(/Tool "lookup" is listed as "find"/);
  });

  it('refuses a provider tool, which the model provider runs and no worker can hold', async () => {
    await expect(toolsFromAiSdk({ webSearch: { type: 'provider', inputSchema: z.object({}) } })).rejects.toThrow(
      /Tool "webSearch" is a provider tool/,
    );
  });
});
