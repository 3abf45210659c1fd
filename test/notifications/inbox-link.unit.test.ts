import { inboxLinkOf } from '../../src/notifications/inbox-link';

describe('inboxLinkOf', () => {
  it('points at the inbox page, at the approval, whatever characters its id holds', () => {
    expect(inboxLinkOf('https://tollgate.example.com/', 'turn-1:call 2#x')).toBe(
      'https://tollgate.example.com/inbox#turn-1%3Acall%202%23x',
    );
    expect(inboxLinkOf('https://tollgate.example.com/base', 'a')).toBe('https://tollgate.example.com/base/inbox#a');
  });
});
