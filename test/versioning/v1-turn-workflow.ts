// A stand-in for a turn started before `turn-v2`: registered as `agentTurn`, its first command schedules
// `describeTools`, as the frozen v1 turn's does, and then it waits. Today's code cannot start a v1 turn (a
// new execution on a worker that still runs v1 turns records the marker and runs v2).
import { condition, proxyActivities } from '@temporalio/workflow';

const { describeTools } = proxyActivities<{ describeTools(): Promise<unknown[]> }>({ startToCloseTimeout: '1m' });

export async function agentTurn(): Promise<void> {
  await describeTools();
  await condition(() => false);
}
