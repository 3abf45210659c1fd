import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ModelMessage, ToolResultPart } from '../../src/protocol';
import { FileContentStore } from '../../src/store/file-content-store';
import { resolveStoredContent, storeLargeOutput, storedContentTurn } from '../../src/store/stored-output';

const big = (word: string): ToolResultPart => ({
  type: 'tool-result',
  toolCallId: 'call-1',
  toolName: 'lookup',
  output: { type: 'text', value: `${word} `.repeat(2_000) },
});

const toolMessage = (part: ToolResultPart): ModelMessage => ({ role: 'tool', content: [part] });

describe('stored tool outputs', () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'tollgate-store-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('names the turn that produced a stored output in its stub', async () => {
    const stub = await storeLargeOutput(new FileContentStore(folder), big('alpha'), 'turn-a');
    expect(stub.output.type).toBe('text');
    expect(storedContentTurn(stub)).toBe('turn-a');
  });

  it('gives the model an error it can read for an output the store does not have, with the preview it kept', async () => {
    const stub = await storeLargeOutput(new FileContentStore(folder), big('beta'), 'turn-a');
    const ref = stub.providerOptions?.tollgate?.contentRef as string;
    const [message] = await resolveStoredContent(new FileContentStore(path.join(folder, 'elsewhere')), [
      toolMessage(stub),
    ]);
    const [part] = (message?.content ?? []) as ToolResultPart[];
    expect(part?.output).toEqual({
      type: 'error-text',
      value: expect.stringContaining(
        `The full output of this lookup call (${ref}) is not available: it is not in the content store.`,
      ),
    });
    expect(JSON.stringify(part?.output)).toContain('beta beta');
  });

  it('gives the model an error for stored content that is not a tool output', async () => {
    const store = new FileContentStore(folder);
    const ref = await store.put({ type: 'tollgate-transcript', previous: null, messages: [] });
    const stub: ToolResultPart = { ...big('gamma'), providerOptions: { tollgate: { contentRef: ref } } };
    const [message] = await resolveStoredContent(store, [toolMessage(stub)]);
    expect(((message?.content ?? []) as ToolResultPart[])[0]?.output).toMatchObject({
      type: 'error-text',
      value: expect.stringContaining('what is stored under it is not a tool output'),
    });
  });

  it('puts a stored output back in full for the model', async () => {
    const store = new FileContentStore(folder);
    const original = big('delta');
    const stub = await storeLargeOutput(store, original, 'turn-a');
    const [message] = await resolveStoredContent(new FileContentStore(folder), [toolMessage(stub)]);
    expect(((message?.content ?? []) as ToolResultPart[])[0]?.output).toEqual(original.output);
  });
});
