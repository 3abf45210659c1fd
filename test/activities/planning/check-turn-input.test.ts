import { checkTurnInput } from '../../../src/activities/planning/check-turn-input';
import type { TurnOptions } from '../../../src/activities/turn-activity-types';
import type { OperatorPolicy } from '../../../src/policy';
import { turnRevisions, type ModelMessage } from '../../../src/protocol';
import { ToolRegistry } from '../../../src/tools';
import { createTestTools } from '../../support/test-tools';

const registry = new ToolRegistry(createTestTools().tools);
const ask: ModelMessage[] = [{ role: 'user', content: 'Look up "tollgate".' }];

function check(options: Partial<TurnOptions>, policy: OperatorPolicy = {}, messages: ModelMessage[] = ask) {
  return checkTurnInput(options as TurnOptions, messages, { registry, policy });
}

function failureOf(run: () => unknown): { type?: string; nonRetryable?: boolean; message?: string } {
  try {
    run();
  } catch (error) {
    return error as { type?: string; nonRetryable?: boolean; message?: string };
  }
  throw new Error('expected the check to fail');
}

describe('checkTurnInput', () => {
  it('settles the settings a turn runs by, with the defaults filled in', () => {
    const { input, settings, offered } = check({});
    expect(input.messages).toEqual(ask);
    expect(offered).toEqual(registry.manifest().map((tool) => tool.name));
    expect(settings).toEqual({
      maxSteps: 10,
      approvalWait: 'durable',
      autoApprove: false,
      toolTimeouts: { heartbeatMs: 30_000, startToCloseMs: 600_000 },
      trust: { requireSigned: false, keys: {} },
      revision: turnRevisions.current,
    });
  });

  it("takes the caller's steps, wait and tool timeouts, and offers only the tools it names", () => {
    const { settings, offered } = check({
      maxSteps: 3,
      approvalWait: 'halt',
      toolTimeouts: { heartbeat: '5s', startToClose: '2m' },
      tools: ['lookup'],
    });
    expect(offered).toEqual(['lookup']);
    expect(settings).toMatchObject({
      maxSteps: 3,
      approvalWait: 'halt',
      toolTimeouts: { heartbeatMs: 5_000, startToCloseMs: 120_000 },
    });
  });

  it("trusts the operator's decision keys, and requires signed decisions once there are any", () => {
    const keys = { gw: 'a-public-key' };
    expect(check({}, { decisions: { trustedKeys: keys } }).settings.trust).toEqual({ requireSigned: true, keys });
    expect(check({}, { decisions: { trustedKeys: keys, requireSigned: false } }).settings.trust).toEqual({
      requireSigned: false,
      keys,
    });
  });

  it("carries the worker owner's activity limits into the settings", () => {
    const activityLimits = { modelStep: { startToCloseMs: 90_000 }, tool: { maximumAttempts: 2 } };
    const { settings } = checkTurnInput({} as TurnOptions, ask, { registry, policy: {}, activityLimits });
    expect(settings.activities).toEqual(activityLimits);
  });

  it('grants autoApprove only where the operator allows it', () => {
    expect(failureOf(() => check({ autoApprove: true }))).toMatchObject({
      type: 'AutoApproveNotAllowed',
      nonRetryable: true,
      message: expect.stringMatching(/TOLLGATE_ALLOW_AUTO_APPROVE=true/),
    });
    expect(check({ autoApprove: true }, { allowAutoApprove: true }).settings.autoApprove).toBe(true);
  });

  it('fails at once, saying why, on a tool the worker does not have or input it cannot read', () => {
    expect(failureOf(() => check({ tools: ['launchRockets'] }))).toMatchObject({
      type: 'UnknownTool',
      nonRetryable: true,
      message: expect.stringMatching(/launchRockets/),
    });
    expect(failureOf(() => check({ maxSteps: -1 }))).toMatchObject({
      type: 'InvalidAgentTurnInput',
      nonRetryable: true,
      message: expect.stringMatching(/^Invalid agentTurn input: .*maxSteps/s),
    });
  });

  it("checks a later step's messages, which may be none", () => {
    expect(check({}, {}, []).input.messages).toEqual([]);
  });

  it("settles a later step's settings as its first step did, without the schema, and still by the operator's rules", () => {
    const options = { maxSteps: 3, toolTimeouts: { heartbeat: '5s' as const }, tools: ['lookup'] };
    const later = (policy: OperatorPolicy, given: Partial<TurnOptions> = options) =>
      checkTurnInput(given as TurnOptions, [], { registry, policy }, { alreadyChecked: true });
    expect(later({})).toEqual({ ...check(options), input: { ...options, messages: [] } });
    // What the operator allows may have changed since the first step: it is asked again.
    expect(failureOf(() => later({}, { autoApprove: true }))).toMatchObject({ type: 'AutoApproveNotAllowed' });
    expect(failureOf(() => later({}, { tools: ['launchRockets'] }))).toMatchObject({ type: 'UnknownTool' });
  });
});
