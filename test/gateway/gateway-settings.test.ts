import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gatewaySettingsFromEnvironment, verifyBearerToken } from '../../src/gateway';

const token = 'ana-token-0123456789abcdef';

describe('gatewaySettingsFromEnvironment', () => {
  it('listens on 127.0.0.1:8788 by default with tokens from TOLLGATE_GATEWAY_TOKENS', () => {
    const settings = gatewaySettingsFromEnvironment({ TOLLGATE_GATEWAY_TOKENS: JSON.stringify({ [token]: 'ana' }) });
    expect(settings).toMatchObject({ port: 8788, host: '127.0.0.1', bodyLimitBytes: 65_536 });
    expect(settings.rateLimit.decisionMax).toBeLessThan(settings.rateLimit.max);
    expect(verifyBearerToken(`Bearer ${token}`, settings.tokens)).toBe('ana');
  });

  it('reads tokens from TOLLGATE_GATEWAY_TOKENS_FILE and takes host, port and audit file', () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'tollgate-gateway-'));
    const file = path.join(folder, 'tokens.json');
    writeFileSync(file, JSON.stringify({ [token]: 'ana' }));
    const settings = gatewaySettingsFromEnvironment({
      TOLLGATE_GATEWAY_TOKENS_FILE: file,
      TOLLGATE_GATEWAY_HOST: '0.0.0.0',
      TOLLGATE_GATEWAY_PORT: '9000',
      TOLLGATE_GATEWAY_AUDIT_FILE: path.join(folder, 'audit.jsonl'),
    });
    expect(settings).toMatchObject({ host: '0.0.0.0', port: 9000, auditFile: path.join(folder, 'audit.jsonl') });
    expect(verifyBearerToken(`Bearer ${token}`, settings.tokens)).toBe('ana');
  });

  it('refuses to start without tokens, saying how to configure them', () => {
    expect(() => gatewaySettingsFromEnvironment({})).toThrow(/No approver tokens configured.*TOLLGATE_GATEWAY_TOKENS/);
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
});
