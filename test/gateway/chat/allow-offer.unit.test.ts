import { allowNotOffered } from '../../../src/gateway/chat/allow-offer';

describe('allowNotOffered', () => {
  it('keeps Allow in this chat from the requester of the call: nobody grants for their own requests', () => {
    expect(allowNotOffered({}, 'ana', 'ana')).toBe('Only a teammate can allow your own requests.');
  });

  it('offers it to a teammate, and where who streams or who asked is not known (the gateway still judges)', () => {
    expect(allowNotOffered({}, 'bob', 'ana')).toBeUndefined();
    expect(allowNotOffered({ approvers: ['bob', 'carol'] }, 'bob', 'ana')).toBeUndefined();
    expect(allowNotOffered({}, undefined, 'ana')).toBeUndefined();
    expect(allowNotOffered({}, 'ana', undefined)).toBeUndefined();
  });

  it('keeps it from someone who may not decide the call, and from a call one person cannot settle', () => {
    expect(allowNotOffered({ approvers: ['carol'] }, 'bob', 'ana')).toBe('Only carol can allow this.');
    expect(allowNotOffered({ quorum: 2 }, 'bob', 'ana')).toBe(
      'It needs 2 approvers, so it cannot be allowed in this chat.',
    );
  });
});
