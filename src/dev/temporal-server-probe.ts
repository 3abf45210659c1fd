import { Connection } from '@temporalio/client';
import { acceptsConnections, completesHttp2Handshake } from './ports';

/** Search attribute types as the Temporal CLI spells them (`--search-attribute Name=KeywordList`). */
export type SearchAttributeTypeName = 'Text' | 'Keyword' | 'Int' | 'Double' | 'Bool' | 'Datetime' | 'KeywordList';

// temporal.api.enums.v1.IndexedValueType, the numbers the operator service returns and accepts.
const indexedValueTypes: Record<SearchAttributeTypeName, number> = {
  Text: 1,
  Keyword: 2,
  Int: 3,
  Double: 4,
  Bool: 5,
  Datetime: 6,
  KeywordList: 7,
};

/** Options for {@link connectIfRunning}. */
export interface ConnectIfRunningOptions {
  /** The namespace that must exist for the server to count as usable. Default `default`. */
  namespace?: string;
  /** How long to wait for an answer. Default 3 s. */
  timeoutMs?: number;
}

/** What a readiness probe found. */
export type ServerReadiness =
  | { type: 'ready' }
  | {
      type: 'not-ready';
      /** What is still missing, for the timeout message. */
      reason: string;
    }
  | {
      type: 'unusable';
      /** A problem waiting will not fix, such as a search attribute registered with another type. */
      reason: string;
    };

/** Splits `host:port` (or `[ipv6]:port`) into its parts. */
export function parseAddress(address: string): { host: string; port: number } {
  const match = /^\[?([^\]]+?)\]?:(\d+)$/.exec(address.trim());
  if (!match?.[1] || !match[2])
    throw new TypeError(`"${address}" is not a host:port address such as "localhost:7233".`);
  return { host: match[1], port: Number(match[2]) };
}

/**
 * True when a Temporal server answers at `address` and has the namespace, so the dev runner can reuse a server the
 * user already runs instead of starting one. Never throws: anything else at that address is `false`.
 *
 * @example
 * if (await connectIfRunning('localhost:7233')) console.log('Reusing the Temporal server on 7233');
 */
export async function connectIfRunning(address: string, options: ConnectIfRunningOptions = {}): Promise<boolean> {
  const timeoutMs = options.timeoutMs ?? 3_000;
  let host: string;
  let port: number;
  try {
    ({ host, port } = parseAddress(address));
  } catch {
    return false;
  }
  // gRPC waits out its whole connect timeout on a closed port; a plain TCP connect is refused at once.
  if (!(await acceptsConnections(host, port, timeoutMs))) return false;
  if (!(await completesHttp2Handshake(host, port, timeoutMs))) return false;
  const connection = Connection.lazy({ address, connectTimeout: timeoutMs });
  try {
    await connection.ensureConnected();
    await connection.workflowService.describeNamespace({ namespace: options.namespace ?? 'default' });
    return true;
  } catch {
    return false;
  } finally {
    await connection.close().catch(() => undefined);
  }
}

/**
 * Connects to `address`, closing the channel again when that fails: `Connection.connect` leaves a failed channel
 * open, which keeps the process alive and the remote socket busy.
 */
export async function connectOrClose(address: string, timeoutMs: number): Promise<Connection> {
  const connection = Connection.lazy({ address, connectTimeout: timeoutMs });
  try {
    await connection.ensureConnected();
    return connection;
  } catch (error) {
    await connection.close().catch(() => undefined);
    throw error;
  }
}

/** Whether the namespace exists and every search attribute is registered with its type. */
export async function probeReadiness(
  connection: Connection,
  namespace: string,
  searchAttributes: Readonly<Record<string, SearchAttributeTypeName>>,
): Promise<ServerReadiness> {
  try {
    await connection.workflowService.describeNamespace({ namespace });
  } catch (error) {
    return { type: 'not-ready', reason: `namespace "${namespace}" is not available yet (${describe(error)})` };
  }
  const wanted = Object.entries(searchAttributes);
  if (wanted.length === 0) return { type: 'ready' };
  let registered: Record<string, number>;
  try {
    const response = await connection.operatorService.listSearchAttributes({ namespace });
    registered = (response.customAttributes ?? {}) as Record<string, number>;
  } catch (error) {
    return { type: 'not-ready', reason: `search attributes cannot be listed yet (${describe(error)})` };
  }
  for (const [name, type] of wanted) {
    const actual = registered[name];
    if (actual === undefined) return { type: 'not-ready', reason: `search attribute ${name} is not registered yet` };
    if (actual !== indexedValueTypes[type]) {
      return {
        type: 'unusable',
        reason:
          `search attribute ${name} is registered as ${typeNameOf(actual)}, not ${type}. ` +
          'Use a fresh database file (or delete this one) so it can be registered with the right type.',
      };
    }
  }
  return { type: 'ready' };
}

function typeNameOf(code: number): string {
  return Object.entries(indexedValueTypes).find(([, value]) => value === code)?.[0] ?? `type ${code}`;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
