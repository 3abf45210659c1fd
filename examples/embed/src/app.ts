import { NativeConnection, type Worker } from '@temporalio/worker';
import {
  ApproverTokens,
  createGateway,
  createTollgateWorker,
  generateDecisionKeyPair,
  parseDecisionPrivateKey,
  restChannel,
  TollgateClient,
  type ModelSettings,
} from 'tollgate';
import { tools } from './tools';

/** What the application needs to run Tollgate inside it; everything is passed in code. */
export interface AppSettings {
  /** Temporal's frontend, e.g. `localhost:7233`. */
  temporalAddress: string;
  /** The application's own task queue: its worker polls it, its turns start on it. */
  taskQueue: string;
  /** The model the turns call. */
  model: ModelSettings;
  /** Signs approval requests, so only requests this worker issued can be approved. */
  approvalSecret: string;
  /** The bearer token of the person who decides through the gateway. */
  approverToken: string;
}

/** The application's worker, client and gateway, started together and stopped together. */
export interface App {
  worker: Worker;
  tollgate: TollgateClient;
  gateway: Awaited<ReturnType<typeof createGateway>>;
  gatewayUrl: string;
  close(): Promise<void>;
}

export async function startApp(settings: AppSettings): Promise<App> {
  // Decisions are signed: the gateway signs with the private key, the worker counts only what the public key verifies.
  // A real deployment keeps the private key in a secret store; made here, it lives as long as the application.
  const keys = generateDecisionKeyPair();
  const signingKey = { keyId: 'embed', privateKey: parseDecisionPrivateKey(keys.privateKeyPem) };
  const connection = await NativeConnection.connect({ address: settings.temporalAddress });
  // The worker runs turns with the application's own tools.
  const worker = await createTollgateWorker({
    connection,
    taskQueue: settings.taskQueue,
    tools,
    model: settings.model,
    approvalSecret: settings.approvalSecret,
    policy: { decisions: { trustedKeys: { embed: keys.publicKey } } },
  });
  // The client starts turns on the same queue; the gateway decides through it.
  const tollgate = await TollgateClient.connect({ address: settings.temporalAddress, taskQueue: settings.taskQueue });
  const tokens = ApproverTokens.fromRecord({ [settings.approverToken]: 'ana' });
  const gateway = await createGateway({ tollgate, tokens, signingKey, channels: [restChannel()] });
  await gateway.listen({ port: 0, host: '127.0.0.1' });
  const address = gateway.server.address();
  const gatewayUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const running = worker.run();
  return {
    worker,
    tollgate,
    gateway,
    gatewayUrl,
    async close() {
      await gateway.close();
      worker.shutdown();
      await running;
      await tollgate.close();
      await connection.close();
    },
  };
}
