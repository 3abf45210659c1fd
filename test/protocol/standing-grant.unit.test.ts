import {
  constraintHolds,
  constraintSchemaProblem,
  conversationIdOf,
  grantCoverProblem,
  grantRefusal,
  termsOfAllow,
  type ClaimedCall,
  type StandingGrant,
} from '../../src/protocol';
import { resolveGrantLimits } from '../../src/policy';

const now = new Date('2026-01-01T12:00:00Z');

function grant(overrides: Partial<StandingGrant> = {}): StandingGrant {
  return {
    grantId: 'grant-00000001',
    tools: ['bash'],
    scope: { type: 'everyone' },
    grantedBy: 'ana',
    grantedByNames: ['ana', 'slack:U1'],
    grantedAt: '2026-01-01T11:00:00Z',
    expiresAt: '2026-01-01T13:00:00Z',
    used: 0,
    calls: [],
    ...overrides,
  };
}

const call: ClaimedCall = {
  workflowId: 'chat-1/turn-2',
  conversationId: 'chat-1',
  requester: 'bo',
  toolName: 'bash',
  input: { command: 'ls', path: 'src/a.ts', count: 3 },
  inputDigest: 'digest-1',
};
const anyone = { quorum: 1 };

describe('grantCoverProblem', () => {
  it('covers a call of the granted tool, in scope, in time, with uses left, by someone who could decide it', () => {
    expect(grantCoverProblem(grant({ uses: 2, used: 1 }), call, anyone, {}, now)).toBeUndefined();
  });

  it('covers nothing once expired (exactly at its end), used up or revoked', () => {
    expect(grantCoverProblem(grant({ expiresAt: now.toISOString() }), call, anyone, {}, now)).toBe('expired');
    expect(grantCoverProblem(grant({ uses: 2, used: 2 }), call, anyone, {}, now)).toBe('used up');
    expect(grantCoverProblem(grant({ revokedAt: now.toISOString() }), call, anyone, {}, now)).toBe('revoked');
  });

  it('covers only its tools, or an MCP server by its namespaced tools', () => {
    expect(grantCoverProblem(grant(), { ...call, toolName: 'deploy' }, anyone, {}, now)).toBe('another tool');
    const server = grant({ tools: undefined, mcpServer: 'fs' });
    expect(grantCoverProblem(server, { ...call, toolName: 'fs__write_file' }, anyone, {}, now)).toBeUndefined();
    expect(grantCoverProblem(server, { ...call, toolName: 'fsx__write_file' }, anyone, {}, now)).toBe('another tool');
  });

  it('covers only its conversation or requester', () => {
    const inChat = grant({ scope: { type: 'conversation', conversationId: 'chat-1' } });
    expect(grantCoverProblem(inChat, call, anyone, {}, now)).toBeUndefined();
    expect(grantCoverProblem(inChat, { ...call, conversationId: 'chat-2' }, anyone, {}, now)).toBe('another scope');
    const forBo = grant({ scope: { type: 'requester', requester: 'bo' } });
    expect(grantCoverProblem(forBo, call, anyone, {}, now)).toBeUndefined();
    expect(grantCoverProblem(forBo, { ...call, requester: 'cy' }, anyone, {}, now)).toBe('another scope');
  });

  it("never covers the grantor's own requests, a quorum tool, or a call the grantor may not decide", () => {
    expect(grantCoverProblem(grant(), { ...call, requester: 'ana' }, anyone, {}, now)).toBe(
      "the grantor's own request",
    );
    expect(grantCoverProblem(grant(), call, { quorum: 2 }, {}, now)).toBe('needs a quorum');
    expect(grantCoverProblem(grant(), call, { quorum: 1, approvers: ['cy'] }, {}, now)).toBe(
      'the grantor may not decide it',
    );
    // A channel identity on the approver list counts for the person it belongs to.
    expect(grantCoverProblem(grant(), call, { quorum: 1, approvers: ['slack:U1'] }, {}, now)).toBeUndefined();
  });

  it("applies the operator's current limits to grants given before them", () => {
    expect(grantCoverProblem(grant(), call, anyone, { forbidden: true }, now)).toMatch(/allows no grants/);
    expect(grantCoverProblem(grant(), call, anyone, { maxForMs: 30 * 60_000 }, now)).toMatch(/at most 1800000 ms/);
    expect(grantCoverProblem(grant(), call, anyone, { maxUses: 5 }, now)).toMatch(/at most 5 uses/);
    expect(grantCoverProblem(grant({ uses: 5 }), call, anyone, { maxUses: 5 }, now)).toBeUndefined();
  });

  it('checks every argument constraint', () => {
    const limited = grant({ constraints: [{ type: 'one-of', argument: 'command', values: ['ls', 'pwd'] }] });
    expect(grantCoverProblem(limited, call, anyone, {}, now)).toBeUndefined();
    expect(grantCoverProblem(limited, { ...call, input: { command: 'rm -rf /' } }, anyone, {}, now)).toBe(
      'argument "command" outside the grant',
    );
  });
});

describe('constraintHolds', () => {
  const under = { type: 'path-under' as const, argument: 'path', folder: 'src' };

  it('takes a path under the folder, never one that climbs out of it or only shares a prefix', () => {
    expect(constraintHolds(under, { path: 'src/a.ts' })).toBe(true);
    expect(constraintHolds(under, { path: './src/deep/../b.ts' })).toBe(true);
    expect(constraintHolds(under, { path: 'src/../secrets.txt' })).toBe(false);
    expect(constraintHolds(under, { path: '../src/a.ts' })).toBe(false);
    expect(constraintHolds(under, { path: 'srcx/a.ts' })).toBe(false);
    expect(constraintHolds(under, { path: 42 })).toBe(false);
  });

  it('compares numbers and list members strictly', () => {
    expect(constraintHolds({ type: 'at-most', argument: 'count', max: 3 }, { count: 3 })).toBe(true);
    expect(constraintHolds({ type: 'at-most', argument: 'count', max: 3 }, { count: '2' })).toBe(false);
    expect(constraintHolds({ type: 'at-most', argument: 'count', max: 3 }, { count: Infinity })).toBe(false);
    expect(constraintHolds({ type: 'one-of', argument: 'command', values: ['ls'] }, { command: 'ls ' })).toBe(false);
    expect(constraintHolds({ type: 'one-of', argument: 'toString', values: ['ls'] }, {})).toBe(false);
  });
});

describe('constraintSchemaProblem', () => {
  const schema = {
    type: 'object',
    properties: { command: { type: 'string' }, count: { type: 'integer' }, mode: { enum: ['a', 'b'] } },
  };

  it('accepts constraints on arguments of the kind they compare', () => {
    expect(
      constraintSchemaProblem(
        [
          { type: 'one-of', argument: 'command', values: ['ls'] },
          { type: 'at-most', argument: 'count', max: 2 },
          { type: 'one-of', argument: 'mode', values: ['a'] },
        ],
        'bash',
        schema,
      ),
    ).toBeUndefined();
  });

  it('names an argument the tool does not have, or one of the wrong kind', () => {
    expect(constraintSchemaProblem([{ type: 'path-under', argument: 'file', folder: 'x' }], 'bash', schema)).toBe(
      'Tool "bash" has no argument "file" to constrain.',
    );
    expect(constraintSchemaProblem([{ type: 'at-most', argument: 'command', max: 1 }], 'bash', schema)).toMatch(
      /needs a number, but argument "command" of tool "bash" is string/,
    );
  });
});

describe('grantRefusal', () => {
  const ana = { person: 'ana', names: ['ana'] };
  const terms = { tools: ['bash'], scope: { type: 'everyone' as const }, forMs: 3_600_000 };

  it('lets someone who may decide the tool grant it', () => {
    expect(grantRefusal(ana, terms, { quorum: 1, approvers: ['ana'] }, {})).toBeUndefined();
  });

  it('refuses a non-approver, a quorum tool, a self-grant and what the policy forbids, each with a reason', () => {
    expect(grantRefusal(ana, terms, { quorum: 1, approvers: ['bo'] }, {})).toMatch(/may not decide calls of bash/);
    expect(grantRefusal(ana, terms, { quorum: 2 }, {})).toMatch(/need 2 approvers; one person cannot grant/);
    expect(grantRefusal(ana, { ...terms, scope: { type: 'requester', requester: 'ana' } }, { quorum: 1 }, {})).toMatch(
      /may not grant for their own requests/,
    );
    expect(grantRefusal(ana, terms, { quorum: 1, requester: 'ana' }, {})).toMatch(/their own requests/);
    expect(grantRefusal(ana, terms, { quorum: 1 }, { forbidden: true })).toMatch(/allows no grants/);
    expect(grantRefusal(ana, { ...terms, forMs: undefined, uses: 10 }, { quorum: 1 }, { maxForMs: 1000 })).toMatch(
      /at most 1000 ms/,
    );
  });
});

describe('resolveGrantLimits', () => {
  it('takes the most specific rule: defaults, then MCP server and its tool, then the tool by name', () => {
    const policy = {
      defaults: { grants: { maxFor: '8h' } },
      mcpServers: { fs: { grants: false as const, tools: { read_file: { grants: { maxUses: 3 } } } } },
      tools: { deploy: { grants: false as const } },
    };
    expect(resolveGrantLimits(policy, 'bash')).toEqual({ maxForMs: 8 * 3_600_000 });
    expect(resolveGrantLimits(policy, 'fs__write_file')).toEqual({ forbidden: true });
    expect(resolveGrantLimits(policy, 'fs__read_file')).toEqual({ maxUses: 3 });
    expect(resolveGrantLimits(policy, 'deploy')).toEqual({ forbidden: true });
    expect(resolveGrantLimits({}, 'bash')).toEqual({});
  });
});

describe('conversationIdOf and termsOfAllow', () => {
  it("finds a turn's conversation, or takes a lone turn as its own", () => {
    expect(conversationIdOf('chat-1/turn-12')).toBe('chat-1');
    expect(conversationIdOf('turn-abc')).toBe('turn-abc');
  });

  it("turns an approver's 'allow' into terms for the approved call's tool, in its conversation by default", () => {
    const approved = {
      toolName: 'fs__write_file',
      workflowId: 'chat-1/turn-2',
      conversationId: 'chat-1',
      requester: 'bo',
      approvalId: 'a.1',
    };
    expect(termsOfAllow({ for: '1h', uses: 10 }, approved)).toEqual({
      tools: ['fs__write_file'],
      scope: { type: 'conversation', conversationId: 'chat-1' },
      forMs: 3_600_000,
      uses: 10,
      fromApprovalId: 'a.1',
    });
    expect(termsOfAllow({ uses: 1, scope: 'requester', wholeMcpServer: true }, approved)).toMatchObject({
      mcpServer: 'fs',
      scope: { type: 'requester', requester: 'bo' },
    });
  });
});
