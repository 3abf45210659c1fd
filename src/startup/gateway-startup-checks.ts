import { checkNamespace, type PreflightConnection } from '../client/temporal-preflight';
import { acceptUnsignedDecisionsVariable } from '../policy';
import { storeLocationFromUrl, storeUrlFromEnvironment } from '../store/content-store-from-environment';
import { checkKeptFromTools } from '../store/kept-from-tools';

/** What a gateway is about to run with, as `checkGatewayStartup` needs it. */
export interface GatewayStartupFacts {
  /** The gateway's connection to Temporal (its client's). */
  connection: PreflightConnection;
  /** Its namespace. */
  namespace: string;
  /** Its task queue, for messages. */
  taskQueue: string;
  /** Whether it signs the decisions it forwards. */
  signs: boolean;
  /** Whether the operator said explicitly that decisions may go unsigned. */
  acceptUnsignedDecisions: boolean;
  /** Files and folders the gateway keeps that tools must not reach, each by the setting or words that name it. */
  places: Record<string, string | undefined>;
  /** The tools' workspace on this machine (`createGateway`'s `workspace`, default `.tollgate/workspace`). */
  workspace: string;
}

/**
 * The start-up checks of every gateway, `npm run gateway` and `createGateway` alike: it signs what it forwards, or
 * the operator said explicitly that decisions go unsigned; its audit, used email links and folder content store are
 * neither inside nor above the tools' workspace; the namespace has every search attribute Tollgate writes
 * (registering missing ones where it may, as `npm run gateway` does).
 *
 * @throws Error (TemporalPreflightError for Temporal's checks) whose message says what to change.
 */
export async function checkGatewayStartup(facts: GatewayStartupFacts): Promise<void> {
  if (!facts.signs && !facts.acceptUnsignedDecisions) {
    throw new Error(
      'Tollgate gateway: no decision signing key (TOLLGATE_DECISION_SIGNING_KEY_FILE, TOLLGATE_DECISION_SIGNING_KEY ' +
        "or createGateway's signingKey), so the decisions it forwards go unsigned: workers that require signatures " +
        'refuse them, and a worker that counts them lets anyone who can signal Temporal decide. Give it the key ' +
        '(docker compose makes the pair on first start, `npm run dev` too; docs/trust-model.md), or, if every path ' +
        `to Temporal is trusted, say so with ${acceptUnsignedDecisionsVariable}=true.`,
    );
  }
  checkKeptFromTools(facts.workspace, facts.places, "the gateway's records");
  await checkNamespace(facts.connection, {
    namespace: facts.namespace,
    taskQueue: facts.taskQueue,
    connectionOptions: { address: "the gateway's connection" },
  });
}

/** The folder content store the environment names, by its setting, or nothing for an S3 store. */
export function folderStoreFromEnvironment(environment: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const location = storeLocationFromUrl(storeUrlFromEnvironment(environment));
  if (location.kind !== 'folder') return {};
  const setting = environment.TOLLGATE_STORE_URL?.trim()
    ? 'TOLLGATE_STORE_URL'
    : environment.TOLLGATE_STORE_DIR?.trim()
      ? 'TOLLGATE_STORE_DIR'
      : 'TOLLGATE_STATE_DIR (its store folder)';
  return { [setting]: location.folder };
}
