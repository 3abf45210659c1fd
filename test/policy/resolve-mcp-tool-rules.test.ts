import { resolveApprovalRules, resolveMcpToolRules } from '../../src/policy';

describe('resolveMcpToolRules', () => {
  it("asks for a tool the server calls read-only unless the operator trusts that server's readOnlyHint", () => {
    // A server's word alone never lets a call through: a lying server marks a writing tool read-only.
    expect(
      resolveMcpToolRules({ policy: {}, server: 'fs', tool: 'read', annotations: { readOnlyHint: true } }),
    ).toEqual({
      needsApproval: true,
      idempotent: false,
      because: 'readOnlyHint, not trusted (no trustReadOnlyHint for server fs)',
    });
    const trusting = { mcpServers: { fs: { trustReadOnlyHint: true } } };
    expect(
      resolveMcpToolRules({ policy: trusting, server: 'fs', tool: 'read', annotations: { readOnlyHint: true } }),
    ).toEqual({ needsApproval: false, idempotent: true, because: 'readOnlyHint, trusted for server fs' });
    // Trust covers only the read-only hint: a destructive or unannotated tool still asks.
    expect(resolveMcpToolRules({ policy: trusting, server: 'fs', tool: 'x' })).toMatchObject({ needsApproval: true });
  });

  it('asks for a destructive tool or one without annotations', () => {
    expect(
      resolveMcpToolRules({
        policy: {},
        server: 'fs',
        tool: 'write_file',
        annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
      }),
    ).toEqual({ needsApproval: true, idempotent: false, because: 'destructiveHint' });
    expect(resolveMcpToolRules({ policy: {}, server: 'fs', tool: 'x' })).toMatchObject({
      needsApproval: true,
      idempotent: false,
      because: 'no annotations',
    });
    // Not read-only but not destructive either (create_directory): a change all the same, so it asks.
    expect(
      resolveMcpToolRules({ policy: {}, server: 'fs', tool: 'mkdir', annotations: { destructiveHint: false } }),
    ).toMatchObject({ needsApproval: true });
  });

  it("lets the operator's tool rule win over the server rule, and the server rule over annotations, both ways", () => {
    const policy = {
      mcpServers: {
        fs: {
          needsApproval: true,
          approvers: ['alice', 'bob'],
          quorum: 2,
          approvalTimeout: '1h',
          tools: { write_file: { needsApproval: false }, read: { approvers: ['carol'], onExpire: 'fail' as const } },
        },
      },
    };
    expect(resolveMcpToolRules({ policy, server: 'fs', tool: 'read', annotations: { readOnlyHint: true } })).toEqual({
      needsApproval: true,
      // The server's readOnlyHint is not trusted here: no retry on its word either.
      idempotent: false,
      approvalRules: { approvers: ['carol'], quorum: 2 },
      approvalTimeout: '1h',
      onExpire: 'fail',
      because: "the operator's rule for server fs",
    });
    expect(
      resolveMcpToolRules({ policy, server: 'fs', tool: 'write_file', annotations: { destructiveHint: true } }),
    ).toMatchObject({ needsApproval: false, because: "the operator's rule for fs.write_file" });
    expect(
      resolveMcpToolRules({ policy, server: 'other', tool: 'read', annotations: { readOnlyHint: true } }),
    ).toMatchObject({ needsApproval: true, idempotent: false });
  });
});

describe('resolveApprovalRules for a tool with its own approvalTimeout', () => {
  it("lets the policy's rules for the tool name set a different timeout, as they set everything else", () => {
    const toolRules = { approvalTimeoutMs: 3_600_000 };
    expect(resolveApprovalRules({ policy: {}, toolName: 'fs__write_file', toolRules }).timeoutMs).toBe(3_600_000);
    expect(
      resolveApprovalRules({
        policy: { tools: { fs__write_file: { approvalTimeout: '5m' } } },
        toolName: 'fs__write_file',
        toolRules,
      }).timeoutMs,
    ).toBe(300_000);
  });
});
