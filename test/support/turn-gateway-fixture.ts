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
  const { tools, runs } = createTestTools();
  let environment: TestEnvironment | undefined;
  beforeAll(async () => {
    environment = await createTestEnvironment({ tools, ...options });
  });
  afterAll(async () => {
    await environment?.close();
  });
  return {
    runs,
    get environment() {
      return started(environment);
    },
  };
}

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
    gateway?: Omit<Partial<GatewayOptions>, 'tollgate'> | ((environment: TestEnvironment) => Omit<Partial<GatewayOptions>, 'tollgate'>);
    client?: (environment: TestEnvironment) => TollgateClient;
  } = {},
): TurnGatewayFixture {
  const { gateway: gatewayOptions, client, ...environmentOptions } = options;
  const turn = useTurnEnvironment(environmentOptions);
  let gateway: RunningGateway | undefined;
  beforeAll(async () => {
    const environment = turn.environment;
    gateway = await startGateway(
      client ? client(environment) : environment.tollgate,
      typeof gatewayOptions === 'function' ? gatewayOptions(environment) : gatewayOptions,
    );
  });
  // Registered after the environment's, so it runs before it: the gateway goes first.
  afterAll(async () => {
    await gateway?.close();
  });
  return {
    runs: turn.runs,
    get environment() {
      return turn.environment;
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
