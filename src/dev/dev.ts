import { Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { modelSettingsFromEnvironment } from '../activities';
import { TollgateClient } from '../client';
import { temporalSettingsFromEnvironment } from '../client/temporal-settings';
import { createGateway } from '../gateway/create-gateway';
import { DecisionAudit } from '../gateway/decisions/decision-audit';
import { decisionPublicKeyOf, decisionSigningKeyFromEnvironment } from '../gateway/decisions/decision-signing-key';
import {
  answerOnlyOwnHost,
  devGatewayLogger,
  ensureDevAccess,
  ensureDevDecisionKey,
  reportGatewayFailures,
} from '../gateway/dev-gateway';
import { gatewayChannelsFromEnvironment } from '../gateway/gateway-channels-from-environment';
import { gatewaySettingsFromEnvironment } from '../gateway/gateway-settings';
import { notifiersFromEnvironment } from '../notifications/notifiers-from-environment';
import {
  createWorkspaceTools,
  describeToolSandbox,
  resolveWorkspaceRoot,
  workspaceToolsOptionsFromEnvironment,
} from '../tools/workspace';
import { mcpServersFromEnvironment } from '../tools/mcp';
import { createTollgateWorker, workerSettingsFromEnvironment } from '../worker';
import { startChatExample } from './serve-chat-example';
import { cachedWorkflowBundle } from '../workflow-bundle-cache';
import { stateFolderFromEnvironment } from '../state-folder';
import { startDevServer, type DevServer } from './dev-server';
import { ensureSearchAttributes } from './ensure-search-attributes';
import { connectIfRunning } from './temporal-server-probe';
import { startModelServer, type ModelServer } from './model-server';
import { tollgateSearchAttributes } from './search-attributes';

const stateFolder = stateFolderFromEnvironment();
const temporalPort = Number(process.env.TOLLGATE_DEV_PORT || 7233);
const uiPort = Number(process.env.TOLLGATE_DEV_UI_PORT || 8233);

/**
 * `npm run dev`: the real Temporal dev server (SQLite under .tollgate/, so approvals survive restarts),
 * the scripted model server unless OPENAI_API_KEY is set, and a worker with the workspace tools.
 */
async function main(): Promise<void> {
  // The worker's own progress is shown by the CLI; keep this terminal for what matters.
  Runtime.install({ logger: new DefaultLogger('WARN') });
  mkdirSync(stateFolder, { recursive: true });
  // The gateway's files (token, access file, signing key, audit, log) live here, outside the tools' workspace.
  const gatewayFolder = path.join(stateFolder, 'gateway');
  const gatewayTokenFile = path.join(stateFolder, 'gateway-token');
  // Before the worker is made: it takes the gateway's public key from TOLLGATE_DECISION_PUBLIC_KEYS.
  const decisionKey = ensureDevDecisionKey(gatewayFolder);
  trustExportedSigningKey(process.env);
  const toolSettings = workspaceToolsOptionsFromEnvironment();
  const workspace = resolveWorkspaceRoot(toolSettings.root);
  // First, so that a sandbox that cannot keep the gateway's secrets from bash stops here, before anything starts.
  // The gateway runs in this process: its files must stay out of every tool's reach (`sandbox: 'none'` refuses).
  const tools = createWorkspaceTools({
    ...toolSettings,
    root: workspace,
    sandbox: {
      ...toolSettings.sandbox,
      protectedPaths: [
        gatewayFolder,
        gatewayTokenFile,
        ...['TOLLGATE_ACCESS_FILE', 'TOLLGATE_GATEWAY_TOKENS_FILE', 'TOLLGATE_GATEWAY_AUDIT_FILE']
          .map((name) => process.env[name])
          .filter((file): file is string => Boolean(file)),
      ],
    },
  });
  const temporal = temporalSettingsFromEnvironment();
  const address = process.env.TEMPORAL_ADDRESS || `localhost:${temporalPort}`;
  let devServer: DevServer | undefined;
  let modelServer: ModelServer | undefined;
  let temporalNote: string;

  if (process.env.TEMPORAL_ADDRESS || (await connectIfRunning(address))) {
    const connection = await Connection.connect({
      ...(temporal.connectionOptions as Parameters<typeof Connection.connect>[0]),
      address,
    });
    try {
      for (const name of await ensureSearchAttributes(connection, temporal.namespace))
        console.log(`Registered the ${name} search attribute.`);
    } finally {
      await connection.close();
    }
    temporalNote = `${address} (already running; not started here)`;
  } else {
    console.log('Starting the Temporal dev server…');
    devServer = await startDevServer({
      port: temporalPort,
      ui: true,
      uiPort,
      dbFilename: path.join(stateFolder, 'temporal.db'),
      namespace: temporal.namespace,
      searchAttributes: tollgateSearchAttributes,
      log: (line) => console.log(`  ${line}`),
    });
    temporalNote = `${devServer.address} (state in ${path.join(stateFolder, 'temporal.db')})`;
  }

  const model = modelSettingsFromEnvironment();
  let modelNote = `${model.model} at ${model.baseURL ?? 'https://api.openai.com/v1'}`;
  if (!process.env.OPENAI_API_KEY) {
    modelServer = await startModelServer({ rules: true, port: Number(process.env.TOLLGATE_MODEL_SERVER_PORT ?? 0) });
    model.baseURL = modelServer.baseURL;
    modelNote = `scripted model server at ${modelServer.baseURL} (set OPENAI_API_KEY for a real model)`;
  }

  const connection = await NativeConnection.connect({
    ...temporal.connectionOptions,
    address: devServer?.address ?? address,
  });
  const worker = await createTollgateWorker({
    connection,
    namespace: temporal.namespace,
    taskQueue: temporal.taskQueue,
    tools,
    model,
    // The policy (the gateway's decision key), the store and the approval secret, as `npm run worker` reads them.
    ...workerSettingsFromEnvironment(),
    notifiers: notifiersFromEnvironment(),
    // MCP servers the environment lists (TOLLGATE_MCP_SERVERS, TOLLGATE_MCP_SERVERS_FILE), as `npm run worker` does.
    mcpServers: mcpServersFromEnvironment(),
    workflowBundle: await cachedWorkflowBundle(stateFolder, (line) => console.log(line)),
  });

  // The approval gateway, with a token of its own when none is configured (kept for the CLI).
  const gatewayToken = ensureDevAccess(gatewayFolder, gatewayTokenFile, process.env.USER || 'developer');
  const gatewayLog = path.join(gatewayFolder, 'gateway.log');
  const tollgate = await TollgateClient.connect({
    ...temporal,
    connectionOptions: { ...temporal.connectionOptions, address: devServer?.address ?? address },
  });
  // The example chat page (examples/chat) is served on its own origin, which may call the chat routes.
  const chatExamplePort = Number(process.env.TOLLGATE_CHAT_EXAMPLE_PORT || 8789);
  process.env.TOLLGATE_CHAT_ALLOWED_ORIGINS = [
    process.env.TOLLGATE_CHAT_ALLOWED_ORIGINS,
    `http://127.0.0.1:${chatExamplePort}`,
  ]
    .filter(Boolean)
    .join(',');
  const gatewaySettings = gatewaySettingsFromEnvironment();
  const gateway = await createGateway({
    tollgate,
    tokens: gatewaySettings.tokens,
    people: gatewaySettings.people,
    ...(gatewaySettings.signingKey && { signingKey: gatewaySettings.signingKey }),
    audit: new DecisionAudit({ file: gatewaySettings.auditFile ?? path.join(gatewayFolder, 'audit.jsonl') }),
    rateLimit: gatewaySettings.rateLimit,
    bodyLimitBytes: gatewaySettings.bodyLimitBytes,
    channels: gatewayChannelsFromEnvironment(gatewaySettings.tokens),
    logger: devGatewayLogger(gatewayLog),
    // The workspace its own worker's tools use, which the gateway's records must stay out of.
    workspace,
  });
  reportGatewayFailures(gateway, (line) => console.error(line), gatewayLog);
  // On loopback, a DNS-rebinding page in the developer's browser could reach it: only its own Host names answer.
  if (['127.0.0.1', 'localhost', '::1'].includes(gatewaySettings.host)) answerOnlyOwnHost(gateway);
  await gateway.listen({ port: gatewaySettings.port, host: gatewaySettings.host });
  const gatewayUrl = `http://${gatewaySettings.host}:${(gateway.server.address() as { port: number }).port}`;
  // The CLI on this machine decides through this gateway (the dev worker trusts only its signed decisions).
  writeFileSync(path.join(stateFolder, 'gateway-url'), `${gatewayUrl}\n`, { mode: 0o600 });
  const chatToken =
    process.env.TOLLGATE_CHAT_EXAMPLE_TOKEN || (gatewayToken && readFileSync(gatewayToken.file, 'utf8').trim());
  // The example page is a convenience: a port already taken (another `npm run dev`) costs the page, not the stack.
  const chatExample = chatToken
    ? await startChatExample({ gatewayUrl, token: chatToken, port: chatExamplePort }).catch((error: unknown) => {
        console.error(
          `The example chat page could not start on port ${chatExamplePort} (${(error as Error).message}); ` +
            'set TOLLGATE_CHAT_EXAMPLE_PORT to a free port to serve it. Everything else runs.',
        );
        return undefined;
      })
    : undefined;

  const uiUrl = devServer?.uiUrl ?? 'your Temporal UI';
  const workerAddress = devServer?.address ?? address;
  // The CLI reads TEMPORAL_ADDRESS (default localhost:7233); say so when this server is elsewhere.
  const cli =
    temporalPort === 7233 && !process.env.TEMPORAL_ADDRESS
      ? 'npx tollgate'
      : `TEMPORAL_ADDRESS=${workerAddress} npx tollgate`;
  console.log(`
Tollgate is running.
  Temporal UI   ${uiUrl}
  Temporal      ${temporalNote}
  Model         ${modelNote}
  Workspace     ${workspace}
  Tools         ${describeToolSandbox(tools) ?? ''}
  Task queue    ${temporal.taskQueue}
  Gateway       ${gatewayUrl}  (REST API at /openapi.json${gatewayToken ? `; token for "${gatewayToken.identity}" in ${gatewayToken.file}` : ''})
  Chat          ${chatExample ? `${chatExample.url}/?chat=demo  (examples/chat: useChat on the gateway's /api/chat)` : '(set TOLLGATE_CHAT_EXAMPLE_TOKEN to a gateway token to serve examples/chat)'}
  Gateway log   ${gatewayLog}${decisionKey ? `\n  Decisions     signed with key "${decisionKey.keyId}" (${decisionKey.file})` : ''}

In another terminal, try:
  ${cli} run "write hello to notes.txt"     the turn waits for your approval
  ${cli} pending                             what waits, with approvalIds
  ${cli} approve <approvalId>                or: ${cli} deny <approvalId> --reason "not now"

Ctrl-C stops everything; pending approvals are kept and resume on the next npm run dev.
`);

  const stop = () => worker.shutdown();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    await worker.run();
  } finally {
    await chatExample?.close();
    await gateway.close();
    await tollgate.close();
    await connection.close();
    await modelServer?.close();
    await devServer?.stop();
  }
}

/**
 * When TOLLGATE_DECISION_SIGNING_KEY was exported, `ensureDevDecisionKey` leaves the keys alone; the dev worker must
 * still trust only what its gateway signs, so the key's public half joins TOLLGATE_DECISION_PUBLIC_KEYS unless that
 * key id is listed there already. Without it the worker would require no signature and take unsigned decisions.
 */
function trustExportedSigningKey(environment: NodeJS.ProcessEnv): void {
  const key = decisionSigningKeyFromEnvironment(environment);
  if (key === undefined) return;
  const listed = (environment.TOLLGATE_DECISION_PUBLIC_KEYS ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (listed.some((entry) => entry.slice(0, entry.indexOf('=')).trim() === key.keyId)) return;
  environment.TOLLGATE_DECISION_PUBLIC_KEYS = [...listed, `${key.keyId}=${decisionPublicKeyOf(key.privateKey)}`].join(
    ',',
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
