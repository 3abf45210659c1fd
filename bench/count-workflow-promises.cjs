// Counts the promises workflow code creates, for the sandbox's promise hook records a stack for each (see
// docs/performance.md). Preload it into the bench's workers:
//
//   TOLLGATE_BENCH_WORKER_NODE_ARGS='--require ./bench/count-workflow-promises.cjs' npm run bench -- --only burst …
//
// Every 2 s each workflow thread writes .tollgate/bench/promises/promises-<pid>-<thread>.json: per workflow id, the
// promises created in each activation by the history length it ran at (`h9`: the workflow task started at event 9),
// queries apart; and per workflow type and history length, the frames that created them. It captures a stack per
// promise itself, so a run with it is for counting, not for timing.
const { isMainThread, threadId } = require('node:worker_threads');
const v8 = require('node:v8');
const { workflowPromiseFrames } = require('./workflow-promise-frames.cjs');
const fs = require('node:fs');
const path = require('node:path');

if (!isMainThread) {
  const folder = path.resolve(__dirname, '../.tollgate/bench/promises');
  fs.mkdirSync(folder, { recursive: true });
  const counts = new Map();
  const sites = new Map();
  v8.promiseHooks.createHook({
    init(promise) {
      const created = workflowPromiseFrames(promise);
      if (!created) return;
      const own = created.frames.map((frame) => frame.replace(/ \(.*$/, ''));
      const kind = created.isQuery ? 'query' : `h${created.info.historyLength}`;
      const { workflowId, workflowType } = created.info;
      let entry = counts.get(workflowId);
      if (!entry) counts.set(workflowId, (entry = {}));
      entry[kind] = (entry[kind] || 0) + 1;
      const site = `${workflowType}|${kind}|${own.slice(0, 4).join(' < ')}`;
      sites.set(site, (sites.get(site) || 0) + 1);
    },
  });
  const file = path.join(folder, `promises-${process.pid}-${threadId}.json`);
  setInterval(() => {
    const snapshot = { at: Date.now(), counts: Object.fromEntries(counts), sites: Object.fromEntries(sites) };
    fs.writeFileSync(file, JSON.stringify(snapshot));
  }, 2000).unref();
}
