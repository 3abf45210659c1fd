// What both promise counters (count-workflow-promises.cjs, count-decision-promises-hook.cjs) read of a promise a
// workflow thread creates: the workflow it belongs to, and the frames that created it. Plain CommonJS: it is loaded
// with `node --require`, before any TypeScript loader.
const holder = {};

/**
 * The workflow's `info` (from its global scope, as the SDK's vm-shared.js `getActivator` finds it) and the frames
 * that created `promise`, the hook's own and Node's left out; undefined for a promise outside workflow code.
 */
function workflowPromiseFrames(promise) {
  let activator;
  try {
    activator = promise.constructor.constructor('return globalThis.__TEMPORAL_ACTIVATOR__')();
  } catch {
    return undefined;
  }
  if (!activator || !activator.info) return undefined;
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 40;
  Error.captureStackTrace(holder);
  Error.stackTraceLimit = limit;
  const frames = holder.stack
    .split('\n')
    .slice(1)
    .map((line) => line.trim().replace(/^at /, ''))
    .filter(
      (frame) => !/^(init|initAll|PromiseHook|workflowPromiseFrames)\b/.test(frame) && !frame.startsWith('node:'),
    );
  return { info: activator.info, frames, isQuery: frames.some((frame) => frame.includes('queryWorkflow')) };
}

module.exports = { workflowPromiseFrames };
