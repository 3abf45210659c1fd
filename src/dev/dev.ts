import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { modelSettingsFromEnvironment } from '../activities';
import { temporalSettingsFromEnvironment } from '../client/temporal-settings';
import { createWorkspaceTools, resolveWorkspaceRoot } from '../tools/workspace';
import { createTollgateWorker } from '../worker';
import { startDevServer, type DevServer } from './dev-server';
import { ensureSearchAttributes } from './ensure-search-attributes';
import { startModelServer, type ModelServer } from './model-server';
import { tollgateSearchAttributes } from './search-attributes';

const stateFolder = path.resolve('.tollgate');

/**
 * `npm run dev`: the real Temporal dev server (SQLite under .tollgate/, so approvals survive restarts),
 * the scripted model server unless OPENAI_API_KEY is set, and a worker with the workspace tools.
 */
async function main(): Promise<void> {
  mkdirSync(stateFolder, { recursive: true });
  const temporal = temporalSettingsFromEnvironment();
  const address = temporal.connectionOptions.address ?? 'localhost:7233';
  let devServer: DevServer | undefined;
  let modelServer: ModelServer | undefined;
  let temporalNote: string;

  if (process.env.TEMPORAL_ADDRESS || (await temporalAnswers(address))) {
    const connection = await Connection.connect(temporal.connectionOptions as Parameters<typeof Connection.connect>[0]);
    try {
      if (await ensureSearchAttributes(connection, temporal.namespace))
        console.log('Registered the TollgatePendingApprovals search attribute.');
    } finally {
      await connection.close();
    }
    temporalNote = `${address} (already running; not started here)`;
  } else {
    console.log('Starting the Temporal dev server…');
    devServer = await startDevServer({
      port: 7233,
      ui: true,
      uiPort: 8233,
      dbFilename: path.join(stateFolder, 'temporal.db'),
      namespace: temporal.namespace,
      searchAttributes: tollgateSearchAttributes,
      log: (line) => console.log(`  ${line}`),
    });
    temporalNote = `${devServer.address} (state in ${path.relative(process.cwd(), path.join(stateFolder, 'temporal.db'))})`;
  }

  const model = modelSettingsFromEnvironment();
  let modelNote = `${model.model} at ${model.baseURL ?? 'https://api.openai.com/v1'}`;
  if (!process.env.OPENAI_API_KEY) {
    modelServer = await startModelServer({ rules: true, port: Number(process.env.TOLLGATE_MODEL_SERVER_PORT ?? 0) });
    model.baseURL = modelServer.baseURL;
    modelNote = `scripted model server at ${modelServer.baseURL} (set OPENAI_API_KEY for a real model)`;
  }

  const workspace = resolveWorkspaceRoot();
  const connection = await NativeConnection.connect(temporal.connectionOptions);
  const worker = await createTollgateWorker({
    connection,
    namespace: temporal.namespace,
    taskQueue: temporal.taskQueue,
    tools: createWorkspaceTools({ root: workspace }),
    model,
  });

  const uiUrl = devServer?.uiUrl ?? 'your Temporal UI';
  console.log(`
Tollgate is running.
  Temporal UI   ${uiUrl}
  Temporal      ${temporalNote}
  Model         ${modelNote}
  Workspace     ${workspace}
  Task queue    ${temporal.taskQueue}

In another terminal, try:
  npx tollgate run "write hello to notes.txt"     the turn waits for your approval
  npx tollgate pending                             what waits, with approvalIds
  npx tollgate approve <approvalId>                or: npx tollgate deny <approvalId> --reason "not now"

Ctrl-C stops everything; pending approvals are kept and resume on the next npm run dev.
`);

  const stop = () => worker.shutdown();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    await worker.run();
  } finally {
    await connection.close();
    await modelServer?.close();
    await devServer?.stop();
  }
}

async function temporalAnswers(address: string): Promise<boolean> {
  try {
    const connection = await Connection.connect({ address, connectTimeout: 1000 });
    await connection.close();
    return true;
  } catch {
    return false;
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
