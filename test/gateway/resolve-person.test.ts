import { parseAccessConfiguration, PersonDirectory, resolvePerson } from '../../src/identity';

const people = PersonDirectory.fromList([
  { id: 'ana', slack: ['T0001/U0ANA'], email: ['Ana@Example.com'] },
  { id: 'bob', slack: ['U0BOB'], email: ['bob@example.com'] },
]);

describe('resolvePerson', () => {
  it('makes every channel identity of one person the same person', () => {
    expect(resolvePerson(people, { channel: 'token', person: 'ana' })).toMatchObject({ ok: true, person: 'ana' });
    expect(resolvePerson(people, { channel: 'slack', userId: 'U0ANA', teamId: 'T0001' })).toEqual({
      ok: true,
      person: 'ana',
      identity: 'slack:T0001/U0ANA',
    });
    expect(resolvePerson(people, { channel: 'email', address: 'ANA@example.COM' })).toEqual({
      ok: true,
      person: 'ana',
      identity: 'email:ana@example.com',
    });
    // A Slack id listed without a workspace is that user in any workspace the gateway accepts.
    expect(resolvePerson(people, { channel: 'slack', userId: 'U0BOB', teamId: 'T0002' })).toMatchObject({
      person: 'bob',
    });
  });

  it('refuses a Slack user or an address the map does not name, and one from another workspace', () => {
    expect(resolvePerson(people, { channel: 'slack', userId: 'U0EVE', teamId: 'T0001' })).toMatchObject({
      ok: false,
      reason: expect.stringContaining('U0EVE'),
    });
    expect(resolvePerson(people, { channel: 'slack', userId: 'U0ANA', teamId: 'T9999' })).toMatchObject({ ok: false });
    expect(resolvePerson(people, { channel: 'email', address: 'eve@example.com' })).toMatchObject({ ok: false });
  });

  it('lets channel identities stand for themselves when no map is configured', () => {
    const none = PersonDirectory.empty();
    expect(resolvePerson(none, { channel: 'slack', userId: 'U0EVE', teamId: 'T1' })).toMatchObject({
      ok: true,
      person: 'slack:U0EVE',
    });
    expect(resolvePerson(none, { channel: 'email', address: 'Eve@Example.com' })).toMatchObject({
      ok: true,
      person: 'email:eve@example.com',
    });
  });

  it('refuses a map where one channel identity belongs to two people', () => {
    expect(() =>
      PersonDirectory.fromList([
        { id: 'ana', email: ['shared@example.com'] },
        { id: 'bob', email: ['SHARED@example.com'] },
      ]),
    ).toThrow(/belongs to both "ana" and "bob"/);
    expect(() => PersonDirectory.fromList([{ id: 'slack:U1' }])).toThrow(/no colon/);
  });
});

describe('parseAccessConfiguration', () => {
  const sha256 = 'a'.repeat(64);

  it('reads hashed tokens with scopes, and refuses unknown scopes, people and fields', () => {
    const access = parseAccessConfiguration({
      people: [{ id: 'ana' }],
      tokens: [{ person: 'ana', sha256, scopes: ['turns:start', 'approvals:decide'] }],
    });
    expect(access.tokens[0]).toMatchObject({ identity: 'ana', scopes: ['turns:start', 'approvals:decide'] });
    expect(() => parseAccessConfiguration({ tokens: [{ person: 'ana', sha256, scopes: ['root'] }] })).toThrow(
      /tokens\[0\]\.scopes/,
    );
    expect(() =>
      parseAccessConfiguration({
        people: [{ id: 'ana' }],
        tokens: [{ person: 'bob', sha256, scopes: ['turns:read'] }],
      }),
    ).toThrow(/"bob" is not one of "people"/);
    expect(() =>
      parseAccessConfiguration({ tokens: [{ person: 'ana', sha256, scopes: ['turns:read'], admin: true }] }),
    ).toThrow(/unknown field/);
  });

  it('never quotes a plain token in an error', () => {
    const attempt = () =>
      parseAccessConfiguration({ tokens: [{ person: 'ana', token: 'short-secret', scopes: ['turns:read'] }] });
    expect(attempt).toThrow(/16\+ characters/);
    expect(attempt).not.toThrow(/short-secret/);
  });
});
