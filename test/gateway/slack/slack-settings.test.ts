import { slackSettingsFromEnvironment } from '../../../src/gateway/slack';

describe('slackSettingsFromEnvironment', () => {
  it('reads one signing secret, or several separated by commas while rotating', () => {
    expect(slackSettingsFromEnvironment({ SLACK_SIGNING_SECRET: 'abc123' })).toEqual({ signingSecrets: ['abc123'] });
    expect(slackSettingsFromEnvironment({ SLACK_SIGNING_SECRET: ' new-secret , old-secret ' })).toEqual({
      signingSecrets: ['new-secret', 'old-secret'],
    });
  });

  it('leaves Slack off when unset, and refuses a value with no secret in it', () => {
    expect(slackSettingsFromEnvironment({})).toBeUndefined();
    expect(slackSettingsFromEnvironment({ SLACK_SIGNING_SECRET: '  ' })).toBeUndefined();
    expect(() => slackSettingsFromEnvironment({ SLACK_SIGNING_SECRET: ',,' })).toThrow(/SLACK_SIGNING_SECRET/);
  });
});
