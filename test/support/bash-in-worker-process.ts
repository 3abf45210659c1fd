// A stand-in worker for tests: a process started with secrets in its environment that creates the workspace tools
// (options as JSON in argv[2]) and runs one bash command (argv[3]), as the worker's tool activity would. Prints
// `{ "result": … }`, or `{ "error": message }` when the tools refuse to be created.
import { createWorkspaceTools, type WorkspaceToolsOptions } from '../../src/tools/workspace';

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? '{}') as WorkspaceToolsOptions;
  let tools;
  try {
    tools = createWorkspaceTools(options);
  } catch (error) {
    console.log(JSON.stringify({ error: (error as Error).message }));
    return;
  }
  const bash = tools.find((tool) => tool.name === 'bash');
  if (bash === undefined) {
    console.log(JSON.stringify({ tools: tools.map((tool) => tool.name) }));
    return;
  }
  const result = await bash.execute!(
    { command: process.argv[3] ?? 'true' },
    { toolCallId: 'call-1', abortSignal: new AbortController().signal, heartbeat: () => {} },
  );
  console.log(JSON.stringify({ result }));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
