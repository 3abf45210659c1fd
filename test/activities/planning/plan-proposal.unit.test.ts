import { z } from 'zod';
import { planProposal } from '../../../src/activities/planning/plan-proposal';
import { planToolCalls, type PlanningContext } from '../../../src/activities/planning/plan-tool-calls';
import { inputDigestOf, type PlannedToolCall, type ToolCallPart } from '../../../src/protocol';
import { defineTool, ToolRegistry } from '../../../src/tools';
import { planningTools } from '../../support/planning-tools';

const tools = [
  ...planningTools,
  defineTool({
    name: 'deploy',
    description: 'Deploys.',
    inputSchema: z.object({ service: z.string() }),
    needsApproval: true,
    approvalTimeout: '1h',
    execute: ({ service }) => `deployed ${service}`,
  }),
];

function contextWith(overrides: Partial<PlanningContext> = {}): PlanningContext {
  return {
    workflowId: 'turn-1',
    registry: new ToolRegistry(tools),
    offered: ['lookup', 'deleteFile', 'deploy'],
    policy: {},
    autoApprove: false,
    batch: 'per-call',
    messages: [],
    notes: [],
    proposePlan: planProposal,
    ...overrides,
  };
}

function proposal(calls: unknown): ToolCallPart {
  return { type: 'tool-call', toolCallId: 'plan-1', toolName: 'proposePlan', input: { calls } };
}

function errorOf(plan: PlannedToolCall): string {
  if (plan.kind !== 'reject') throw new Error(`expected a refusal, got ${plan.kind}`);
  return plan.error;
}

describe('planProposal', () => {
  it('asks one approval for the plan, covering each call by tool and digest', () => {
    const calls = [
      { toolName: 'deleteFile', input: { path: 'a.txt' } },
      { toolName: 'deleteFile', input: { path: 'b.txt' } },
    ];
    const plan = planProposal(proposal(calls), contextWith());
    expect(plan).toMatchObject({
      kind: 'ask',
      executor: 'worker',
      call: { toolName: 'proposePlan' },
      proposal: [
        { toolName: 'deleteFile', inputDigest: inputDigestOf({ path: 'a.txt' }) },
        { toolName: 'deleteFile', inputDigest: inputDigestOf({ path: 'b.txt' }) },
      ],
    });
    expect(plan.kind === 'ask' && plan.approval.inputDigest).toBe(inputDigestOf({ calls }));
  });

  it('is decided by people who may decide every call, and expires when the first of them would', () => {
    const plan = planProposal(
      proposal([
        { toolName: 'deploy', input: { service: 'web' } },
        { toolName: 'deleteFile', input: { path: 'a.txt' } },
      ]),
      contextWith({
        requester: 'eve',
        policy: {
          tools: {
            deploy: { approvers: ['ana', 'bo'], quorum: 2 },
            deleteFile: { approvers: ['ana', 'bo', 'cy'], notify: [{ type: 'slack', channel: 'C-ops' }] },
          },
        },
      }),
    );
    expect(plan.kind).toBe('ask');
    if (plan.kind !== 'ask') return;
    expect(plan.approval.rights).toMatchObject({ approvers: ['ana', 'bo'], quorum: 2, requester: 'eve' });
    expect(plan.approval.rights?.editors).toBeUndefined();
    expect(plan.approval.timeoutMs).toBe(3_600_000);
    expect(plan.approval.notices?.notify).toEqual([{ type: 'slack', channel: 'C-ops' }]);
  });

  it('refuses, with an error the model reads, a tool the turn does not have, bad arguments, or no common approver', () => {
    expect(errorOf(planProposal(proposal([{ toolName: 'rm', input: {} }]), contextWith()))).toContain(
      'Call 1 names "rm", which is not one of your tools; you have lookup, deleteFile, deploy.',
    );
    const offeredLess = contextWith({ offered: ['lookup'] });
    expect(errorOf(planProposal(proposal([{ toolName: 'deleteFile', input: { path: 'a' } }]), offeredLess))).toContain(
      'not one of your tools',
    );
    expect(errorOf(planProposal(proposal([{ toolName: 'deleteFile', input: { file: 'a' } }]), contextWith()))).toMatch(
      /Call 1 has invalid input for tool "deleteFile"/,
    );
    expect(
      errorOf(planProposal(proposal([{ toolName: 'proposePlan', input: { calls: [] } }]), contextWith())),
    ).toContain('not one of your tools');
    const split = contextWith({
      policy: { tools: { deploy: { approvers: ['ana'] }, deleteFile: { approvers: ['bo'] } } },
    });
    expect(
      errorOf(
        planProposal(
          proposal([
            { toolName: 'deploy', input: { service: 'web' } },
            { toolName: 'deleteFile', input: { path: 'a' } },
          ]),
          split,
        ),
      ),
    ).toContain('No one may decide every call of this plan');
    const forbidden = contextWith({ policy: { tools: { deploy: { grants: false } } } });
    expect(errorOf(planProposal(proposal([{ toolName: 'deploy', input: { service: 'web' } }]), forbidden))).toContain(
      'allows no grants for that tool',
    );
    expect(errorOf(planProposal(proposal('everything'), contextWith()))).toContain('The plan was not proposed');
  });
});

describe('planToolCalls with plan approval', () => {
  it('plans proposePlan in its place among the step’s calls, and leaves it unknown where plan approval is off', async () => {
    const calls: ToolCallPart[] = [
      { type: 'tool-call', toolCallId: 'look', toolName: 'lookup', input: { query: 'q' } },
      proposal([{ toolName: 'deleteFile', input: { path: 'a' } }]),
    ];
    const on = await planToolCalls(calls, [], contextWith());
    expect(on.map((plan) => plan.kind)).toEqual(['run', 'ask']);
    const { proposePlan: _off, ...without } = contextWith();
    const off = await planToolCalls(calls, [], without);
    expect(off.map((plan) => plan.kind)).toEqual(['run', 'reject']);
    expect(errorOf(off[1] as PlannedToolCall)).toContain('Unknown tool "proposePlan"');
  });

  it('never lets the worker’s policy answer for a plan', async () => {
    const answered: string[] = [];
    const plans = await planToolCalls([proposal([{ toolName: 'deleteFile', input: { path: 'a' } }])], [], {
      ...contextWith(),
      onToolApproval: ({ toolName }) => {
        answered.push(toolName);
        return 'approve';
      },
    });
    expect(answered).toEqual([]);
    expect(plans[0]?.kind === 'ask' && plans[0].approval.policy).toBeUndefined();
  });
});
