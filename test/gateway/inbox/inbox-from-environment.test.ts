import { ApproverTokens, digestToken } from '../../../src/gateway/auth/approver-tokens';
import {
  inboxOptionsFromEnvironment,
  sessionKeysFromEnvironment,
} from '../../../src/gateway/inbox/inbox-from-environment';

const tokens = ApproverTokens.fromGrants([
  { digest: digestToken('ana-token-0123456789abcdef'), identity: 'ana', scopes: ['approvals:decide'] },
]);
const linkSecret = 'link-secret-0123456789abcdef0123456789abcdef';

describe('the inbox settings from the environment', () => {
  it('is off when nothing enables it', () => {
    expect(inboxOptionsFromEnvironment(tokens, {})).toBeUndefined();
  });

  it('takes TOLLGATE_INBOX_SESSION_KEY (newest first), or derives a key from the email link secret that is not the secret', () => {
    const keys = sessionKeysFromEnvironment({ TOLLGATE_INBOX_SESSION_KEY: `${'n'.repeat(40)}, ${'o'.repeat(40)}` });
    expect(keys).toEqual(['n'.repeat(40), 'o'.repeat(40)]);
    const derived = sessionKeysFromEnvironment({ TOLLGATE_EMAIL_LINK_SECRET: linkSecret });
    expect(derived).toHaveLength(1);
    expect(derived[0]).not.toBe(linkSecret);
    expect(sessionKeysFromEnvironment({ TOLLGATE_EMAIL_LINK_SECRET: linkSecret })).toEqual(derived);
  });

  it('refuses a short key or a proxy entry that is not an address, naming the variable', () => {
    expect(() => sessionKeysFromEnvironment({ TOLLGATE_INBOX_SESSION_KEY: 'short' })).toThrow(
      'TOLLGATE_INBOX_SESSION_KEY #1 is too short',
    );
    expect(() => inboxOptionsFromEnvironment(tokens, { TOLLGATE_TRUSTED_PROXIES: 'proxy.local' })).toThrow(
      'TOLLGATE_TRUSTED_PROXIES',
    );
  });

  it('mails sign-in links only with SMTP, a sender and the public URL configured', () => {
    const proxyOnly = inboxOptionsFromEnvironment(tokens, { TOLLGATE_TRUSTED_PROXIES: '10.0.0.0/8' });
    expect(proxyOnly).toMatchObject({ sessionKeys: [] });
    expect(proxyOnly?.mail).toBeUndefined();
    const full = inboxOptionsFromEnvironment(tokens, {
      TOLLGATE_EMAIL_LINK_SECRET: linkSecret,
      SMTP_URL: 'smtp://127.0.0.1:2525',
      TOLLGATE_EMAIL_FROM: 'Tollgate <tollgate@example.com>',
      TOLLGATE_GATEWAY_URL: 'https://tollgate.example.com',
    });
    expect(full?.mail?.from).toBe('Tollgate <tollgate@example.com>');
    expect(full?.publicUrl).toBe('https://tollgate.example.com');
  });
});
