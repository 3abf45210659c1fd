import { resolveApprovalRules, resolveMcpToolRules } from '../../src/policy';

describe('resolveMcpToolRules', () => {
  it('never asks for a read-only tool and asks for a destructive one or one without annotations', () => {
    expect(
      resolveMcpToolRules({ policy: {}, server: 'fs', tool: 'read', annotations: { readOnlyHint: true } }),
    ).toEqual({ needsApproval: false, idempotent: true, because: 'readOnlyHint' });
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
      idempotent: true,
      approvalRules: { approvers: ['carol'], quorum: 2 },
      approvalTimeout: '1h',
      onExpire: 'fail',
      because: "the operator's rule for server fs",
    });
    expect(
      resolveMcpToolRules({ policy, server: 'fs', tool: 'write_file', annotations: { destructiveHint: true } }),
    ).toMatchObject({ needsApproval: false, because: "the operator's rule for fs.write_file" });
    expect(resolveMcpToolRules({ policy, server: 'other', tool: 'read', annotations: { readOnlyHint: true } })).toEqual(
      { needsApproval: false, idempotent: true, because: 'readOnlyHint' },
    );
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
