import { lastAssistantMessageIsCompleteWithApprovalResponses } from 'ai';
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { killProcess, spawnWorkerProcess } from '../../support/spawn-worker-process';
import { uniqueMarker } from '../../support/test-environment';
import { eventually, NodeChat, startChatStack, type ChatStack } from './chat-fixture';
import { temporaryFolder } from '../../support/temporary-folder';

describe('GET /api/chat/:id/stream', () => {
  let stack: ChatStack;

  afterEach(async () => {
    await stack.close();
  });

  it('replays the assistant message from its start after the client dropped mid-stream', async () => {
    stack = await startChatStack();
    const marker = uniqueMarker();
    const words = Array.from({ length: 40 }, (_value, index) => `w${index}`).join(' ');
    stack.model.scriptFor(marker, { text: words, streamDelayMs: 50 });
    const first = new NodeChat(stack.gateway, { id: `drop-${marker.slice(6, 14)}` });

    const sending = first.sendMessage({ text: `${marker} talk slowly` });
    await eventually(
      () => first.text(),
      (text) => text.length > 0,
    );
    await first.stop();
    await sending;
    expect(first.text().length).toBeLessThan(words.length);

    // A reload: a new page with no messages, resuming as useChat({ resume: true }) does.
    const reloaded = new NodeChat(stack.gateway, { id: first.id });
    await reloaded.resumeStream();
    await eventually(
      () => reloaded.status === 'ready' && reloaded.text() === words,
      (done) => done,
    );
    expect(reloaded.messages).toHaveLength(1);
    expect(reloaded.messages[0]?.id).toBe(first.latestMessage()?.id);
    expect((await stack.gateway.call('GET', `/api/chat/${first.id}/stream`)).status).toBe(204);
  });

  it('shows a waiting approval after the worker is killed and replaced, and deciding it after the reload works', async () => {
    stack = await startChatStack({ worker: false });
    const runLog = path.join(temporaryFolder('tollgate-chat-'), 'runs.jsonl');
    const spawnWorker = () => spawnWorkerProcess({ taskQueue: stack.taskQueue, modelURL: stack.model.baseURL, runLog });
    let worker = await spawnWorker();
    try {
      const marker = uniqueMarker();
      stack.model.scriptFor(
        marker,
        { text: 'Deleting.', toolCalls: [{ name: 'deleteFile', arguments: { path: 'survivor.txt' } }] },
        { text: 'Deleted survivor.txt.' },
      );
      const first = new NodeChat(stack.gateway, { id: `kill-${marker.slice(6, 14)}` });
      await first.sendMessage({ text: `${marker} delete survivor.txt` });
      expect(first.toolParts()[0]).toMatchObject({ state: 'approval-requested' });

      await killProcess(worker, 'SIGKILL');
      worker = await spawnWorker();

      const reloaded = new NodeChat(stack.gateway, {
        id: first.id,
        sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
      });
      await reloaded.resumeStream();
      const [asked] = reloaded.toolParts() as unknown as Array<{
        state: string;
        approval: { id: string };
        input: unknown;
      }>;
      expect(asked).toMatchObject({ state: 'approval-requested', input: { path: 'survivor.txt' } });
      expect(reloaded.text()).toBe('Deleting.');

      await reloaded.addToolApprovalResponse({ id: asked?.approval.id as string, approved: true });
      await eventually(
        () => reloaded.status === 'ready' && reloaded.text().includes('Deleted survivor.txt.'),
        (done) => done,
        30_000,
      );
      const runs = existsSync(runLog) ? readFileSync(runLog, 'utf8').trim().split('\n') : [];
      expect(runs.filter((line) => line.includes('survivor.txt'))).toHaveLength(1);
    } finally {
      await killProcess(worker, 'SIGTERM');
    }
  });
});
