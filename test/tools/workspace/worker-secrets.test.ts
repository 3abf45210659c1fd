import { secretsInWorkerEnvironment, workerSecretVariables } from '../../../src/tools/workspace';

describe('secretsInWorkerEnvironment', () => {
  it('names the secrets set in the worker environment, in a stable order, and nothing else', () => {
    expect(
      secretsInWorkerEnvironment({
        TOLLGATE_APPROVAL_SECRET: 'a',
        PATH: '/usr/bin',
        OPENAI_API_KEY: 'sk-1',
        TOLLGATE_WORKSPACE: '/srv/workspace',
      }),
    ).toEqual(['OPENAI_API_KEY', 'TOLLGATE_APPROVAL_SECRET']);
  });

  it('ignores variables set to nothing, as the worker does', () => {
    expect(secretsInWorkerEnvironment({ OPENAI_API_KEY: '', TOLLGATE_GATEWAY_TOKENS: '' })).toEqual([]);
  });

  it('names a secret the worker was started with even after it left process.env, since /proc still shows it', () => {
    const startEnvironment = 'PATH=/usr/bin\0TOLLGATE_DECISION_SIGNING_KEY=-----BEGIN\0SLACK_BOT_TOKEN=\0';
    expect(secretsInWorkerEnvironment({ PATH: '/usr/bin' }, startEnvironment)).toEqual([
      'TOLLGATE_DECISION_SIGNING_KEY',
    ]);
  });

  it('covers what guards approvals and the credentials of every service Tollgate talks to', () => {
    expect(workerSecretVariables).toEqual(
      expect.arrayContaining([
        'OPENAI_API_KEY',
        'TOLLGATE_APPROVAL_SECRET',
        'TOLLGATE_DECISION_SIGNING_KEY',
        'TOLLGATE_GATEWAY_TOKENS',
        'TOLLGATE_EMAIL_LINK_SECRET',
        'SLACK_SIGNING_SECRET',
        'SMTP_PASSWORD',
        'TEMPORAL_API_KEY',
      ]),
    );
  });
});
