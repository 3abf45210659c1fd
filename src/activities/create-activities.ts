import OpenAI from 'openai';
import type { OperatorPolicy } from '../policy';
import type { TurnActivityLimits } from '../protocol';
import { Context } from '@temporalio/activity';
import type { ToolResultOutput } from '../protocol';
import { storeLargeOutput, type ContentStore } from '../store';
import { ToolRegistry, type Tool } from '../tools';
import type { TollgateActivities, ToolApprovalPolicy } from './activity-types';
import { createCallModel, type ModelCall, type ModelConnection } from './model/call-model';
import { createCallModelResponses } from './model/call-model-responses';
import { awaitTurnOutcome } from './await-turn-outcome';
import { createNotifyApproval } from './notify-approval';
import type { ApprovalNotifier } from '../notifications/notification-types';
import { createToolActivities } from './tools/tool-activities';
import { createTurnActivities } from './turn/turn-activities';
import type { SharedRecords } from '../store/shared-records';
import { claimingGrantsThroughLedger, createGrantActivities, type GrantActivities } from './grants/grant-activities';
import { MissingLedgerMemory } from './grants/missing-ledger-memory';
import { recordingGrantUses } from './grants/record-grant-uses';
import type { TurnActivities } from './turn-activity-types';

/** Where the model is and which one to use. */
/** Which model the worker calls: an OpenAI-compatible endpoint, its key and the model's name. */
export interface ModelSettings {
  /** The endpoint, e.g. `https://api.openai.com/v1` (the `openai` client's default when absent). */
  baseURL?: string;
  apiKey: string;
  /** The model's name, e.g. `gpt-4.1-mini`. */
  model: string;
}

/** The former name of {@link ModelSettings}. */
export type ModelSettingsFromEnvironment = ModelSettings;

/** Reads `OPENAI_BASE_URL`, `OPENAI_API_KEY` and `TOLLGATE_MODEL`. */
export function modelSettingsFromEnvironment(
  environment: NodeJS.ProcessEnv = process.env,
): ModelSettingsFromEnvironment {
  return {
    ...(environment.OPENAI_BASE_URL && { baseURL: environment.OPENAI_BASE_URL }),
    apiKey: environment.OPENAI_API_KEY || 'tollgate-scripted',
    model: environment.TOLLGATE_MODEL || 'gpt-4.1-mini',
  };
}

/**
 * The worker's activities for a set of tools and a model endpoint.
 *
 * @example
 * const activities = createActivities({ tools: createWorkspaceTools(), model: modelSettingsFromEnvironment() });
 */
export function createActivities(options: {
  /** The worker's tools, or a registry that may learn more later (MCP servers that answer after start-up). */
  tools: readonly Tool[] | ToolRegistry;
  model: ModelSettingsFromEnvironment;
  store: ContentStore;
  policy?: OperatorPolicy;
  /** HMAC secret for approval requests (the AI SDK's `experimental_toolApprovalSecret` format). */
  approvalSecret?: string;
  onToolApproval?: ToolApprovalPolicy;
  notifiers?: readonly ApprovalNotifier[];
  activityLimits?: TurnActivityLimits;
  /** Consult standing grants before asking a person (default true); see docs/asking-less.md. */
  standingGrants?: boolean;
  /**
   * How long (ms) this worker remembers that its task queue has no grant ledger, and asks a person without claiming
   * (default 2,000; 0: every call that asks claims). It forgets as soon as it hears of a grant; see docs/asking-less.md.
   */
  missingLedgerMemoryMs?: number;
  /** The gateways' shared audit records: each call a standing grant let through is written there for `GET /v1/audit`. */
  auditRecords?: SharedRecords;
  /** Offer the model the built-in `proposePlan` tool (default false); see docs/asking-less.md. */
  planApproval?: boolean;
}): TollgateActivities & TurnActivities & GrantActivities {
  // Temporal retries model calls with backoff; the client's own retries would multiply them.
  const client = new OpenAI({ baseURL: options.model.baseURL, apiKey: options.model.apiKey, maxRetries: 0 });
  const registry = Array.isArray(options.tools)
    ? new ToolRegistry(options.tools as readonly Tool[])
    : (options.tools as ToolRegistry);
  const callModel = callModelThrough({ client, defaultModel: options.model.model });
  const { executeTool, validateToolOutput, validateToolInput } = createToolActivities(registry);
  const ledgerMemory = new MissingLedgerMemory(options.missingLedgerMemoryMs);
  const claimGrant = claimingGrantsThroughLedger(ledgerMemory);
  return {
    validateToolInput,
    validateToolOutput: storingLargeOutputs(validateToolOutput, options.store),
    notifyApproval: createNotifyApproval(options.notifiers ?? []),
    awaitTurnOutcome,
    ...createGrantActivities({
      registry,
      policy: options.policy ?? {},
      heardOfGrant: () => ledgerMemory.heardOfGrant(),
    }),
    ...createTurnActivities({
      registry,
      store: options.store,
      policy: options.policy ?? {},
      callModel,
      executeTool,
      ...(options.approvalSecret !== undefined && { approvalSecret: options.approvalSecret }),
      ...(options.onToolApproval && { onToolApproval: options.onToolApproval }),
      ...(options.activityLimits && { activityLimits: options.activityLimits }),
      ...(options.standingGrants !== false && {
        claimGrant: options.auditRecords ? recordingGrantUses(claimGrant, options.auditRecords) : claimGrant,
      }),
      ...(options.planApproval === true && { planApproval: true }),
    }),
  };
}

/** One `callModel` activity for both APIs, so a turn picks its API without a new activity type. */
function callModelThrough(connection: ModelConnection): ModelCall {
  const chat = createCallModel(connection);
  const responses = createCallModelResponses(connection);
  return (input, sink) => (input.api === 'responses' ? responses(input, sink) : chat(input, sink));
}

/**
 * A client tool's output, once valid, as the turn keeps it: a large one is stored and the turn gets a preview whose
 * `providerOptions.tollgate.contentRef` names it, as for a worker's tool. Without it a few large outputs would
 * carry the next model step's input past Temporal's payload limit, and the turn could not go on.
 */
function storingLargeOutputs(
  validate: TollgateActivities['validateToolOutput'],
  store: ContentStore,
): TollgateActivities['validateToolOutput'] {
  return async (input) => {
    const validation = await validate(input);
    if (!validation.valid) return validation;
    const turn = Context.current().info.workflowExecution?.workflowId;
    const part = { type: 'tool-result' as const, toolCallId: 'client-output', toolName: input.toolName };
    const stored = await storeLargeOutput(store, { ...part, output: validation.output }, turn);
    if (stored.output === validation.output) return validation;
    return { valid: true, output: { ...stored.output, providerOptions: stored.providerOptions } as ToolResultOutput };
  };
}
