import { ApproverTokens, digestToken } from '../../../src/gateway/auth/approver-tokens';
import { inboxPersonOf } from '../../../src/gateway/inbox/inbox-person';
import { PersonDirectory } from '../../../src/identity';

const people = PersonDirectory.fromList([
  { id: 'ana', email: ['ana@example.com', 'a.n.a@example.org'] },
  { id: 'auditor', email: ['audit@example.com'] },
  { id: 'nobody-tokenless', email: ['lost@example.com'] },
]);
const tokens = ApproverTokens.fromGrants([
  { digest: digestToken('ana-token-0123456789abcdef'), identity: 'ana', scopes: ['turns:read', 'approvals:decide'] },
  { digest: digestToken('auditor-token-0123456789ab'), identity: 'auditor', scopes: ['turns:read-all', 'audit:read'] },
]);

describe('inboxPersonOf', () => {
  it('signs an address in as its person when one of their tokens decides, whatever the case of the address', () => {
    expect(inboxPersonOf(' Ana@Example.COM ', people, tokens)).toEqual({ person: 'ana', address: 'ana@example.com' });
    expect(inboxPersonOf('a.n.a@example.org', people, tokens)).toEqual({ person: 'ana', address: 'a.n.a@example.org' });
  });

  it('signs nobody in who decides nothing, is not in the identity map, or without a map', () => {
    expect(inboxPersonOf('audit@example.com', people, tokens)).toBeUndefined();
    expect(inboxPersonOf('lost@example.com', people, tokens)).toBeUndefined();
    expect(inboxPersonOf('stranger@example.com', people, tokens)).toBeUndefined();
    expect(inboxPersonOf('', people, tokens)).toBeUndefined();
    expect(inboxPersonOf('ana@example.com', PersonDirectory.empty(), tokens)).toBeUndefined();
  });
});
