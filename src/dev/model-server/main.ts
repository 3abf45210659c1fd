import { startModelServer } from './start-model-server';

const defaultPort = 8787;

/** Runs the scripted model server in rules mode, for the demo when no OPENAI_API_KEY is set. */
async function main(): Promise<void> {
  const port = parsePort(process.env.TOLLGATE_MODEL_SERVER_PORT);
  const server = await startModelServer({ port, rules: true });
  try {
    console.log(`Scripted model server (rules mode) listening at ${server.baseURL}`);
    console.log(`Point the agent at it with OPENAI_BASE_URL=${server.baseURL}`);
    await shutdownSignal();
  } finally {
    await server.close();
  }
}

function parsePort(value: string | undefined): number {
  if (value === undefined || value === '') return defaultPort;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`TOLLGATE_MODEL_SERVER_PORT must be a port number, got "${value}"`);
  }
  return port;
}

function shutdownSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
