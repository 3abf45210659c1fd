import type * as Ai from 'ai';

/**
 * The AI SDK (UI messages and their streams), loaded on the chat's first request instead of with Tollgate's modules:
 * a worker that imports `createTollgateWorker` from `tollgate`, or a gateway without the chat, does not load it.
 */
export function aiSdk(): typeof Ai {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('ai') as typeof Ai;
}
