import { allowFromSetting, allowLabel } from '../../src/protocol/allow-setting';

describe('allowFromSetting', () => {
  it('reads the operator default terms as the REST decision allow', () => {
    expect(allowFromSetting('1h')).toEqual({ for: '1h' });
    expect(allowFromSetting('for=8h, uses=10, scope=requester')).toEqual({ for: '8h', uses: 10, scope: 'requester' });
    expect(allowFromSetting('uses=5')).toEqual({ uses: 5 });
  });

  it('refuses terms a REST caller could not send, naming the setting and the reason', () => {
    expect(() => allowFromSetting('scope=everyone')).toThrow(/TOLLGATE_SLACK_ALLOW: a grant is bounded/);
    expect(() => allowFromSetting('for=forever')).toThrow(/TOLLGATE_SLACK_ALLOW: for: /);
    expect(() => allowFromSetting('uses=0')).toThrow(/uses: /);
    expect(() => allowFromSetting('scope=team,for=1h')).toThrow(/scope: /);
    expect(() => allowFromSetting('colour=red')).toThrow(/"colour=red" is not one of/);
    expect(() => allowFromSetting('for=1h,for=2h')).toThrow(/"for=2h" is not one of/);
  });
});

describe('allowLabel', () => {
  it('says the terms in a few words for a button', () => {
    expect(allowLabel({ for: '1h' })).toBe('1h');
    expect(allowLabel({ for: '8h', uses: 10, scope: 'requester' })).toBe('8h, 10 uses, this requester');
    expect(allowLabel({ uses: 1, scope: 'everyone' })).toBe('1 use, everyone');
  });
});
