import type { TollgateClient } from '../../src/client';
import type { GatewayOptions } from '../../src/gateway';
import { startGateway, type RunningGateway } from '../gateway/gateway-fixture';
import { createTestEnvironment, type TestEnvironment } from './test-environment';
import { createTestTools, type ToolRun } from './test-tools';

/** What {@link createTestEnvironment} takes besides the tools (the fixture gives the recording test tools). */
export type TurnEnvironmentOptions = Omit<Parameters<typeof createTestEnvironment>[0], 'tools'>;

/** A test file's turn set-up: the recording test tools' runs and an environment (task queue, worker, scripted model). */
export interface TurnFixture {
  /** Every run of the test tools, in order. */
  readonly runs: ToolRun[];
  /** Started before the file's first test, closed after its last. */
  readonly environment: TestEnvironment;
}

/** A {@link TurnFixture} with a gateway on its task queue, called as the test tokens' people. */
export interface TurnGatewayFixture extends TurnFixture {
  readonly gateway: RunningGateway;
}

/**
 * Starts one environment for the test file that calls it (in `beforeAll`) and closes it after the file's tests: the
 * set-up every turn test repeats. Read `environment` inside tests and hooks, not at the file's top.
 *
 * @example
 * const stack = useTurnEnvironment({ policy: { tools: { deleteFile: { editors: ['cli-user'] } } } });
 * it('…', async () => { stack.environment.model.scriptFor(marker, …); });
 */
export function useTurnEnvironment(options: TurnEnvironmentOptions = {}): TurnFixture {
  const stack = useStack(options, undefined);
  return {
    runs: stack.runs,
    get environment() {
      return stack.environment;
    },
  };
}

/** Options of a gateway in a test: the test tokens and unsigned decisions unless they say otherwise. */
export type TestGatewayOptions = Omit<Partial<GatewayOptions>, 'tollgate'>;

/**
 * As {@link useTurnEnvironment}, with a gateway on the environment's client (test tokens, unsigned decisions accepted,
 * no rate limits to speak of), started after it and closed before it. `gateway` adds options, or makes them from the
 * environment; `client` puts a client of the test's own between the gateway and Temporal.
 *
 * @example
 * const stack = useTurnGateway();
 * it('…', async () => { await stack.gateway.call('POST', '/v1/turns', { body }); });
 */
export function useTurnGateway(
  options: TurnEnvironmentOptions & {
    gateway?: TestGatewayOptions | ((environment: TestEnvironment) => TestGatewayOptions);
    client?: (environment: TestEnvironment) => TollgateClient;
  } = {},
): TurnGatewayFixture {
  const { gateway, client, ...environmentOptions } = options;
  return useStack(environmentOptions, async (environment) =>
    startGateway(
      client ? client(environment) : environment.tollgate,
      typeof gateway === 'function' ? gateway(environment) : gateway,
    ),
  );
}

/** One `beforeAll` that starts the environment, then the gateway; one `afterAll` that closes them the other way round. */
function useStack(
  options: TurnEnvironmentOptions,
  startGatewayOn: ((environment: TestEnvironment) => Promise<RunningGateway>) | undefined,
): TurnGatewayFixture {
  const { tools, runs } = createTestTools();
  let environment: TestEnvironment | undefined;
  let gateway: RunningGateway | undefined;
  beforeAll(async () => {
    environment = await createTestEnvironment({ tools, ...options });
    if (startGatewayOn) gateway = await startGatewayOn(environment);
  });
  afterAll(async () => {
    await gateway?.close();
    await environment?.close();
  });
  return {
    runs,
    get environment() {
      return started(environment);
    },
    get gateway() {
      return started(gateway);
    },
  };
}

function started<T>(part: T | undefined): T {
  if (part === undefined) throw new Error('The turn fixture starts in beforeAll: read it inside a test or a hook.');
  return part;
}
