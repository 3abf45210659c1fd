import type * as Ai from 'ai';
import { z } from 'zod';
import { defineTool, type Tool, type ToolExecutionContext } from './define-tool';
import { jsonSchemaInput } from './mcp/json-schema-input';
import type { NeedsApproval, NeedsApprovalContext } from './resolve-approval-requirement';

/**
 * A tool as the AI SDK's `tool()` makes it (`ai` 6 or 7), seen only through the fields Tollgate reads, so that tools
 * of either major version fit without their types.
 */
export interface AiSdkTool {
  /** `function` (the default), `dynamic`, or `provider` (run by the model's provider, which Tollgate cannot do). */
  type?: string;
  /** What the tool does, for the model; in ai 7 also a function of the tool context (called with none). */
  description?: string | ((options: never) => string);
  /** A zod schema, `jsonSchema(...)`, or any standard schema the AI SDK accepts. */
  inputSchema?: unknown;
  /** The schema of a client-run tool's output (a tool without `execute`). */
  outputSchema?: unknown;
  // The functions are typed loosely on purpose: a tool's own input type must fit without a cast.
  /** A flag, or a function of the call's input (and `{ toolCallId, messages }`). */
  needsApproval?: boolean | ((input: never, options: never) => boolean | PromiseLike<boolean>);
  /** Runs the call: `(input, { toolCallId, messages, abortSignal })`; may yield (the last value is the output). */
  execute?: (input: never, options: never) => unknown;
  /** Maps the output to what the model reads (`{ type: 'text' | 'json' | 'content' | ..., value }`). */
  toModelOutput?: (options: never) => unknown;
}

/** The AI SDK's `tools` record: tool names to tools. A Tollgate tool (`defineTool`) may stand beside them. */
export type AiSdkToolSet = Record<string, AiSdkTool | Tool>;

/**
 * Turns the AI SDK's `tools` record into Tollgate tools, each unchanged in what it does: the same schema checks the
 * model's arguments, `needsApproval` (a flag or a function of the input) decides whether a person is asked, and
 * `execute` runs the approved call in an activity. The approval is durable: the turn waits in Temporal, through
 * restarts, for a decision recorded in its history. `createTollgateWorker` calls this for a `tools` record.
 *
 * What does not carry over, since a call is checked, decided and run in different activities, possibly on different
 * workers and days apart: a closure over in-process state between `needsApproval` and `execute` (keep state in a
 * store the tool reads), the `messages` passed to `execute` (empty: the tool sees its input, not the transcript), the
 * AI SDK's tool `context` (undefined), and `onInputStart`/`onInputDelta`/`onInputAvailable` (not called). Provider
 * tools (`type: 'provider'`) are refused: the model's provider runs them, not a worker.
 *
 * @example
 * const tools = await toolsFromAiSdk({ refund: tool({ description, inputSchema, needsApproval: true, execute }) });
 */
export async function toolsFromAiSdk(tools: AiSdkToolSet): Promise<Tool[]> {
  return Promise.all(Object.entries(tools).map(([name, tool]) => toolFromAiSdk(name, tool)));
}

/** Whether `value` is the AI SDK's `tools` record rather than a list of Tollgate tools. */
export function isAiSdkToolSet(value: readonly Tool[] | AiSdkToolSet): value is AiSdkToolSet {
  return !Array.isArray(value);
}

async function toolFromAiSdk(name: string, tool: AiSdkTool | Tool): Promise<Tool> {
  if (typeof tool !== 'object' || tool === null) throw new TypeError(`Tool "${name}" is not an AI SDK tool.`);
  if (isTollgateTool(tool)) {
    if (tool.name !== name)
      throw new TypeError(`Tool "${tool.name}" is listed as "${name}": use its own name as the key.`);
    return tool;
  }
  if (tool.type === 'provider' || tool.type === 'provider-defined') {
    throw new TypeError(
      `Tool "${name}" is a provider tool: the model's provider runs it, so Tollgate cannot hold it for approval. ` +
        "Leave it out of the worker's tools.",
    );
  }
  const input = await inputOf(name, tool.inputSchema);
  const execute = tool.execute as ((input: unknown, options: unknown) => unknown) | undefined;
  const toModelOutput = tool.toModelOutput as ((options: unknown) => unknown) | undefined;
  return defineTool({
    name,
    description: descriptionOf(tool.description),
    inputSchema: input.schema,
    ...(input.jsonSchema && { inputJsonSchema: input.jsonSchema }),
    ...(tool.needsApproval !== undefined && { needsApproval: needsApprovalOf(tool.needsApproval) }),
    ...(execute && {
      ...(toModelOutput && { outputFormat: 'tool-result' as const }),
      execute: async (value: unknown, context: ToolExecutionContext) => {
        const output = await lastValueOf(execute(value, executionOptions(context)));
        return toModelOutput ? toModelOutput({ toolCallId: context.toolCallId, input: value, output }) : output;
      },
    }),
    ...(!execute && isZodSchema(tool.outputSchema) && { outputSchema: tool.outputSchema }),
  });
}

/** How the model's arguments are checked, and the JSON Schema the model sees when it is not rendered from zod. */
async function inputOf(
  name: string,
  inputSchema: unknown,
): Promise<{ schema: z.ZodType; jsonSchema?: Record<string, unknown> }> {
  // A zod 4 schema is checked as it is, and its output (defaults, transforms) is what `execute` gets, as in the SDK.
  if (isZodSchema(inputSchema)) return { schema: inputSchema };
  // The AI SDK itself only for a schema it must read: a worker whose tools are zod loads none of it at start-up.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { asSchema } = require('ai') as typeof Ai;
  let schema: ReturnType<typeof asSchema>;
  try {
    schema = asSchema(inputSchema as Parameters<typeof asSchema>[0]);
  } catch (error) {
    throw new TypeError(
      `Tool "${name}": its inputSchema is not a schema the AI SDK reads (${(error as Error).message}).`,
    );
  }
  const rendered = jsonSchemaInput(await schema.jsonSchema);
  const validate = schema.validate;
  if (!validate) return { schema: rendered.inputSchema, jsonSchema: rendered.parameters };
  // The tool's own check runs too when it answers at once (a `jsonSchema(..., { validate })`); an asynchronous one
  // (a standard schema) is left to the JSON Schema, which says the same.
  const checked = rendered.inputSchema.transform((value, context) => {
    const result = validate(value);
    if (isPromiseLike(result)) return value;
    if (result.success) return result.value;
    context.addIssue({ code: 'custom', message: result.error.message });
    return z.NEVER;
  });
  return { schema: checked, jsonSchema: rendered.parameters };
}

function descriptionOf(description: AiSdkTool['description']): string {
  if (typeof description !== 'function') return description ?? '';
  return (description as (options: unknown) => string)({ context: undefined });
}

function needsApprovalOf(needsApproval: NonNullable<AiSdkTool['needsApproval']>): NeedsApproval<unknown> {
  if (typeof needsApproval !== 'function') return needsApproval;
  const decide = needsApproval as (input: unknown, options: unknown) => boolean | PromiseLike<boolean>;
  return (input: unknown, context: NeedsApprovalContext) =>
    decide(input, {
      toolCallId: context.toolCallId,
      messages: context.messages,
      // ai 7 names the tool context `context`, ai 6 `experimental_context`; Tollgate has none to give.
      context: undefined,
      experimental_context: undefined,
    });
}

function executionOptions(context: ToolExecutionContext) {
  return {
    toolCallId: context.toolCallId,
    messages: [],
    abortSignal: context.abortSignal,
    context: undefined,
    experimental_context: undefined,
  };
}

/** A streaming `execute` (an async iterable) gives preliminary outputs; the last one is the result, as in the SDK. */
async function lastValueOf(result: unknown): Promise<unknown> {
  if (!isAsyncIterable(result)) return result;
  let last: unknown;
  for await (const value of result) last = value;
  return last;
}

/** A tool `defineTool` made: its approval rule is resolved and it says who runs it. */
function isTollgateTool(tool: AiSdkTool | Tool): tool is Tool {
  return 'executor' in tool && 'idempotent' in tool && typeof (tool as Tool).name === 'string';
}

function isZodSchema(value: unknown): value is z.ZodType {
  return (
    typeof value === 'object' &&
    value !== null &&
    '_zod' in value &&
    typeof (value as z.ZodType).safeParse === 'function'
  );
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}
