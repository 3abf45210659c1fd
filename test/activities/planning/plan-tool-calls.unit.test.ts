import { z } from 'zod';
import { issueApproval, planToolCalls, type PlanningContext } from '../../../src/activities/planning/plan-tool-calls';
import { verifyToolApproval } from '../../../src/activities/planning/approval-signature';
import { workflowIdOfApproval } from '../../../src/protocol/approval-id';
import type { PlannedToolCall, ToolCallPart } from '../../../src/protocol';
import { defineTool, ToolRegistry } from '../../../src/tools';
import { planningTools } from '../../support/planning-tools';

const tools = [
  ...planningTools,
  defineTool({
    name: 'transfer',
    description: 'Moves money; over 100 asks.',
    inputSchema: z.object({ amount: z.number() }),
    needsApproval: ({ amount }) => amount > 100,
    execute: ({ amount }) => `sent ${amount}`,
  }),
  defineTool({
    name: 'flaky',
    description: 'Its approval rule throws.',
    inputSchema: z.object({}),
    needsApproval: () => {
      throw new Error('limits service down');
    },
    execute: () => 'done',
  }),
  defineTool({
    name: 'pickColour',
    description: 'The browser asks the user.',
    inputSchema: z.object({}),
  }),
];

function contextWith(overrides: Partial<PlanningContext> = {}): PlanningContext {
  return {
    workflowId: 'turn-1',
    registry: new ToolRegistry(tools),
    offered: tools.map((tool) => tool.name),
    policy: {},
    autoApprove: false,
    batch: 'per-call',
    messages: [],
    notes: [],
    ...overrides,
  };
}

function call(toolName: string, input: unknown, toolCallId = `call-${toolName}`): ToolCallPart {
  return { type: 'tool-call', toolCallId, toolName, input };
}

function kinds(plans: PlannedToolCall[]): string[] {
  return plans.map((plan) => `${plan.call.toolName}:${plan.kind}`);
}

describe('planToolCalls', () => {
  it('runs a safe call at once and holds a call that needs approval', async () => {
    const plans = await planToolCalls(
      [call('lookup', { query: 'tollgate' }), call('deleteFile', { path: 'a' })],
      [],
      contextWith(),
    );
    expect(kinds(plans)).toEqual(['lookup:run', 'deleteFile:ask']);
  });

  it('turns a call whose arguments could not be read into an error the model can read', async () => {
    const plans = await planToolCalls(
      [call('deleteFile', '{"path": ', 'broken')],
      [{ toolCallId: 'broken', error: 'The arguments are not valid JSON. Send the arguments as a JSON object.' }],
      contextWith(),
    );
    expect(plans).toEqual([
      {
        kind: 'reject',
        call: call('deleteFile', '{"path": ', 'broken'),
        error: 'The arguments are not valid JSON. Send the arguments as a JSON object.',
      },
    ]);
  });

  it('refuses a tool the turn does not offer and names the ones it does', async () => {
    const plans = await planToolCalls(
      [call('deleteFile', { path: 'a' }), call('launchRocket', {})],
      [],
      contextWith({ offered: ['lookup', 'transfer'] }),
    );
    expect(plans.map((plan) => plan.kind === 'reject' && plan.error)).toEqual([
      'Unknown tool "deleteFile". Available tools: lookup, transfer.',
      'Unknown tool "launchRocket". Available tools: lookup, transfer.',
    ]);
  });

  it('refuses input that does not match the schema, saying which field is wrong', async () => {
    const [plan] = await planToolCalls([call('transfer', { amount: 'a lot' })], [], contextWith());
    expect(plan?.kind).toBe('reject');
    expect(plan?.kind === 'reject' && plan.error).toMatch(/^Invalid input for tool "transfer":\n.*amount/s);
  });

  it('asks per call when the rule is a function of the input', async () => {
    const plans = await planToolCalls(
      [call('transfer', { amount: 5 }, 'small'), call('transfer', { amount: 500 }, 'large')],
      [],
      contextWith(),
    );
    expect(plans.map((plan) => `${plan.call.toolCallId}:${plan.kind}`)).toEqual(['small:run', 'large:ask']);
  });

  it('asks a person when the approval rule throws, and says why in the notes', async () => {
    const context = contextWith();
    const [plan] = await planToolCalls([call('flaky', {})], [], context);
    expect(plan?.kind).toBe('ask');
    expect(context.notes).toEqual(['needsApproval of flaky threw (limits service down); a person is asked.']);
  });

  it("makes a tool ask when the operator's policy says so, whatever the tool says", async () => {
    const plans = await planToolCalls(
      [call('lookup', { query: 'x' })],
      [],
      contextWith({ policy: { tools: { lookup: { needsApproval: true } } } }),
    );
    expect(kinds(plans)).toEqual(['lookup:ask']);
  });

  it("holds every call of the step when one asks and the turn's batch is all-if-any", async () => {
    const plans = await planToolCalls(
      [call('lookup', { query: 'x' }), call('deleteFile', { path: 'a' }), call('pickColour', {}, 'bad')],
      [{ toolCallId: 'bad', error: 'unreadable' }],
      contextWith({ batch: 'all-if-any' }),
    );
    expect(kinds(plans)).toEqual(['lookup:ask', 'deleteFile:ask', 'pickColour:reject']);
  });

  it('runs a call that asks with an approval already issued when the turn is autonomous', async () => {
    const [plan] = await planToolCalls([call('deleteFile', { path: 'a' })], [], contextWith({ autoApprove: true }));
    expect(plan).toMatchObject({ kind: 'run', autoApproved: { onExpire: 'deny' } });
  });

  it('keeps a client-executed tool for the client', async () => {
    const [plan] = await planToolCalls([call('pickColour', {})], [], contextWith());
    expect(plan).toMatchObject({ kind: 'run', executor: 'client' });
  });

  describe("the worker's onToolApproval policy", () => {
    it('decides an ask before anyone is asked, with its reason', async () => {
      const plans = await planToolCalls(
        [call('deleteFile', { path: 'tmp/a' }, 'tmp'), call('deleteFile', { path: 'etc/passwd' }, 'etc')],
        [],
        contextWith({
          onToolApproval: ({ input }) =>
            (input as { path: string }).path.startsWith('tmp/')
              ? 'approve'
              : { decision: 'deny', reason: 'system files stay' },
        }),
      );
      expect(plans.map((plan) => plan.kind === 'ask' && plan.approval.policy)).toEqual([
        { approved: true },
        { approved: false, reason: 'system files stay' },
      ]);
    });

    it('is never asked about a call that needs no approval', async () => {
      const asked: string[] = [];
      await planToolCalls(
        [call('lookup', { query: 'x' }), call('deleteFile', { path: 'a' })],
        [],
        contextWith({
          onToolApproval: ({ toolName }) => {
            asked.push(toolName);
            return 'ask';
          },
        }),
      );
      expect(asked).toEqual(['deleteFile']);
    });

    it('leaves the call to a person when it throws or answers nonsense, and says so', async () => {
      const throwing = contextWith({
        onToolApproval: () => {
          throw new Error('policy store down');
        },
      });
      const [thrown] = await planToolCalls([call('deleteFile', { path: 'a' })], [], throwing);
      expect(thrown?.kind === 'ask' && thrown.approval.policy).toBeUndefined();
      expect(throwing.notes).toEqual(['onToolApproval threw for deleteFile (policy store down); a person is asked.']);

      const nonsense = contextWith({ onToolApproval: () => 'maybe' as never });
      const [unread] = await planToolCalls([call('deleteFile', { path: 'a' })], [], nonsense);
      expect(unread?.kind === 'ask' && unread.approval.policy).toBeUndefined();
      expect(nonsense.notes).toEqual(['onToolApproval answered "maybe" for deleteFile; a person is asked.']);
    });

    it('says nothing when it answers ask', async () => {
      const context = contextWith({ onToolApproval: () => ({ decision: 'ask' }) });
      await planToolCalls([call('deleteFile', { path: 'a' })], [], context);
      expect(context.notes).toEqual([]);
    });
  });
});

describe('issueApproval', () => {
  it("names the turn in the approvalId and signs the call with the worker's secret", () => {
    const toolCall = call('deleteFile', { path: 'a' });
    const approval = issueApproval(toolCall, tools[1], {
      ...contextWith({ workflowId: 'turn-7' }),
      approvalSecret: 'secret',
    });
    expect(workflowIdOfApproval(approval.approvalId)).toBe('turn-7');
    const signed = {
      approvalId: approval.approvalId,
      toolCallId: toolCall.toolCallId,
      toolName: 'deleteFile',
      input: { path: 'a' },
    };
    expect(verifyToolApproval('secret', approval.signature, signed)).toBe(true);
    expect(verifyToolApproval('secret', approval.signature, { ...signed, input: { path: 'b' } })).toBe(false);
  });

  it('carries no signature when the worker has no secret', () => {
    expect(issueApproval(call('deleteFile', { path: 'a' }), tools[1], contextWith())).not.toHaveProperty('signature');
  });

  it("binds a decision to the call's input: the same input gives the same digest, another input another", () => {
    const context = contextWith();
    const first = issueApproval(call('deleteFile', { path: 'a' }), tools[1], context);
    const again = issueApproval(call('deleteFile', { path: 'a' }), tools[1], context);
    const other = issueApproval(call('deleteFile', { path: 'b' }), tools[1], context);
    expect(again.inputDigest).toBe(first.inputDigest);
    expect(other.inputDigest).not.toBe(first.inputDigest);
  });

  it("keeps the operator's approvers when the caller names others, and notes it once", () => {
    const context = contextWith({
      policy: { tools: { deleteFile: { approvers: ['ops-lead'] } } },
      caller: { approvers: ['mallory'] },
      requester: 'mallory',
    });
    const first = issueApproval(call('deleteFile', { path: 'a' }), tools[1], context);
    issueApproval(call('deleteFile', { path: 'b' }), tools[1], context);
    expect(first.rights).toEqual({
      approvers: ['ops-lead'],
      allowSelfApproval: false,
      quorum: 1,
      requester: 'mallory',
    });
    expect(context.notes).toEqual([
      "The turn's approvers (mallory) are not among the operator's for deleteFile; the operator's apply.",
    ]);
  });

  it("uses the tool's own timeout and expiry", () => {
    const timed = defineTool({
      name: 'deploy',
      description: 'Deploys.',
      inputSchema: z.object({}),
      needsApproval: true,
      approvalTimeout: '1h',
      onExpire: 'fail',
      execute: () => 'deployed',
    });
    expect(issueApproval(call('deploy', {}), timed, contextWith())).toMatchObject({
      timeoutMs: 3_600_000,
      onExpire: 'fail',
    });
  });
});
