import { describeTaskQueues, temporalSettingsFromEnvironment, TollgateClient } from '../client';
import { isTemporalPreflightError, preflightOrExit } from '../client/temporal-preflight';
import { acceptUnsignedDecisionsFromEnvironment } from '../policy';
import { sharedRecordsFromEnvironment } from '../store/shared-records';
import { createGateway } from './create-gateway';
import { DecisionAudit } from './decisions/decision-audit';
import { gatewayChannelsFromEnvironment } from './gateway-channels-from-environment';
import { gatewaySettingsFromEnvironment } from './gateway-settings';

// `npm run gateway`: the REST approval gateway. Settings come from the environment (see
// gatewaySettingsFromEnvironment); Temporal's connection from TEMPORAL_ADDRESS and friends.
async function main(): Promise<void> {
  // Settings first: a gateway with no tokens stops here, before it connects to anything.
  const settings = gatewaySettingsFromEnvironment();
  await preflightOrExit();
  const tollgate = await TollgateClient.connect(temporalSettingsFromEnvironment());
  const channels = gatewayChannelsFromEnvironment(settings.tokens);
  try {
    const gateway = await createGateway({
      tollgate,
      tokens: settings.tokens,
      people: settings.people,
      ...(settings.signingKey && { signingKey: settings.signingKey }),
      // Attempts go to the shared store location too, so GET /v1/audit on any gateway shows every gateway's.
      audit: new DecisionAudit({ file: settings.auditFile, shared: sharedRecordsFromEnvironment() }),
      rateLimit: settings.rateLimit,
      bodyLimitBytes: settings.bodyLimitBytes,
      logger: { level: process.env.LOG_LEVEL ?? 'info', redact: ['req.headers.authorization'] },
      channels,
      acceptUnsignedDecisions: acceptUnsignedDecisionsFromEnvironment(),
      workspace: settings.workspace,
    }).catch((error: unknown) => {
      if (!isTemporalPreflightError(error)) throw error;
      console.error(`Tollgate cannot start: ${error.message}`);
      process.exit(1);
    });
    const stopped = new Promise<void>((resolve) => {
      for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve());
    });
    await gateway.listen({ port: settings.port, host: settings.host });
    console.log(
      `Tollgate gateway on http://${settings.host}:${settings.port} (${settings.tokens.size} token(s), ` +
        `${describeTaskQueues(tollgate.taskQueues)}, channels ${channels.map((channel) => channel.name ?? 'unnamed').join(', ')}, decisions ${settings.signingKey ? `signed with key "${settings.signingKey.keyId}"` : 'unsigned'}); ` +
        'API description at /openapi.json',
    );
    await stopped;
    await gateway.close();
  } finally {
    await tollgate.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
