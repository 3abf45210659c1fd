import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type * as TemporalClient from '@temporalio/client';
import type * as ClientModule from '../client';
import type { TollgateClient } from '../client';
import { isApprovalDecisionError } from '../client/approval-decision-error';
import { GatewayClient, isGatewayUnreachableError } from '../client/gateway-client';
import { probeEndpoint } from '../client/probe-endpoint';
import { temporalSettingsFromEnvironment } from '../client/temporal-settings';
import { commandName } from './command-name';
import { connectionProblemOf, TemporalUnavailableError, temporalUnavailableMessage } from './connection-problem';
import { decideCommand } from './decide-command';
import { listGrantsCommand, revokeGrantCommand } from './grants-command';
import { z } from 'zod';
import { allowSchema, type Allow } from '../protocol';
import { editedInputOption } from './edited-input-option';
import { followTurn } from './follow-turn';
import { pendingCommand } from './pending-command';
import {
  defaultReplayTurnLimit,
  maximumReplayTurnLimit,
  policyCheckCommand,
  readCandidatePolicy,
  replayWindowStart,
} from './policy-check-command';
import { runCommand } from './run-command';
import { statusCommand } from './status-command';
import { TemporalRetry } from './temporal-retry';
import { stateFolderFromEnvironment } from '../state-folder';

/** How long `status` waits for Temporal before it says it is not there. */
const statusRetryMs = 5_000;

const usage = `Usage: ${commandName()} <command> [options]

Commands:
  run "<prompt>"            start an agent turn and follow it until it ends (Ctrl-C leaves it running)
      --auto-approve          run every tool call without asking (autonomous mode)
      --max-steps N           most model calls in the turn (default 10)
      --approval-timeout D    deny approvals nobody decides within D (e.g. 15m, 2h)
      --tools a,b             only offer these tools
      --model-steps MODE      activity (default: live text, each step its own activity) or local
                              (local activities: fewer history events, for turns nobody watches live)
      --detach                print the turn id and return at once
      --requester NAME        who asks (default: $USER); approvers' self-approval rules compare it
  follow <turnId>           follow a running turn again (after Ctrl-C, a closed terminal, a restart)
  pending                   list approvals waiting for a decision
      --workflow-id ID        only this turn's
      --json                  machine-readable output
  approve <approvalId>      approve a pending tool call
  deny <approvalId>         deny a pending tool call
      --reason TEXT           why (the model reads it)
      --approver NAME         who decides (default: $USER)
      --input JSON            approve with these arguments instead of the model's (editors only)
      --input-file PATH       the same, read from a file (- for standard input)
      --allow-for D           approve and allow: later calls of this tool run without asking for D (1h, 8h)
      --uses N                approve and allow the next N calls (with or without --allow-for)
      --allow-scope SCOPE     whose calls: conversation (default), requester or everyone
  grants                    list standing grants: uses, expiry, who gave them (--json for all fields)
  grants revoke <grantId>   revoke a grant: it covers nothing from now on
  status <turnId>           show a turn's state: what it waits for, what was decided
      --json                  the raw state, machine-readable
  policy check <file>       replay a candidate operator policy over the calls recorded in a window and print what
                            would change; exit status 1 if it would have run a call a person denied
      --since D               the window: a duration back from now (default 30d) or an ISO 8601 time
      --max-turns N           most turns read, newest first (default ${defaultReplayTurnLimit})
      --json                  the replay, machine-readable

Connection: TEMPORAL_ADDRESS (default localhost:7233), TEMPORAL_NAMESPACE, TOLLGATE_TASK_QUEUE (default tollgate).
Without Temporal access, pending/approve/deny go through the approval gateway instead (grants always do):
  --gateway URL / TOLLGATE_GATEWAY_URL and --token TOKEN / TOLLGATE_GATEWAY_TOKEN (the approver is the token's identity).`;

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      'auto-approve': { type: 'boolean' },
      'max-steps': { type: 'string' },
      'approval-timeout': { type: 'string' },
      tools: { type: 'string' },
      'model-steps': { type: 'string' },
      detach: { type: 'boolean' },
      'workflow-id': { type: 'string' },
      json: { type: 'boolean' },
      reason: { type: 'string' },
      approver: { type: 'string' },
      requester: { type: 'string' },
      input: { type: 'string' },
      'input-file': { type: 'string' },
      'allow-for': { type: 'string' },
      uses: { type: 'string' },
      'allow-scope': { type: 'string' },
      gateway: { type: 'string' },
      token: { type: 'string' },
      since: { type: 'string' },
      'max-turns': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    console.log(usage);
    return;
  }
  const edited = editedInputOption(
    { input: values.input, inputFile: values['input-file'], approved: command === 'approve' },
    (file) => readFileSync(file === '-' ? 0 : file, 'utf8'),
  );
  if ('problem' in edited) throw new UsageError(edited.problem);
  const allow = allowOption(values, command);
  const local = localDevGateway();
  const gatewayUrl = values.gateway || process.env.TOLLGATE_GATEWAY_URL || local?.url;
  if ((allow || command === 'grants') && !gatewayUrl) {
    throw new UsageError('standing grants go through the approval gateway: --gateway URL or TOLLGATE_GATEWAY_URL');
  }
  if (gatewayUrl && (command === 'pending' || command === 'approve' || command === 'deny' || command === 'grants')) {
    const token =
      values.token || process.env.TOLLGATE_GATEWAY_TOKEN || (gatewayUrl === local?.url ? local.token : undefined);
    if (!token) throw new UsageError('the gateway needs a token: --token or TOLLGATE_GATEWAY_TOKEN');
    const gateway = new GatewayClient(gatewayUrl, token);
    if (command === 'pending') {
      await pendingCommand(gateway, { workflowId: values['workflow-id'], json: values.json });
    } else if (command === 'grants') {
      const [action, grantId] = rest;
      if (action === undefined) await listGrantsCommand(gateway, { json: values.json });
      else if (action === 'revoke' && grantId) await revokeGrantCommand(gateway, grantId);
      else throw new UsageError(`grants takes no argument, or: ${commandName()} grants revoke <grantId>`);
    } else {
      const [approvalId] = rest;
      if (!approvalId) throw new UsageError(`${command} needs an approvalId (see: tollgate pending)`);
      await decideCommand(gateway, {
        approvalId,
        approved: command === 'approve',
        reason: values.reason,
        ...(edited.input !== undefined && { input: edited.input }),
        ...(allow && { allow }),
      });
    }
    return;
  }
  // A candidate that is not a policy, or a window that is not one, is a usage mistake: said before Temporal is asked.
  const policyCheck = command === 'policy' ? policyCheckOptions(rest, values) : undefined;
  // `follow` waits for Temporal as long as it takes (it is what a person runs after a restart); `status` a moment.
  const retry =
    command === 'follow'
      ? new TemporalRetry({ address: temporalAddress(), print: (line) => console.log(line) })
      : command === 'status'
        ? new TemporalRetry({
            address: temporalAddress(),
            print: (line) => console.error(line),
            giveUpAfterMs: statusRetryMs,
          })
        : undefined;
  const tollgate = retry ? await retry.run(connectToTemporal) : await connectToTemporal();
  try {
    switch (command) {
      case 'run': {
        const prompt = rest.join(' ').trim();
        if (!prompt) throw new UsageError(`run needs a prompt: ${commandName()} run "write hello to notes.txt"`);
        const maxSteps = values['max-steps'] === undefined ? undefined : Number(values['max-steps']);
        if (maxSteps !== undefined && !Number.isInteger(maxSteps))
          throw new UsageError('--max-steps takes a whole number');
        const modelSteps = values['model-steps'];
        if (modelSteps !== undefined && modelSteps !== 'activity' && modelSteps !== 'local')
          throw new UsageError('--model-steps takes activity or local');
        await runCommand(tollgate, {
          prompt,
          autoApprove: values['auto-approve'],
          maxSteps,
          modelSteps,
          approvalTimeout: values['approval-timeout'],
          tools: values.tools?.split(',').map((name) => name.trim()),
          workflowId: values['workflow-id'],
          detach: values.detach,
          // Who asks, as the Temporal UI and the approvers see it (a gateway sets its token's identity instead).
          requester: values.requester ?? process.env.USER ?? 'cli',
          address: temporalAddress(),
        });
        return;
      }
      case 'follow': {
        const [workflowId] = rest;
        if (!workflowId) throw new UsageError(`follow needs a turn id: ${commandName()} follow <turnId>`);
        await followTurn(tollgate, workflowId, { address: temporalAddress() });
        return;
      }
      case 'pending':
        await pendingCommand(tollgate, { workflowId: values['workflow-id'], json: values.json });
        return;
      case 'approve':
      case 'deny': {
        const [approvalId] = rest;
        if (!approvalId) throw new UsageError(`${command} needs an approvalId (see: ${commandName()} pending)`);
        await decideCommand(tollgate, {
          approvalId,
          approved: command === 'approve',
          reason: values.reason,
          approver: values.approver ?? process.env.USER ?? 'cli',
          ...(edited.input !== undefined && { input: edited.input }),
        });
        return;
      }
      case 'status': {
        const [workflowId] = rest;
        if (!workflowId) throw new UsageError(`status needs a turn id: ${commandName()} status <turnId>`);
        const reader = { state: (id: string) => retry!.run(() => tollgate.state(id)) };
        await statusCommand(reader, { workflowId, json: values.json });
        return;
      }
      case 'policy': {
        process.exitCode = await policyCheckCommand(tollgate, { ...policyCheck!, json: values.json });
        return;
      }
      default:
        throw new UsageError(`Unknown command "${command}".\n\n${usage}`);
    }
  } finally {
    await tollgate.close();
  }
}

class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** What `policy check <file> [--since D] [--max-turns N]` asks for, checked before Temporal is reached. */
function policyCheckOptions(rest: string[], values: { since?: string; 'max-turns'?: string }) {
  const [subcommand, file, ...extra] = rest;
  if (subcommand !== 'check' || !file || extra.length > 0)
    throw new UsageError(`policy takes: ${commandName()} policy check <candidate.json> [--since 30d]`);
  const maxTurns = values['max-turns'] === undefined ? defaultReplayTurnLimit : Number(values['max-turns']);
  if (!Number.isInteger(maxTurns) || maxTurns < 1 || maxTurns > maximumReplayTurnLimit)
    throw new UsageError(`--max-turns takes a whole number from 1 to ${maximumReplayTurnLimit}`);
  const since = replayWindowStart(values.since ?? '30d', new Date());
  return { file, candidate: readCandidatePolicy(file), since, maxTurns };
}

function temporalAddress(): string {
  return temporalSettingsFromEnvironment().connectionOptions.address ?? 'localhost:7233';
}

/**
 * Connects, failing at once (not after gRPC's timeout) when nothing listens at the address. Temporal's client (gRPC,
 * protobuf definitions: most of the command's start) is loaded here, only by the commands that talk to Temporal:
 * `--help` and the gateway's commands never load it.
 */
async function connectToTemporal(): Promise<TollgateClient> {
  const settings = temporalSettingsFromEnvironment();
  const address = temporalAddress();
  // Through a proxy only gRPC itself knows the way (as in the worker's preflight).
  const proxied = ['grpc_proxy', 'https_proxy', 'http_proxy', 'GRPC_PROXY', 'HTTPS_PROXY', 'HTTP_PROXY'].some(
    (name) => process.env[name],
  );
  const probe = proxied ? undefined : await probeEndpoint(address);
  if (probe && probe.type !== 'open')
    throw new TemporalUnavailableError(temporalUnavailableMessage(address, probe.detail), probe.detail);
  // `require`, not `import()`: in a checkout, bin/tollgate.js runs this file through tsx's CommonJS hook, which leaves
  // `import()` to Node's ES-module resolution, where `../client` (a folder) is no module.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { TollgateClient } = require('../client') as typeof ClientModule;
  const { defaultGrpcRetryOptions, makeGrpcRetryInterceptor } = require('@temporalio/client') as typeof TemporalClient;
  /* eslint-enable @typescript-eslint/no-require-imports */
  try {
    return await TollgateClient.connect({
      ...settings,
      connectionOptions: {
        ...settings.connectionOptions,
        connectTimeout: 5_000,
        // A call retries inside the SDK for half a second at most (three attempts), not the SDK's twenty (ten): `run`
        // and `follow` poll the turn and retry on their own, saying so, and were silent that long when Temporal went
        // away; any other command says at once that Temporal is not there.
        interceptors: [makeGrpcRetryInterceptor(defaultGrpcRetryOptions({ maxAttempts: 3 }))],
      },
    } as typeof settings);
  } catch (error) {
    const { detail } = connectionProblemOf(error);
    throw new TemporalUnavailableError(temporalUnavailableMessage(address, detail), detail);
  }
}

main().catch((err: unknown) => {
  const error = err as Error;
  if (
    err instanceof UsageError ||
    error.name === 'CandidatePolicyError' ||
    isApprovalDecisionError(err) ||
    error.name === 'TypeError' ||
    error.name === 'TurnNotFoundError'
  ) {
    console.error(`tollgate: ${error.message}`);
    process.exit(2);
  }
  if (error.name === 'TemporalUnavailableError' || isGatewayUnreachableError(err)) {
    console.error(`tollgate: ${error.message}`);
    process.exit(1);
  }
  if (error.name === 'WorkflowFailedError') {
    const cause = (error.cause as Error | undefined)?.message;
    console.error(`tollgate: the turn ended without a result: ${error.message}${cause ? ` (${cause})` : ''}`);
    process.exit(1);
  }
  if (connectionProblemOf(err).type === 'unavailable') {
    let address = 'localhost:7233';
    try {
      address = temporalAddress();
    } catch {
      // The settings were the problem; the message below still says what failed.
    }
    console.error(`tollgate: ${temporalUnavailableMessage(address, connectionProblemOf(err).detail)}`);
    process.exit(1);
  }
  console.error(err);
  process.exit(1);
});

/** `--allow-for`, `--uses` and `--allow-scope` as the decision's `allow`, checked; undefined when none is given. */
function allowOption(
  values: { 'allow-for'?: string; uses?: string; 'allow-scope'?: string },
  command: string,
): Allow | undefined {
  const given = values['allow-for'] !== undefined || values.uses !== undefined || values['allow-scope'] !== undefined;
  if (!given) return undefined;
  if (command !== 'approve') throw new UsageError('--allow-for, --uses and --allow-scope go with approve');
  const parsed = allowSchema.safeParse({
    ...(values['allow-for'] !== undefined && { for: values['allow-for'] }),
    ...(values.uses !== undefined && { uses: Number(values.uses) }),
    ...(values['allow-scope'] !== undefined && { scope: values['allow-scope'] }),
  });
  if (!parsed.success) throw new UsageError(`--allow-for/--uses/--allow-scope: ${z.prettifyError(parsed.error)}`);
  if (parsed.data.for === undefined && parsed.data.uses === undefined) {
    throw new UsageError('a grant is bounded: give --allow-for, --uses, or both');
  }
  return parsed.data;
}

/**
 * The gateway `npm run dev` started on this machine, if any: it leaves its address and a token in its state
 * folder, so `tollgate approve` decides as a person does there (the dev worker trusts only gateway-signed decisions).
 */
function localDevGateway(): { url: string; token: string } | undefined {
  const folder = stateFolderFromEnvironment();
  try {
    const url = readFileSync(path.join(folder, 'gateway-url'), 'utf8').trim();
    const token = readFileSync(path.join(folder, 'gateway-token'), 'utf8').trim();
    return url && token ? { url, token } : undefined;
  } catch {
    return undefined;
  }
}
