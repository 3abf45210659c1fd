import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import {
  createActivities,
  modelSettingsFromEnvironment,
  type ModelSettings,
  type ToolApprovalPolicy,
} from './activities';
import { temporalSettingsFromEnvironment } from './client/temporal-settings';
import { isTemporalPreflightError, preflightOrExit } from './client/temporal-preflight';
import { refuseSecondTemporalSdk } from './one-temporal-sdk';
import { tollgateWorkerDefaults } from './worker-defaults';
import { tollgateWorkflowBundleOptions } from './workflow-bundle-options';
import { cachedWorkflowBundle } from './workflow-bundle-cache';
import { stateFolderFromEnvironment } from './state-folder';
import {
  acceptUnsignedDecisionsFromEnvironment,
  decisionSigningOf,
  operatorPolicyFromEnvironment,
  type OperatorPolicy,
} from './policy';
import type { TurnActivityLimits } from './protocol';
import {
  defaultContentStore,
  namedContentStoreFromEnvironment,
  sharedRecordsFromEnvironment,
  type ContentStore,
  type SharedRecords,
} from './store';
import { checkWorkerStartup } from './startup/worker-startup-checks';
import {
  createWorkspaceTools,
  describeToolSandbox,
  refuseUnsandboxedToolsWithSecrets,
  workspaceRootsOf,
  workspaceToolsOptionsFromEnvironment,
} from './tools/workspace';
import type { ApprovalNotifier } from './notifications/notification-types';
import { notifiersFromEnvironment } from './notifications/notifiers-from-environment';
import { isAiSdkToolSet, toolsFromAiSdk, ToolRegistry, type AiSdkToolSet, type Tool } from './tools';
import { connectMcpServers, mcpServersFromEnvironment, type McpServerConfigs, type McpToolSource } from './tools/mcp';

export { tollgateWorkflowBundleOptions } from './workflow-bundle-options';

/** What a Tollgate worker needs. */
export interface TollgateWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  taskQueue: string;
  /**
   * The tools the model may call: Tollgate tools (`defineTool`, `createWorkspaceTools()`), or the AI SDK's `tools`
   * record of `tool()`s, used unchanged (docs/use-in-your-project.md).
   */
  tools: readonly Tool[] | AiSdkToolSet;
  /**
   * MCP servers whose tools are offered beside `tools`, named `server__tool` (docs/mcp-tools.md): their configurations
   * (the worker connects at creation and closes them when `run()` ends), or a source from `connectMcpServers`, which
   * its caller closes.
   */
  mcpServers?: McpServerConfigs | McpToolSource;
  /** The model the turns call: `{ baseURL, apiKey, model }` (`modelSettingsFromEnvironment()` reads `OPENAI_*`). */
  model: ModelSettings;
  /** Decides approvals before anyone is asked, e.g. "reads under /tmp are fine"; `ask` leaves it to a person. */
  onToolApproval?: ToolApprovalPolicy;
  /** Channels that tell people about approvals (Slack, email); targets come from the operator's rules. */
  notifiers?: readonly ApprovalNotifier[];
  /**
   * The operator's policy: who approves what, autonomy, trusted decision keys. Default: no rules (anyone with the
   * right to decide may). `operatorPolicyFromEnvironment()` reads `TOLLGATE_POLICY_FILE` and friends.
   */
  policy?: OperatorPolicy;
  /**
   * Where transcripts and large outputs are kept; every worker and client of a deployment names the same one.
   * Default: the folder `.tollgate/store`. `contentStoreFromEnvironment()` reads `TOLLGATE_STORE_URL` and friends.
   */
  store?: ContentStore;
  /**
   * Count decisions that carry no signature from a trusted key (the gateway's). Default: no — a worker whose policy
   * trusts no key refuses to start, since anyone who can signal its namespace could then approve any waiting call
   * (docs/trust-model.md). `workerSettingsFromEnvironment()` reads `TOLLGATE_ACCEPT_UNSIGNED_DECISIONS`.
   */
  acceptUnsignedDecisions?: boolean;
  /** Where the worker's connection goes, named in start-up messages (`npm run worker` passes `TEMPORAL_ADDRESS`). */
  temporalAddress?: string;
  /** How start-up messages name `store` (`workerSettingsFromEnvironment()` names the variable that chose it). */
  storeSetting?: string;
  /** Secret that signs approval requests in the AI SDK's format (`npm run worker` reads `TOLLGATE_APPROVAL_SECRET`). */
  approvalSecret?: string;
  /** Timeouts and attempts for the turn's model steps, tool runs and notices, where Tollgate's defaults do not fit. */
  activityLimits?: TurnActivityLimits;
  /**
   * The gateways' shared audit records (`sharedRecordsFromEnvironment()`, beside the content store): each call a
   * standing grant lets through is written there, naming the grant and who gave it, so `GET /v1/audit` shows it.
   * `npm run worker` passes them; without them, only the turn's own audit names the grant.
   */
  auditRecords?: SharedRecords;
  /**
   * Offer the model the built-in `proposePlan` tool: it proposes the calls it intends to make, a person approves them
   * as one, and each then runs once in that turn without asking (docs/asking-less.md). Default: off.
   * `planApprovalFromEnvironment()` reads `TOLLGATE_PLAN_APPROVAL`.
   */
  planApproval?: boolean;
  /**
   * A prebuilt workflow bundle (tests build it once), used as given: build it with
   * `tollgateWorkflowBundleOptions()`. The workflow sources are bundled otherwise.
   */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /**
   * How long (ms) the worker remembers that its task queue has no grant ledger (nobody has given a standing grant),
   * asking a person without consulting the ledger meanwhile. Default 2,000; 0 consults it for every call that asks.
   * The worker forgets as soon as it checks a grant's terms; see docs/asking-less.md.
   */
  missingLedgerMemoryMs?: number;
  /** Passed through to `Worker.create`. */
  workerOptions?: Partial<WorkerOptions>;
}

/**
 * Creates a worker that runs `agentTurn` workflows and the activities for `tools`, after the start-up checks of
 * `npm run worker` (`checkWorkerStartup`): it refuses to start when decisions would go unsigned without
 * `acceptUnsignedDecisions`, when a folder content store is inside or above the tools' workspace, when the namespace
 * lacks a search attribute it cannot register, and when the workspace `bash` runs unsandboxed (`sandbox: 'none'`)
 * while the worker holds the approval secret or a model API key, which such a command could read from the worker's
 * memory (docs/tool-sandbox.md), or counts unsigned decisions.
 *
 * @example
 * const worker = await createTollgateWorker({ connection, taskQueue: 'tollgate', tools, model });
 * await worker.run();
 */
export async function createTollgateWorker(options: TollgateWorkerOptions): Promise<Worker> {
  // Two copies of the Temporal SDK crash in native code later; say so now, with what to do.
  refuseSecondTemporalSdk(options.connection);
  const tools = isAiSdkToolSet(options.tools) ? await toolsFromAiSdk(options.tools) : options.tools;
  const approvalSecret = options.approvalSecret;
  const policy = options.policy ?? {};
  refuseUnsandboxedToolsWithSecrets(tools, [
    ...(approvalSecret ? ['the approval secret'] : []),
    // 'tollgate-scripted' is the placeholder modelSettingsFromEnvironment uses when no key is set.
    ...(options.model.apiKey && options.model.apiKey !== 'tollgate-scripted' ? ['the model API key'] : []),
  ]);
  const store = options.store ?? defaultContentStore();
  await checkWorkerStartup({
    connection: options.connection,
    namespace: options.namespace ?? 'default',
    taskQueue: options.taskQueue,
    ...(options.temporalAddress !== undefined && { address: options.temporalAddress }),
    tools,
    policy,
    acceptUnsignedDecisions: options.acceptUnsignedDecisions ?? false,
    store: {
      store,
      setting:
        options.storeSetting ?? (options.store ? 'the store given to createTollgateWorker' : 'the default store'),
    },
  });
  const bundling = tollgateWorkflowBundleOptions();
  const ownsMcp = options.mcpServers !== undefined && !isMcpToolSource(options.mcpServers);
  const mcp =
    options.mcpServers === undefined
      ? undefined
      : isMcpToolSource(options.mcpServers)
        ? options.mcpServers
        : await connectMcpServers(options.mcpServers, { policy });
  let worker: Worker;
  try {
    const registry = new ToolRegistry([...tools, ...(mcp?.tools ?? [])]);
    // Servers that answer after start-up bring their tools to this worker too.
    mcp?.attach(registry);
    worker = await createWorker({ ...options, store }, policy, approvalSecret, bundling, registry);
  } catch (error) {
    if (ownsMcp) await mcp?.close();
    throw error;
  }
  if (ownsMcp && mcp) {
    // The worker owns the connections it opened: they close when it stops.
    const run = worker.run.bind(worker);
    worker.run = async () => {
      try {
        return await run();
      } finally {
        await mcp.close();
      }
    };
  }
  return worker;
}

/**
 * The worker's settings the environment holds, for a binary to pass to {@link createTollgateWorker}: the operator's
 * policy (`TOLLGATE_POLICY_FILE`, `TOLLGATE_DECISION_PUBLIC_KEYS`, `TOLLGATE_ALLOW_AUTO_APPROVE`), the content store
 * (`TOLLGATE_STORE_URL`, `TOLLGATE_STORE_DIR`, `TOLLGATE_STATE_DIR`), the approval secret
 * (`TOLLGATE_APPROVAL_SECRET`), the explicit opt-out of signed decisions (`TOLLGATE_ACCEPT_UNSIGNED_DECISIONS`) and plan
 * approval (`TOLLGATE_PLAN_APPROVAL`).
 *
 * @example
 * const worker = await createTollgateWorker({ connection, taskQueue, tools, model, ...workerSettingsFromEnvironment() });
 */
export function workerSettingsFromEnvironment(
  environment: NodeJS.ProcessEnv = process.env,
): Pick<
  TollgateWorkerOptions,
  'policy' | 'store' | 'storeSetting' | 'approvalSecret' | 'acceptUnsignedDecisions' | 'planApproval'
> {
  return {
    policy: operatorPolicyFromEnvironment(environment),
    store: namedContentStoreFromEnvironment(environment).store,
    storeSetting: storeSetting(environment),
    // Only the operator's explicit word is passed on: spread over options, the settings never take back a `true`.
    ...(acceptUnsignedDecisionsFromEnvironment(environment) && { acceptUnsignedDecisions: true }),
    ...(environment.TOLLGATE_APPROVAL_SECRET && { approvalSecret: environment.TOLLGATE_APPROVAL_SECRET }),
    ...(planApprovalFromEnvironment(environment) && { planApproval: true }),
  };
}

/**
 * Whether the operator enables plan approval (the built-in `proposePlan` tool): `TOLLGATE_PLAN_APPROVAL=true`.
 *
 * @throws TypeError for a value other than `true` or `false`, so a typo does not silently leave it off.
 * @example
 * const worker = await createTollgateWorker({ connection, taskQueue, tools, model, planApproval: planApprovalFromEnvironment() });
 */
export function planApprovalFromEnvironment(environment: NodeJS.ProcessEnv = process.env): boolean {
  const value = environment.TOLLGATE_PLAN_APPROVAL?.trim().toLowerCase();
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  throw new TypeError(`TOLLGATE_PLAN_APPROVAL must be "true" or "false", got "${value}".`);
}

/** The variable that named the content store, for start-up messages. */
function storeSetting(environment: NodeJS.ProcessEnv = process.env): string {
  if (environment.TOLLGATE_STORE_URL?.trim()) return 'TOLLGATE_STORE_URL';
  if (environment.TOLLGATE_STORE_DIR?.trim()) return 'TOLLGATE_STORE_DIR';
  return 'the content store (store in TOLLGATE_STATE_DIR, default .tollgate)';
}

function isMcpToolSource(value: McpServerConfigs | McpToolSource): value is McpToolSource {
  return Array.isArray((value as McpToolSource).tools) && typeof (value as McpToolSource).close === 'function';
}

async function createWorker(
  options: TollgateWorkerOptions,
  policy: OperatorPolicy,
  approvalSecret: string | undefined,
  bundling: ReturnType<typeof tollgateWorkflowBundleOptions>,
  tools: ToolRegistry,
): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace ?? 'default',
    taskQueue: options.taskQueue,
    activities: createActivities({
      tools,
      model: options.model,
      store: options.store ?? defaultContentStore(),
      policy,
      ...(approvalSecret && { approvalSecret }),
      onToolApproval: options.onToolApproval,
      notifiers: options.notifiers,
      ...(options.activityLimits && { activityLimits: options.activityLimits }),
      ...(options.auditRecords && { auditRecords: options.auditRecords }),
      ...(options.planApproval === true && { planApproval: true }),
      ...(options.missingLedgerMemoryMs !== undefined && { missingLedgerMemoryMs: options.missingLedgerMemoryMs }),
    }),
    ...(options.workflowBundle
      ? { workflowBundle: options.workflowBundle }
      : {
          workflowsPath: bundling.workflowsPath,
          bundlerOptions: { preloadModules: bundling.preloadModules, webpackConfigHook: bundling.webpackConfigHook },
        }),
    // Fewer workflow tasks held at once and a longer sticky queue timeout: no timeouts in a burst (src/worker-defaults.ts).
    ...tollgateWorkerDefaults(options.workerOptions),
    // The model step heartbeats its streamed text; a chat sees it only as often as heartbeats are sent.
    maxHeartbeatThrottleInterval: '250ms',
    defaultHeartbeatThrottleInterval: '250ms',
    ...options.workerOptions,
  });
}

async function main(): Promise<void> {
  const temporal = temporalSettingsFromEnvironment();
  await preflightOrExit(temporal);
  if (!process.env.OPENAI_API_KEY && !process.env.OPENAI_BASE_URL) {
    // A production worker must never answer from a script by accident.
    throw new Error(
      'No model configured: set OPENAI_API_KEY (and OPENAI_BASE_URL for an OpenAI-compatible endpoint). ' +
        'For a local try-out with the scripted model, run `npm run dev` instead.',
    );
  }
  const model = modelSettingsFromEnvironment();
  // Before connecting: a sandbox that cannot start (or an unsandboxed bash beside secrets) stops the worker here.
  const tools = createWorkspaceTools(workspaceToolsOptionsFromEnvironment());
  const store = namedContentStoreFromEnvironment();
  const policy = operatorPolicyFromEnvironment();
  // Before anything connects: unsigned decisions without the operator's explicit word stop the worker here.
  decisionSigningOf(policy, acceptUnsignedDecisionsFromEnvironment());
  // Servers that do not answer within their connect timeout are logged and left out; a bad list stops the worker.
  const mcp = await connectMcpServers(mcpServersFromEnvironment(), { policy });
  const connection = await NativeConnection.connect(temporal.connectionOptions).catch(async (error: unknown) => {
    await mcp.close();
    throw error;
  });
  try {
    const worker = await createTollgateWorker({
      connection,
      namespace: temporal.namespace,
      taskQueue: temporal.taskQueue,
      temporalAddress: temporal.connectionOptions.address,
      tools,
      mcpServers: mcp,
      policy,
      model,
      store: store.store,
      storeSetting: storeSetting(),
      acceptUnsignedDecisions: acceptUnsignedDecisionsFromEnvironment(),
      planApproval: planApprovalFromEnvironment(),
      ...(process.env.TOLLGATE_APPROVAL_SECRET && { approvalSecret: process.env.TOLLGATE_APPROVAL_SECRET }),
      notifiers: notifiersFromEnvironment(),
      // Where `npm run gateway` keeps its audit: grant uses appear in GET /v1/audit.
      auditRecords: sharedRecordsFromEnvironment(),
      // Kept in the state folder (TOLLGATE_STATE_DIR, default .tollgate): a restart with the same code does not bundle.
      workflowBundle: await cachedWorkflowBundle(stateFolderFromEnvironment(), (line) => console.log(line)),
    }).catch((error: unknown) => {
      if (!isTemporalPreflightError(error)) throw error;
      console.error(`Tollgate cannot start: ${error.message}`);
      process.exit(1);
    });
    console.log(`Tollgate worker on task queue "${temporal.taskQueue}" (${temporal.connectionOptions.address}).`);
    console.log(`Decisions: ${decisionSigningOf(policy, acceptUnsignedDecisionsFromEnvironment()).description}.`);
    console.log(`Content store: ${store.description} (every worker and gateway must name the same one).`);
    console.log(`Workspace: ${workspaceRootsOf(tools).join(', ')} (TOLLGATE_WORKSPACE).`);
    console.log(`Tools: ${describeToolSandbox(tools)}.`);
    await worker.run();
  } finally {
    await mcp.close();
    await connection.close();
  }
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
