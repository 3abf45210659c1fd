import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describeTemporalSettings, temporalSettingsFromEnvironment, usesTls } from '../../src/client/temporal-settings';
import { temporaryFolder } from '../support/temporary-folder';

// A Temporal config file as the `temporal` CLI writes it (`temporal config set --profile cloud ...`).
function configFile(text: string): string {
  const file = path.join(temporaryFolder('tollgate-envconfig-'), 'temporal.toml');
  writeFileSync(file, text);
  return file;
}

// No config file at all, as on a machine where the temporal CLI was never configured.
const noConfigFile = path.join(tmpdir(), 'tollgate-no-such-dir', 'temporal.toml');

const cloudProfile = configFile(`
[profile.default]
address = "localhost:7233"

[profile.cloud]
address = "payments.a1b2c.tmprl.cloud:7233"
namespace = "payments.a1b2c"
api_key = "secret-key-123"
`);

describe('temporalSettingsFromEnvironment', () => {
  it('connects to a local server in the default namespace and task queue when nothing is set', () => {
    const settings = temporalSettingsFromEnvironment({ TEMPORAL_CONFIG_FILE: noConfigFile });
    expect(settings.connectionOptions.address).toBe('localhost:7233');
    expect(settings.namespace).toBe('default');
    expect(settings.taskQueue).toBe('tollgate');
    expect(usesTls(settings)).toBe(false);
  });

  it('reads a Temporal Cloud profile with an API key, which turns TLS on', () => {
    const settings = temporalSettingsFromEnvironment({ TEMPORAL_CONFIG_FILE: cloudProfile, TEMPORAL_PROFILE: 'cloud' });
    expect(settings.connectionOptions).toMatchObject({
      address: 'payments.a1b2c.tmprl.cloud:7233',
      apiKey: 'secret-key-123',
      tls: true,
    });
    expect(settings.namespace).toBe('payments.a1b2c');
    expect(describeTemporalSettings(settings)).toBe(
      'payments.a1b2c.tmprl.cloud:7233, namespace "payments.a1b2c" (TLS, API key, profile "cloud")',
    );
  });

  it('lets environment variables override the profile, as every Temporal SDK does', () => {
    const settings = temporalSettingsFromEnvironment({
      TEMPORAL_CONFIG_FILE: cloudProfile,
      TEMPORAL_PROFILE: 'cloud',
      TEMPORAL_NAMESPACE: 'staging.a1b2c',
      TOLLGATE_TASK_QUEUE: 'approvals',
    });
    expect(settings.namespace).toBe('staging.a1b2c');
    expect(settings.taskQueue).toBe('approvals');
    expect(settings.connectionOptions.apiKey).toBe('secret-key-123');
  });

  it('connects with TLS and an API key from the environment alone', () => {
    const settings = temporalSettingsFromEnvironment({
      TEMPORAL_CONFIG_FILE: noConfigFile,
      TEMPORAL_ADDRESS: 'eu-west-1.aws.api.temporal.io:7233',
      TEMPORAL_NAMESPACE: 'payments.a1b2c',
      TEMPORAL_API_KEY: 'secret-key-123',
    });
    expect(usesTls(settings)).toBe(true);
    expect(describeTemporalSettings(settings)).not.toContain('secret-key-123');
  });

  it('turns TLS off when TEMPORAL_TLS=false even with a client certificate profile', () => {
    const file = configFile(`
[profile.default]
address = "temporal.internal:7233"
[profile.default.tls]
server_name = "temporal.internal"
`);
    expect(usesTls(temporalSettingsFromEnvironment({ TEMPORAL_CONFIG_FILE: file }))).toBe(true);
    expect(usesTls(temporalSettingsFromEnvironment({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_TLS: 'false' }))).toBe(false);
  });

  it('treats an empty variable as unset, so an empty API key from compose does not turn TLS on', () => {
    const settings = temporalSettingsFromEnvironment({
      TEMPORAL_CONFIG_FILE: noConfigFile,
      TEMPORAL_ADDRESS: 'temporal:7233',
      TEMPORAL_API_KEY: '',
      TEMPORAL_TLS: '',
      TEMPORAL_NAMESPACE: '',
    });
    expect(describeTemporalSettings(settings)).toBe('temporal:7233, namespace "default" (no TLS)');
  });

  it('names the profile and the file when the named profile does not exist', () => {
    expect(() =>
      temporalSettingsFromEnvironment({ TEMPORAL_CONFIG_FILE: cloudProfile, TEMPORAL_PROFILE: 'prod' }),
    ).toThrow(/TEMPORAL_PROFILE=prod.*temporal\.toml.*Profile 'prod' not found/);
  });
});
