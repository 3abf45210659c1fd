import { temporal } from '@temporalio/proto';
import { z } from 'zod';
import { defineTool } from '../../../src/tools';
import {
  createTestEnvironment,
  scheduledActivities,
  uniqueMarker,
  waitForPending,
  type TestEnvironment,
} from '../../support/test-environment';
import { createTestTools } from '../../support/test-tools';

const { tools } = createTestTools();
const bigOutput = 'x'.repeat(32 * 1024);
const readBig = defineTool({
  name: 'readBig',
  description: 'Reads a large file (32 KiB).',
  inputSchema: z.object({ index: z.number() }),
  execute: ({ index }) => `${index}:${bigOutput}`,
});
let environment: TestEnvironment;

beforeAll(async () => {
  environment = await createTestEnvironment({ tools: [...tools, readBig] });
});
afterAll(async () => environment?.close());

describe('agentTurn history budget', () => {
  // The turn records no version marker, and so no TemporalChangeVersion search attribute either (2 events):
  // its behaviour changes are guarded by turn revisions, recorded with the first model step's result.
  it('writes at most 24 history events for a turn with one approved call, and no version marker', async () => {
    const marker = uniqueMarker();
    environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'a' } }] },
      { text: 'done' },
    );
    const handle = await environment.tollgate.startTurn({ messages: [{ role: 'user', content: `${marker} go` }] });
    const [approval] = await waitForPending(handle, 1);
    await environment.tollgate.decide(approval!.approvalId, { approved: true });
    await handle.result();
    const history = await handle.fetchHistory();
    const events = history.events ?? [];
    // A workflow task that timed out or failed on a busy worker is tried again (3 more events): the machine's, not the
    // turn's, so not counted.
    const retriedTasks = events.filter(
      (event) => event.workflowTaskTimedOutEventAttributes || event.workflowTaskFailedEventAttributes,
    ).length;
    expect(events.length - 3 * retriedTasks).toBeLessThanOrEqual(24);
    // The approved tool and the model's answer to its result run in one activity, as the bare workflow's one.
    expect(scheduledActivities(events)).toEqual(['runModelStep', 'runToolThenModelStep']);
    expect((await handle.result()).text).toBe('done');
    expect(events.filter((event) => event.markerRecordedEventAttributes)).toEqual([]);
    const upserted = events.flatMap((event) =>
      Object.keys(event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {}),
    );
    expect(upserted).not.toContain('TemporalChangeVersion');
  });

  it('keeps what each step adds to history bounded by the step, not by the transcript', async () => {
    const marker = uniqueMarker();
    const steps = 12;
    environment.model.scriptFor(
      marker,
      ...Array.from({ length: steps }, (_, index) => ({
        toolCalls: [{ id: `${marker}-${index}`, name: 'readBig', arguments: { index } }],
      })),
      { text: 'read them all' },
    );
    const handle = await environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${marker} read` }],
      maxSteps: steps + 1,
    });
    const result = await handle.result();
    expect(result.status).toBe('completed');
    const history = await handle.fetchHistory();
    const bytes = (history.events ?? []).map(
      (event) => temporal.api.history.v1.HistoryEvent.encode(event).finish().length,
    );
    const total = bytes.reduce((sum, size) => sum + size, 0);

    // 12 outputs of 32 KiB are 384 KiB; the history holds references and previews, not the outputs,
    // and no event carries the transcript so far: at most the inline tail since the stored head
    // (inlineTranscriptMaxBytes, 4 KiB).
    expect(total).toBeLessThan(steps * 6 * 1024);
    expect(Math.max(...bytes.slice(0, -1))).toBeLessThan(8 * 1024);
    // The result lists the turn's messages with previews in place of the large outputs.
    expect(bytes.at(-1)).toBeLessThan(steps * 1.5 * 1024);
    // The model still read every output in full.
    const lastRequest = environment.model.requestsFor(marker).at(-1);
    expect(JSON.stringify(lastRequest?.messages)).toContain(`11:${bigOutput}`);
  });
});
