// The promise hook of bench/count-decision-promises.ts: in each workflow thread, counts the promises workflow code
// creates per workflow and activation (by the history length the activation ran at), queries apart, with the frames
// that created them, and sends the counts to the main thread, which keeps them in
// `globalThis.__tollgateDecisionPromiseRecords__`. It captures a stack per promise: a counting run, not a timing one.
const { BroadcastChannel, isMainThread } = require('node:worker_threads');
const v8 = require('node:v8');
const { workflowPromiseFrames } = require('./workflow-promise-frames.cjs');

const channel = new BroadcastChannel('tollgate-decision-promises');
channel.unref();

if (isMainThread) {
  const records = { counts: new Map(), sites: new Map() };
  globalThis.__tollgateDecisionPromiseRecords__ = records;
  const at = (map, key, make) => map.get(key) ?? map.set(key, make()).get(key);
  channel.onmessage = ({ data }) => {
    for (const { workflowId, historyLength, site } of data) {
      const counts = at(records.counts, workflowId, () => new Map());
      counts.set(historyLength, (counts.get(historyLength) ?? 0) + 1);
      const sites = at(
        at(records.sites, workflowId, () => new Map()),
        historyLength,
        () => new Map(),
      );
      sites.set(site, (sites.get(site) ?? 0) + 1);
    }
  };
} else {
  let pending = [];
  // Each promise's site, so that a `then` V8 calls from a microtask (a promise resolved with another promise) is
  // named by the promise it was called on: its own stack says only that a microtask ran.
  const sites = new WeakMap();
  const short = (frames) =>
    frames
      .slice(0, 5)
      .map((frame) => frame.replace(/\/work\/[^ ]*\/(src|node_modules)\//, '$1/'))
      .join(' < ');
  v8.promiseHooks.createHook({
    init(promise, parent) {
      const created = workflowPromiseFrames(promise);
      if (!created || created.isQuery) return;
      let site = short(created.frames);
      const fromMicrotask = created.frames[0]?.startsWith('Promise.then') && created.frames[1]?.startsWith('Script.');
      if (fromMicrotask && parent && sites.has(parent))
        site = `Promise.then from a microtask, on: ${sites.get(parent)}`;
      sites.set(promise, site);
      pending.push({ workflowId: created.info.workflowId, historyLength: created.info.historyLength, site });
    },
  });
  setInterval(() => {
    if (pending.length === 0) return;
    channel.postMessage(pending);
    pending = [];
  }, 100).unref();
}
