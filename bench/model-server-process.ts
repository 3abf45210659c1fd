// The scripted model server in a process of its own, so that answering the turns' model calls (JSON or a stream of
// chunks) does not take CPU from the benchmark's own process, which starts turns, sends decisions and polls.
// Started by model-process.ts over an IPC channel.
import { startModelServer } from '../src/dev/model-server';
import type { ModelProcessMessage, ModelServerMessage } from './model-process';

function send(message: ModelServerMessage): void {
  process.send?.(message);
}

async function main(): Promise<void> {
  const model = await startModelServer();
  process.on('message', (message: ModelProcessMessage) => {
    if (message.type === 'script') {
      model.scriptFor(message.marker, ...message.replies);
      send({ type: 'scripted', id: message.id });
    } else if (message.type === 'failures') {
      send({ type: 'failures', id: message.id, failures: [...model.failures] });
    } else {
      void model.close().finally(() => process.exit(0));
    }
  });
  // The benchmark went away: nothing is left to answer.
  process.on('disconnect', () => void model.close().finally(() => process.exit(0)));
  send({ type: 'ready', baseURL: model.baseURL });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
