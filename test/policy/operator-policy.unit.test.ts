import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { operatorPolicyFromEnvironment, operatorPolicySchema } from '../../src/policy';

const publicKey = 'A'.repeat(43);

describe('operatorPolicyFromEnvironment', () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(path.join(tmpdir(), 'tollgate-policy-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  function policyFile(content: unknown): string {
    const file = path.join(folder, 'policy.json');
    writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
    return file;
  }

  it('is empty when the environment names no policy: the tools’ own rules apply', () => {
    expect(operatorPolicyFromEnvironment({})).toEqual({});
  });

  it('reads the rules of the file at TOLLGATE_POLICY_FILE', () => {
    const file = policyFile({
      defaults: { approvalTimeout: '1d' },
      tools: { bash: { needsApproval: true, approvers: ['ops-lead'], quorum: 2 } },
    });
    expect(operatorPolicyFromEnvironment({ TOLLGATE_POLICY_FILE: file })).toEqual({
      defaults: { approvalTimeout: '1d' },
      tools: { bash: { needsApproval: true, approvers: ['ops-lead'], quorum: 2 } },
    });
  });

  it('stops the worker with the file name when the file is not JSON', () => {
    const file = policyFile('{ "tools": ');
    expect(() => operatorPolicyFromEnvironment({ TOLLGATE_POLICY_FILE: file })).toThrow(
      `TOLLGATE_POLICY_FILE "${file}" could not be read as JSON`,
    );
  });

  it('stops the worker when the file is missing', () => {
    const file = path.join(folder, 'absent.json');
    expect(() => operatorPolicyFromEnvironment({ TOLLGATE_POLICY_FILE: file })).toThrow(
      `TOLLGATE_POLICY_FILE "${file}" could not be read as JSON`,
    );
  });

  it('refuses a misspelt rule by name rather than ignoring it', () => {
    const file = policyFile({ tools: { bash: { needsAproval: true } } });
    expect(() => operatorPolicyFromEnvironment({ TOLLGATE_POLICY_FILE: file })).toThrow(
      /is not a valid policy:[\s\S]*needsAproval/,
    );
  });

  it('refuses needsApproval: false: a policy can make a tool ask, never stop it asking', () => {
    const file = policyFile({ tools: { deleteFile: { needsApproval: false } } });
    expect(() => operatorPolicyFromEnvironment({ TOLLGATE_POLICY_FILE: file })).toThrow(
      /is not a valid policy:[\s\S]*tools\.deleteFile\.needsApproval/,
    );
  });

  it('adds the keys of TOLLGATE_DECISION_PUBLIC_KEYS to those of the file', () => {
    const file = policyFile({ decisions: { requireSigned: true, trustedKeys: { bot: publicKey } } });
    const policy = operatorPolicyFromEnvironment({
      TOLLGATE_POLICY_FILE: file,
      TOLLGATE_DECISION_PUBLIC_KEYS: ` gateway=${publicKey.toLowerCase()} , , cli=${publicKey}`,
    });
    expect(policy.decisions).toEqual({
      requireSigned: true,
      trustedKeys: { bot: publicKey, gateway: publicKey.toLowerCase(), cli: publicKey },
    });
  });

  it('refuses a public key entry that is not keyId=publicKey, quoting it', () => {
    expect(() => operatorPolicyFromEnvironment({ TOLLGATE_DECISION_PUBLIC_KEYS: 'gateway' })).toThrow(
      'TOLLGATE_DECISION_PUBLIC_KEYS: "gateway" is not keyId=publicKey.',
    );
  });

  it('allows autonomous turns only for the exact value true', () => {
    expect(operatorPolicyFromEnvironment({ TOLLGATE_ALLOW_AUTO_APPROVE: 'true' }).allowAutoApprove).toBe(true);
    for (const value of ['1', 'yes', 'TRUE', ''])
      expect(operatorPolicyFromEnvironment({ TOLLGATE_ALLOW_AUTO_APPROVE: value })).not.toHaveProperty(
        'allowAutoApprove',
      );
  });
});

describe('operatorPolicySchema', () => {
  it('refuses a quorum a person could not meet and a duration it cannot read', () => {
    expect(operatorPolicySchema.safeParse({ defaults: { quorum: 0 } }).success).toBe(false);
    expect(operatorPolicySchema.safeParse({ defaults: { quorum: 21 } }).success).toBe(false);
    expect(operatorPolicySchema.safeParse({ defaults: { approvalTimeout: 'soon' } }).success).toBe(false);
  });

  it('refuses an empty list of approvers, which would leave nobody able to decide', () => {
    expect(operatorPolicySchema.safeParse({ tools: { bash: { approvers: [] } } }).success).toBe(false);
  });

  it('refuses a trusted key that is not a base64url Ed25519 key in length', () => {
    expect(operatorPolicySchema.safeParse({ decisions: { trustedKeys: { bot: 'short' } } }).success).toBe(false);
  });
});
