import { checkNamespace, type PreflightConnection, type TemporalPreflightOptions } from '../client/temporal-preflight';
import { decisionSigningOf, type DecisionSigning, type OperatorPolicy } from '../policy';
import type { ContentStore } from '../store';
import { checkKeptFromTools, folderOfStore } from '../store/kept-from-tools';
import type { Tool } from '../tools';
import { workspaceRootsOf, workspaceSandboxOf } from '../tools/workspace';

/** What a worker is about to run with, as `checkWorkerStartup` needs it. */
export interface WorkerStartupFacts {
  /** The worker's connection to Temporal. */
  connection: PreflightConnection;
  /** Its namespace. */
  namespace: string;
  /** Its task queue, for messages. */
  taskQueue: string;
  /** Where the connection goes, for messages (default: "the worker's connection"). */
  address?: string;
  /** The tools it offers (workspace tools carry their sandbox and workspace). */
  tools: readonly Tool[];
  /** The operator's policy, with its trusted decision keys. */
  policy: OperatorPolicy;
  /** Whether the operator said explicitly that unsigned decisions may count. */
  acceptUnsignedDecisions: boolean;
  /** The content store, and the setting that named it, for messages. */
  store: { store: ContentStore; setting: string };
  /** Register missing search attributes where the server allows it (default true), as `npm run worker` does. */
  temporal?: TemporalPreflightOptions;
}

/** What the checks found, for the start-up lines. */
export interface WorkerStartupReport {
  /** Which decisions count. */
  decisions: DecisionSigning;
  /** Search attributes registered because they were missing. */
  registered: string[];
}

/**
 * The start-up checks of every Tollgate worker, `npm run worker` and `createTollgateWorker` alike, so that a worker
 * embedded through the library is as safe as the binary: decisions are signed, or the operator said explicitly that
 * unsigned ones count; `bash` never runs unsandboxed where an unsigned decision counts (a command could signal
 * Temporal itself); a folder content store is neither inside nor above a workspace the tools read; the namespace
 * exists and has every search attribute a turn writes (registering missing ones where it may). The cheap checks run
 * first, then Temporal's.
 *
 * @throws Error (TemporalPreflightError for Temporal's checks) whose message says what to change.
 *
 * @example
 * const report = await checkWorkerStartup({ connection, namespace, taskQueue, tools, policy, acceptUnsignedDecisions: false, store });
 * console.log(`Decisions: ${report.decisions.description}.`);
 */
export async function checkWorkerStartup(facts: WorkerStartupFacts): Promise<WorkerStartupReport> {
  const decisions = decisionSigningOf(facts.policy, facts.acceptUnsignedDecisions);
  const sandbox = workspaceSandboxOf(facts.tools);
  if (sandbox?.type === 'none' && !decisions.signed && facts.tools.some((tool) => tool.name === 'bash')) {
    throw new Error(
      `Tollgate worker: bash runs unsandboxed (${sandbox.reason}) in a worker that counts unsigned decisions: an ` +
        'approved command could signal Temporal and approve its own next call. Use sandbox "bubblewrap" ' +
        "(TOLLGATE_TOOL_SANDBOX=bubblewrap), or give the worker the gateway's public key.",
    );
  }
  const folder = folderOfStore(facts.store.store);
  if (folder !== undefined) {
    for (const workspace of workspaceRootsOf(facts.tools)) {
      checkKeptFromTools(workspace, { [facts.store.setting]: folder }, "the content store (other people's outputs)");
    }
  }
  const { registered } = await checkNamespace(
    facts.connection,
    {
      namespace: facts.namespace,
      taskQueue: facts.taskQueue,
      connectionOptions: { address: facts.address ?? "the worker's connection" },
    },
    facts.temporal,
  );
  return { decisions, registered };
}
