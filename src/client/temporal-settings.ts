import { loadClientConnectConfig } from '@temporalio/envconfig';

/** Default task queue of Tollgate workers and turns. */
export const defaultTaskQueue = 'tollgate';

/** Where Temporal is and which namespace and task queue Tollgate uses. */
export interface TemporalSettings {
  /** Host and port, TLS and API key, as the Temporal SDK's environment configuration defines them. */
  connectionOptions: ReturnType<typeof loadClientConnectConfig>['connectionOptions'];
  namespace: string;
  taskQueue: string;
}

/**
 * Reads the connection the way every Temporal SDK does (`TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`,
 * `TEMPORAL_API_KEY`, `TEMPORAL_TLS*`, `TEMPORAL_PROFILE` and the config file), plus `TOLLGATE_TASK_QUEUE`.
 */
export function temporalSettingsFromEnvironment(environment: NodeJS.ProcessEnv = process.env): TemporalSettings {
  const { connectionOptions, namespace } = loadClientConnectConfig({
    overrideEnvVars: environment as Record<string, string>,
  });
  return {
    connectionOptions: { ...connectionOptions, address: connectionOptions.address ?? 'localhost:7233' },
    namespace: namespace ?? 'default',
    taskQueue: environment.TOLLGATE_TASK_QUEUE || defaultTaskQueue,
  };
}
