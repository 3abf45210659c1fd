import { MockActivityEnvironment } from '@temporalio/testing';
import type { ModelStreamProgress } from '../../../src/activities/model/model-stream-progress';
import { StepHeartbeat } from '../../../src/activities/model/step-heartbeat';
import type { ToolResultPart } from '../../../src/protocol';

const result: ToolResultPart = {
  type: 'tool-result',
  toolCallId: 'call-1',
  toolName: 'deleteFile',
  output: { type: 'json', value: { deleted: 'a.txt' } },
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `run` in a mock activity and collects the details of every heartbeat it makes. */
async function beatsOf(
  info: ConstructorParameters<typeof MockActivityEnvironment>[0],
  run: (heartbeat: StepHeartbeat) => Promise<void>,
): Promise<ModelStreamProgress[]> {
  const environment = new MockActivityEnvironment(info);
  const beats: ModelStreamProgress[] = [];
  environment.on('heartbeat', (details: unknown) => beats.push(details as ModelStreamProgress));
  await environment.run(() => run(StepHeartbeat.current()));
  return beats;
}

describe('StepHeartbeat', () => {
  it('keeps a step alive with its latest details while the model says nothing, within the heartbeat timeout', async () => {
    const beats = await beatsOf({ heartbeatTimeoutMs: 600 }, async (heartbeat) => {
      const stop = heartbeat.keepAlive();
      await sleep(700);
      stop();
      await sleep(400);
    });
    // Every 200 ms (a third of the timeout): three beats in 700 ms, none after the stop.
    expect(beats.length).toBeGreaterThanOrEqual(2);
    expect(beats.length).toBeLessThanOrEqual(4);
    expect(beats[0]).toMatchObject({ type: 'tollgate-model-stream', text: '', attempt: 1 });
  });

  it('sends no beat at all for a step that ends before the first keep-alive', async () => {
    const beats = await beatsOf({ heartbeatTimeoutMs: 30_000 }, async (heartbeat) => {
      const stop = heartbeat.keepAlive();
      await sleep(300);
      stop();
    });
    expect(beats).toEqual([]);
  });

  it("carries the checkpointed tool results in the model's progress and in the keep-alive", async () => {
    const beats = await beatsOf({ heartbeatTimeoutMs: 300 }, async (heartbeat) => {
      heartbeat.checkpoint([result]);
      const stop = heartbeat.keepAlive();
      await sleep(150);
      heartbeat.sink?.({ type: 'tollgate-model-stream', attempt: 1, text: 'Deleted', reasoning: '', toolCalls: [] });
      stop();
    });
    expect(beats.at(0)).toMatchObject({ text: '', toolResults: [result] });
    expect(beats.at(-1)).toMatchObject({ text: 'Deleted', toolResults: [result] });
  });

  it('reads the result an earlier attempt checkpointed, for that call only', async () => {
    const previous = { type: 'tollgate-model-stream', attempt: 1, text: 'Del', reasoning: '', toolCalls: [] };
    const found: Array<ToolResultPart | undefined> = [];
    await beatsOf({ attempt: 2, heartbeatDetails: { ...previous, toolResults: [result] } }, async (heartbeat) => {
      found.push(heartbeat.checkpointed('call-1'), heartbeat.checkpointed('call-2'));
    });
    await beatsOf({ attempt: 2, heartbeatDetails: previous }, async (heartbeat) => {
      found.push(heartbeat.checkpointed('call-1'));
    });
    expect(found).toEqual([result, undefined, undefined]);
  });

  it('does nothing in a local activity, which cannot heartbeat', async () => {
    const beats = await beatsOf({ isLocal: true, heartbeatTimeoutMs: 300 }, async (heartbeat) => {
      expect(heartbeat.sink).toBeUndefined();
      const stop = heartbeat.keepAlive();
      await sleep(250);
      stop();
    });
    expect(beats).toEqual([]);
  });
});
