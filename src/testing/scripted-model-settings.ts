import type { ModelSettings } from '../activities';
import { scriptedModelName, type ModelServer } from '../dev/model-server';

/**
 * The worker's `model` option for a scripted model server: its address, a placeholder key and the scripted model's
 * name.
 *
 * @example
 * const model = await startModelServer();
 * const worker = await createTollgateWorker({ connection, taskQueue, tools, model: scriptedModelSettings(model) });
 */
export function scriptedModelSettings(server: Pick<ModelServer, 'baseURL'>): ModelSettings {
  return { baseURL: server.baseURL, apiKey: scriptedModelName, model: scriptedModelName };
}
