import { loadClientConnectConfig } from '@temporalio/envconfig';

/** Default task queue of Tollgate workers and turns. */
export const defaultTaskQueue = 'tollgate';

/** Where Temporal is and which namespace and task queue Tollgate uses. */
export interface TemporalSettings {
  /** Host and port, TLS and API key, as the Temporal SDK's environment configuration defines them. */
  connectionOptions: ReturnType<typeof loadClientConnectConfig>['connectionOptions'];
  namespace: string;
  /** The task queue turns are started on. */
  taskQueue: string;
  /**
   * Every task queue whose turns are listed and decided, `taskQueue` among them (`TOLLGATE_TASK_QUEUES`): a gateway or
   * CLI in front of workers on several queues.
   */
  taskQueues?: string[];
  /** The config-file profile the settings came from, when one was named (`TEMPORAL_PROFILE`). */
  profile?: string;
}

/**
 * Reads the connection the way every Temporal SDK and the `temporal` CLI do: the profile named by
 * `TEMPORAL_PROFILE` (else `default`) of the TOML file at `TEMPORAL_CONFIG_FILE` (else
 * `~/.config/temporalio/temporal.toml`), overridden by `TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`,
 * `TEMPORAL_API_KEY`, `TEMPORAL_TLS*` and `TEMPORAL_GRPC_META_*`; plus `TOLLGATE_TASK_QUEUE` (where turns start) and
 * `TOLLGATE_TASK_QUEUES` (comma-separated: more queues whose turns are listed and decided).
 * An API key turns TLS on, as Temporal Cloud requires.
 *
 * @throws TypeError naming the variable when a named profile does not exist or the file cannot be read.
 * @example
 * // TEMPORAL_ADDRESS=my-ns.a1b2c.tmprl.cloud:7233 TEMPORAL_NAMESPACE=my-ns.a1b2c TEMPORAL_API_KEY=...
 * const { connectionOptions, namespace } = temporalSettingsFromEnvironment();
 * const connection = await NativeConnection.connect(connectionOptions);
 */
export function temporalSettingsFromEnvironment(environment: NodeJS.ProcessEnv = process.env): TemporalSettings {
  const overrideEnvVars = Object.fromEntries(
    // An empty variable counts as unset (compose's `${X:-}` yields ""): an empty API key must not turn TLS on.
    Object.entries(environment).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ''),
  );
  let loaded: ReturnType<typeof loadClientConnectConfig>;
  try {
    loaded = loadClientConnectConfig({ overrideEnvVars });
  } catch (error) {
    const file = environment.TEMPORAL_CONFIG_FILE ?? 'the default Temporal config file';
    throw new TypeError(
      `Cannot read the Temporal connection settings (TEMPORAL_PROFILE=${environment.TEMPORAL_PROFILE ?? ''}, ` +
        `${file}): ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const { connectionOptions, namespace } = loaded;
  const taskQueue = environment.TOLLGATE_TASK_QUEUE || defaultTaskQueue;
  const taskQueues = (environment.TOLLGATE_TASK_QUEUES ?? '')
    .split(',')
    .map((queue) => queue.trim())
    .filter((queue) => queue !== '');
  return {
    connectionOptions: { ...connectionOptions, address: connectionOptions.address ?? 'localhost:7233' },
    namespace: namespace ?? 'default',
    taskQueue,
    ...(taskQueues.length > 0 && { taskQueues: [...new Set([taskQueue, ...taskQueues])] }),
    ...(environment.TEMPORAL_PROFILE && { profile: environment.TEMPORAL_PROFILE }),
  };
}

/** Whether the settings connect with TLS (explicitly, or because an API key is set). */
export function usesTls(settings: TemporalSettings): boolean {
  const { tls, apiKey } = settings.connectionOptions;
  return tls === undefined ? apiKey !== undefined : tls !== false && tls !== null;
}

/** One line for logs and error messages: where, which namespace, how; never the key itself. */
export function describeTemporalSettings(settings: TemporalSettings): string {
  const how = [
    usesTls(settings) ? 'TLS' : 'no TLS',
    ...(settings.connectionOptions.apiKey !== undefined ? ['API key'] : []),
    ...(settings.profile ? [`profile "${settings.profile}"`] : []),
  ];
  return `${settings.connectionOptions.address}, namespace "${settings.namespace}" (${how.join(', ')})`;
}
