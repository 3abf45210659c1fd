import { Connection, isGrpcServiceError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import {
  approversSearchAttribute,
  pendingApprovalsSearchAttribute,
  requesterSearchAttribute,
  waitingToolsSearchAttribute,
} from '../workflows/definitions';
import { probeEndpoint, type EndpointProbe } from './probe-endpoint';
import {
  describeTemporalSettings,
  temporalSettingsFromEnvironment,
  usesTls,
  type TemporalSettings,
} from './temporal-settings';

const { IndexedValueType } = temporal.api.enums.v1;

/** A search attribute Tollgate writes, named as `temporal operator search-attribute create --type` takes it. */
export interface RequiredSearchAttribute {
  /** The attribute's name. */
  name: string;
  /** Its type in the CLI's spelling, e.g. `KeywordList`. */
  type: 'KeywordList' | 'Keyword';
}

/** The search attributes every Tollgate namespace needs. */
export const requiredSearchAttributes: readonly RequiredSearchAttribute[] = [
  { name: pendingApprovalsSearchAttribute.name, type: 'KeywordList' },
  { name: waitingToolsSearchAttribute.name, type: 'KeywordList' },
  { name: approversSearchAttribute.name, type: 'KeywordList' },
  { name: requesterSearchAttribute.name, type: 'Keyword' },
];

const indexedTypes: Record<RequiredSearchAttribute['type'], temporal.api.enums.v1.IndexedValueType> = {
  KeywordList: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
  Keyword: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
};

/** What went wrong before Tollgate could use Temporal. */
export type TemporalPreflightProblem =
  | 'unreachable'
  | 'tls-mismatch'
  | 'credentials'
  | 'namespace-missing'
  | 'search-attribute-missing'
  | 'search-attribute-type';

/** A Temporal set-up Tollgate cannot run on, with a message that says what to do. Recognised by `name`. */
export class TemporalPreflightError extends Error {
  override readonly name = 'TemporalPreflightError';
  constructor(
    /** Which check failed. */
    readonly problem: TemporalPreflightProblem,
    message: string,
  ) {
    super(message);
  }
}

/** True for a {@link TemporalPreflightError}, also across module copies. */
export function isTemporalPreflightError(error: unknown): error is TemporalPreflightError {
  return error instanceof Error && error.name === 'TemporalPreflightError';
}

/** Options for {@link checkTemporal}. */
export interface TemporalPreflightOptions {
  /** Register missing search attributes when the server allows it (a dev server, operator rights). Default true. */
  register?: boolean;
  /** How long to wait for the server. Default 10 s. */
  timeoutMs?: number;
}

/** What {@link checkTemporal} found and did. */
export interface TemporalPreflightResult {
  /** Search attributes it registered because they were missing. */
  registered: string[];
}

/**
 * Checks that Tollgate can run on the configured Temporal: the server answers, TLS and credentials
 * match, the namespace exists and has every search attribute Tollgate writes, registering missing
 * ones where it may. Without the attribute every turn's workflow task fails over and over, silently.
 *
 * @throws TemporalPreflightError whose message names the fix (a variable to set, a command to run).
 * @example
 * const { registered } = await checkTemporal(temporalSettingsFromEnvironment());
 */
export async function checkTemporal(
  settings: TemporalSettings,
  options: TemporalPreflightOptions = {},
): Promise<TemporalPreflightResult> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const address = settings.connectionOptions.address ?? 'localhost:7233';
  // A refused or unknown address fails here at once instead of after the gRPC timeout; through a proxy
  // only gRPC itself knows the way.
  if (!proxyConfigured()) {
    const probe = await probeEndpoint(address, Math.min(timeoutMs, 3_000));
    const mismatch = endpointProblem(settings, probe);
    if (mismatch) throw mismatch;
  }
  let connection: Connection;
  try {
    connection = await Connection.connect({
      ...(settings.connectionOptions as Parameters<typeof Connection.connect>[0]),
      connectTimeout: timeoutMs,
    });
  } catch (error) {
    throw await diagnoseConnectFailure(settings, error);
  }
  try {
    return await checkNamespace(connection, settings, options);
  } finally {
    await connection.close();
  }
}

/** What {@link checkNamespace} calls on a connection: a client's `Connection` or a worker's `NativeConnection`. */
export interface PreflightConnection {
  workflowService: Pick<Connection['workflowService'], 'describeNamespace' | 'countWorkflowExecutions'>;
  operatorService: Pick<Connection['operatorService'], 'listSearchAttributes' | 'addSearchAttributes'>;
  withDeadline<T>(deadline: number | Date, fn: () => Promise<T>): Promise<T>;
}

/**
 * The checks of {@link checkTemporal} on a connection already open, e.g. the one given to `createTollgateWorker` or
 * `createGateway`: the namespace exists and has every search attribute Tollgate writes, registering missing ones
 * where it may. `settings` name the namespace and, for messages, where the connection goes.
 *
 * @throws TemporalPreflightError whose message names the fix.
 */
export async function checkNamespace(
  connection: PreflightConnection,
  settings: TemporalSettings,
  options: TemporalPreflightOptions = {},
): Promise<TemporalPreflightResult> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const deadline = () => Date.now() + timeoutMs;
  await connection
    .withDeadline(deadline(), () => connection.workflowService.describeNamespace({ namespace: settings.namespace }))
    .catch((error: unknown) => {
      throw namespaceFailure(settings, error);
    });
  const registered: string[] = [];
  for (const attribute of requiredSearchAttributes) {
    const found = await existingType(connection, settings.namespace, attribute.name, deadline(), attribute.type);
    if (found === attribute.type) continue;
    if (found !== undefined) throw wrongType(settings, attribute, found);
    if (options.register === false) throw missingAttribute(settings, attribute, 'registering is turned off');
    await connection
      .withDeadline(deadline(), () =>
        connection.operatorService.addSearchAttributes({
          namespace: settings.namespace,
          searchAttributes: { [attribute.name]: indexedTypes[attribute.type] },
        }),
      )
      .catch((error: unknown) => {
        throw missingAttribute(settings, attribute, `registering it failed: ${detailOf(error)}`);
      });
    registered.push(attribute.name);
  }
  return { registered };
}

/**
 * Runs {@link checkTemporal} for a process about to start (worker, gateway): prints what it
 * registered, and on a problem prints the message and exits with status 1.
 *
 * @example
 * await preflightOrExit(temporal); // first line of main()
 */
export async function preflightOrExit(
  settings: TemporalSettings = temporalSettingsFromEnvironment(),
  options: TemporalPreflightOptions = {},
): Promise<void> {
  try {
    const { registered } = await checkTemporal(settings, options);
    for (const name of registered)
      console.log(`Registered the search attribute ${name} on namespace "${settings.namespace}".`);
  } catch (error) {
    if (!isTemporalPreflightError(error)) throw error;
    console.error(`Tollgate cannot start: ${error.message}`);
    process.exit(1);
  }
}

function proxyConfigured(): boolean {
  return ['grpc_proxy', 'https_proxy', 'http_proxy', 'GRPC_PROXY', 'HTTPS_PROXY', 'HTTP_PROXY'].some(
    (name) => process.env[name],
  );
}

function unreachable(where: string, detail: string): TemporalPreflightError {
  return new TemporalPreflightError(
    'unreachable',
    `cannot reach Temporal at ${where}: ${detail}. Set TEMPORAL_ADDRESS to your Temporal frontend ` +
      `(host:port; \`npm run dev\` starts one on localhost:7233), or TEMPORAL_PROFILE to a profile of your Temporal config file.`,
  );
}

async function diagnoseConnectFailure(settings: TemporalSettings, error: unknown): Promise<TemporalPreflightError> {
  const where = describeTemporalSettings(settings);
  const cause = isGrpcServiceError((error as { cause?: unknown }).cause) ? (error as { cause: unknown }).cause : error;
  if (isGrpcServiceError(cause) && isCredentialsError(cause.code)) return credentials(settings, cause);
  const probe = await probeEndpoint(settings.connectionOptions.address ?? 'localhost:7233');
  const mismatch = endpointProblem(settings, probe);
  if (mismatch) return mismatch;
  if (probe.type === 'open' && probe.speaksTls)
    return new TemporalPreflightError(
      'tls-mismatch',
      `cannot connect to Temporal at ${where}: the TLS handshake failed (${detailOf(error)}). Check the client ` +
        `certificate and key (TEMPORAL_TLS_CLIENT_CERT_PATH, TEMPORAL_TLS_CLIENT_KEY_PATH), the server CA ` +
        `(TEMPORAL_TLS_SERVER_CA_CERT_PATH) and TEMPORAL_TLS_SERVER_NAME.`,
    );
  return unreachable(where, `something answers, but not as a Temporal frontend (${detailOf(error)})`);
}

/** An unreachable address, or TLS on one side only; undefined when the endpoint looks right. */
function endpointProblem(settings: TemporalSettings, probe: EndpointProbe): TemporalPreflightError | undefined {
  const where = describeTemporalSettings(settings);
  if (probe.type !== 'open') return unreachable(where, probe.detail);
  if (usesTls(settings) && !probe.speaksTls)
    return new TemporalPreflightError(
      'tls-mismatch',
      `cannot connect to Temporal at ${where}: TLS is on, but the server does not speak TLS. A local or ` +
        `Docker Compose server needs neither TLS nor an API key: unset TEMPORAL_API_KEY and TEMPORAL_TLS (or set TEMPORAL_TLS=false).`,
    );
  if (!usesTls(settings) && probe.speaksTls)
    return new TemporalPreflightError(
      'tls-mismatch',
      `cannot connect to Temporal at ${where}: the server expects TLS (Temporal Cloud always does). Set ` +
        `TEMPORAL_API_KEY, or TEMPORAL_TLS=true with TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH for mTLS.`,
    );
  return undefined;
}

function namespaceFailure(settings: TemporalSettings, error: unknown): TemporalPreflightError | unknown {
  if (!isGrpcServiceError(error)) return error;
  if (isCredentialsError(error.code)) return credentials(settings, error);
  if (error.code === grpcStatus.NOT_FOUND)
    return new TemporalPreflightError(
      'namespace-missing',
      `the namespace "${settings.namespace}" does not exist at ${settings.connectionOptions.address}. Create it with ` +
        `\`temporal operator namespace create --namespace ${settings.namespace}\`, or set TEMPORAL_NAMESPACE ` +
        `(on Temporal Cloud, the full namespace id, e.g. my-namespace.a1b2c).`,
    );
  return error;
}

function credentials(settings: TemporalSettings, error: { code: number; details?: string }): TemporalPreflightError {
  const how =
    settings.connectionOptions.apiKey !== undefined ? 'TEMPORAL_API_KEY' : 'the client certificate or API key';
  return new TemporalPreflightError(
    'credentials',
    `Temporal at ${describeTemporalSettings(settings)} rejected the credentials (${detailOf(error)}). Check ${how} ` +
      `and that it grants access to the namespace "${settings.namespace}".`,
  );
}

/** The attribute's type in the CLI's spelling, or undefined when the namespace lacks it. */
async function existingType(
  connection: PreflightConnection,
  namespace: string,
  name: string,
  deadline: number,
  /** What a visibility query that finds it returns: it tells that the attribute exists, not its type. */
  expected: string,
): Promise<string | undefined> {
  try {
    const { customAttributes } = await connection.withDeadline(deadline, () =>
      connection.operatorService.listSearchAttributes({ namespace }),
    );
    const type = customAttributes?.[name];
    return type === undefined || type === null ? undefined : cliTypeName(type);
  } catch (error) {
    if (!isGrpcServiceError(error) || !isCredentialsOrUnsupported(error.code)) throw error;
  }
  // Without operator rights, a visibility query tells whether the attribute exists (not its type).
  try {
    await connection.withDeadline(deadline, () =>
      connection.workflowService.countWorkflowExecutions({ namespace, query: `${name} = 'tollgate-preflight'` }),
    );
    return expected;
  } catch (error) {
    if (isGrpcServiceError(error) && error.code === grpcStatus.INVALID_ARGUMENT) return undefined;
    throw error;
  }
}

function missingAttribute(
  settings: TemporalSettings,
  attribute: RequiredSearchAttribute,
  why: string,
): TemporalPreflightError {
  return new TemporalPreflightError(
    'search-attribute-missing',
    `the namespace "${settings.namespace}" lacks the search attribute ${attribute.name} that Tollgate writes, ` +
      `and ${why}. Without it every turn stalls. Register it once with:\n\n` +
      `  ${searchAttributeCommand(settings.namespace, attribute)}\n\n` +
      `(the temporal CLI reads the same TEMPORAL_ADDRESS, TEMPORAL_API_KEY and TEMPORAL_PROFILE as Tollgate; ` +
      `on Temporal Cloud you can also add it in the namespace's settings in the Cloud UI).`,
  );
}

function wrongType(
  settings: TemporalSettings,
  attribute: RequiredSearchAttribute,
  found: string,
): TemporalPreflightError {
  return new TemporalPreflightError(
    'search-attribute-type',
    `the search attribute ${attribute.name} on namespace "${settings.namespace}" has the type ${found}; Tollgate ` +
      `needs ${attribute.type}. Remove it (\`temporal operator search-attribute remove --namespace ${settings.namespace} ` +
      `--name ${attribute.name}\`) and register it again:\n\n  ${searchAttributeCommand(settings.namespace, attribute)}`,
  );
}

/** The exact CLI command that registers `attribute` on `namespace`. */
export function searchAttributeCommand(namespace: string, attribute: RequiredSearchAttribute): string {
  return `temporal operator search-attribute create --namespace ${namespace} --name ${attribute.name} --type ${attribute.type}`;
}

const cliTypeNames: Record<number, string> = {
  [IndexedValueType.INDEXED_VALUE_TYPE_TEXT]: 'Text',
  [IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD]: 'Keyword',
  [IndexedValueType.INDEXED_VALUE_TYPE_INT]: 'Int',
  [IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE]: 'Double',
  [IndexedValueType.INDEXED_VALUE_TYPE_BOOL]: 'Bool',
  [IndexedValueType.INDEXED_VALUE_TYPE_DATETIME]: 'Datetime',
  [IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST]: 'KeywordList',
};

function cliTypeName(type: number): string {
  return cliTypeNames[type] ?? `type ${type}`;
}

// gRPC status codes (the numbers are part of the gRPC protocol).
const grpcStatus = { INVALID_ARGUMENT: 3, NOT_FOUND: 5, PERMISSION_DENIED: 7, UNIMPLEMENTED: 12, UNAUTHENTICATED: 16 };

function isCredentialsError(code: number): boolean {
  return code === grpcStatus.PERMISSION_DENIED || code === grpcStatus.UNAUTHENTICATED;
}

function isCredentialsOrUnsupported(code: number): boolean {
  return isCredentialsError(code) || code === grpcStatus.UNIMPLEMENTED;
}

function detailOf(error: unknown): string {
  if (isGrpcServiceError(error)) return error.details || error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}
