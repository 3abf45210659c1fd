// Task queue names go into Temporal's list filter, a string with no parameters: a name outside this alphabet is
// refused, never escaped.
const safeTaskQueue = /^[A-Za-z0-9._:@+=~/-]{1,1000}$/;

/**
 * The part of a visibility query that keeps the turns of these task queues, e.g. `(TaskQueue = 'a' OR TaskQueue = 'b')`.
 *
 * @throws TypeError naming a queue whose characters a visibility query cannot carry, or when no queue is given.
 */
export function taskQueuesFilter(taskQueues: readonly string[]): string {
  if (taskQueues.length === 0) throw new TypeError('No task queue to list turns on.');
  const terms = taskQueues.map((queue) => {
    if (!safeTaskQueue.test(queue))
      throw new TypeError(`The task queue "${queue}" holds characters a visibility query cannot carry.`);
    return `TaskQueue = '${queue}'`;
  });
  return terms.length === 1 ? terms[0]! : `(${terms.join(' OR ')})`;
}

/** One phrase for start-up lines and empty lists: `task queue "tollgate"` or `task queues "a", "b"`. */
export function describeTaskQueues(taskQueues: readonly string[]): string {
  const names = taskQueues.map((queue) => `"${queue}"`).join(', ');
  return taskQueues.length === 1 ? `task queue ${names}` : `task queues ${names}`;
}
