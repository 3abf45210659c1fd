import { createHash, generateKeyPairSync, sign, verify } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gatewaySettingsFromEnvironment, verifyBearerToken } from '../../src/gateway';
import { temporaryFolder } from '../support/temporary-folder';

const token = 'ana-token-0123456789abcdef';

describe('gatewaySettingsFromEnvironment', () => {
  it('listens on 127.0.0.1:8788 by default with tokens from TOLLGATE_GATEWAY_TOKENS', () => {
    const settings = gatewaySettingsFromEnvironment({ TOLLGATE_GATEWAY_TOKENS: JSON.stringify({ [token]: 'ana' }) });
    expect(settings).toMatchObject({ port: 8788, host: '127.0.0.1', bodyLimitBytes: 65_536 });
    expect(settings.rateLimit.decisionMax).toBeLessThan(settings.rateLimit.max);
    expect(verifyBearerToken(`Bearer ${token}`, settings.tokens)).toMatchObject({
      identity: 'ana',
      scopes: ['turns:start', 'turns:read', 'approvals:decide'],
    });
  });

  it('reads tokens from TOLLGATE_GATEWAY_TOKENS_FILE and takes host, port and audit file', () => {
    const folder = temporaryFolder('tollgate-gateway-');
    const file = path.join(folder, 'tokens.json');
    writeFileSync(file, JSON.stringify({ [token]: 'ana' }));
    const settings = gatewaySettingsFromEnvironment({
      TOLLGATE_GATEWAY_TOKENS_FILE: file,
      TOLLGATE_GATEWAY_HOST: '0.0.0.0',
      TOLLGATE_GATEWAY_PORT: '9000',
      TOLLGATE_GATEWAY_AUDIT_FILE: path.join(folder, 'audit.jsonl'),
    });
    expect(settings).toMatchObject({ host: '0.0.0.0', port: 9000, auditFile: path.join(folder, 'audit.jsonl') });
    expect(verifyBearerToken(`Bearer ${token}`, settings.tokens)).toMatchObject({
      identity: 'ana',
      scopes: ['turns:start', 'turns:read', 'approvals:decide'],
    });
  });

  it('refuses to start without tokens, saying how to configure them', () => {
    expect(() => gatewaySettingsFromEnvironment({})).toThrow(
      /No gateway tokens configured.*TOLLGATE_ACCESS_FILE.*TOLLGATE_GATEWAY_TOKENS/,
    );
  });

  it('does not quote a token when its JSON is broken', () => {
    const attempt = () => gatewaySettingsFromEnvironment({ TOLLGATE_GATEWAY_TOKENS: `{"${token}": ana}` });
    expect(attempt).toThrow(/Cannot read approver tokens from TOLLGATE_GATEWAY_TOKENS/);
    expect(attempt).not.toThrow(new RegExp(token));
  });

  it('names a malformed number', () => {
    expect(() =>
      gatewaySettingsFromEnvironment({
        TOLLGATE_GATEWAY_TOKENS: JSON.stringify({ [token]: 'ana' }),
        TOLLGATE_GATEWAY_PORT: 'http',
      }),
    ).toThrow(/TOLLGATE_GATEWAY_PORT must be a whole number/);
  });

  it('reads people, hashed tokens and scopes from TOLLGATE_ACCESS_FILE', () => {
    const folder = temporaryFolder('tollgate-gateway-');
    const file = path.join(folder, 'access.json');
    const sha256 = createHash('sha256').update(token).digest('hex');
    writeFileSync(
      file,
      JSON.stringify({
        people: [{ id: 'ana', slack: ['T0001/U0123'], email: ['Ana@Example.com'] }],
        tokens: [{ person: 'ana', sha256, scopes: ['turns:start', 'audit:read'] }],
      }),
    );
    const settings = gatewaySettingsFromEnvironment({ TOLLGATE_ACCESS_FILE: file, TOLLGATE_WORKSPACE: folder + '-ws' });
    expect(verifyBearerToken(`Bearer ${token}`, settings.tokens)).toMatchObject({
      identity: 'ana',
      scopes: ['turns:start', 'audit:read'],
    });
    expect(settings.people.byEmailAddress('ana@example.com')?.id).toBe('ana');
    expect(() =>
      gatewaySettingsFromEnvironment({
        TOLLGATE_ACCESS_FILE: file,
        TOLLGATE_GATEWAY_TOKENS: JSON.stringify({ [token]: 'ana' }),
      }),
    ).toThrow(/not both/);
  });

  it('refuses gateway files inside the tools workspace, where a tool could rewrite them', () => {
    const folder = temporaryFolder('tollgate-gateway-');
    const workspace = path.join(folder, 'workspace');
    mkdirSync(workspace);
    const base = { TOLLGATE_GATEWAY_TOKENS: JSON.stringify({ [token]: 'ana' }), TOLLGATE_WORKSPACE: workspace };
    expect(() =>
      gatewaySettingsFromEnvironment({
        ...base,
        TOLLGATE_GATEWAY_AUDIT_FILE: path.join(workspace, 'sub', '..', 'audit.jsonl'),
      }),
    ).toThrow(/TOLLGATE_GATEWAY_AUDIT_FILE .* is inside the tools' workspace/);
    expect(() =>
      gatewaySettingsFromEnvironment({ ...base, TOLLGATE_EMAIL_USED_TOKENS_FILE: path.join(workspace, 'used.jsonl') }),
    ).toThrow(/TOLLGATE_EMAIL_USED_TOKENS_FILE/);
    expect(
      gatewaySettingsFromEnvironment({ ...base, TOLLGATE_GATEWAY_AUDIT_FILE: path.join(folder, 'audit.jsonl') })
        .auditFile,
    ).toBe(path.join(folder, 'audit.jsonl'));
    // Read as the workers read it: a padded value names the same folder, a blank one the default.
    expect(gatewaySettingsFromEnvironment({ ...base, TOLLGATE_WORKSPACE: ` ${workspace} ` }).workspace).toBe(workspace);
    expect(gatewaySettingsFromEnvironment({ ...base, TOLLGATE_WORKSPACE: ' ' }).workspace).toBe('.tollgate/workspace');
  });

  it('reads the decision signing key as PEM or base64 DER, with its key id', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const der = privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
    const base = { TOLLGATE_GATEWAY_TOKENS: JSON.stringify({ [token]: 'ana' }) };
    for (const text of [pem, der]) {
      const settings = gatewaySettingsFromEnvironment({
        ...base,
        TOLLGATE_DECISION_SIGNING_KEY: text,
        TOLLGATE_DECISION_KEY_ID: 'gw-2026',
      });
      expect(settings.signingKey?.keyId).toBe('gw-2026');
      const signature = sign(null, Buffer.from('x'), settings.signingKey!.privateKey);
      expect(verify(null, Buffer.from('x'), publicKey, signature)).toBe(true);
    }
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ format: 'pem', type: 'pkcs8' });
    expect(() => gatewaySettingsFromEnvironment({ ...base, TOLLGATE_DECISION_SIGNING_KEY: rsa.toString() })).toThrow(
      /must be Ed25519/,
    );
    expect(() => gatewaySettingsFromEnvironment({ ...base, TOLLGATE_DECISION_SIGNING_KEY: 'not a key' })).toThrow(
      /not a PKCS#8 private key/,
    );
    expect(gatewaySettingsFromEnvironment(base).signingKey).toBeUndefined();
  });
});
